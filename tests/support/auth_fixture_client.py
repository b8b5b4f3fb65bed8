"""An MCP client with OAuth, on the public API, for the conformance harness's auth scenarios.

The harness runs ``python tests/support/auth_fixture_client.py URL`` with
``MCP_CONFORMANCE_SCENARIO``, ``MCP_CONFORMANCE_PROTOCOL_VERSION`` and (for some scenarios)
``MCP_CONFORMANCE_CONTEXT`` set.
The client connects with an ``OAuthClient`` whose redirect handler plays a user who approves at
once (it reads the authorization endpoint's redirect without following it), lists the tools and
calls one (2026-07-28 too: its stateless POSTs go through the same ``OAuthClient``). Exit status 0
only if all of that worked; the reason of a failure goes to stderr.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any, Literal

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from generated import v2025_03_26, v2025_06_18, v2025_11_25, v2026_07_28
from generated._runtime.auth import ClientInfo, DPoP, EnterpriseGrant, JwtBearerGrant, OAuthClient
from generated._runtime.transports.http.client import connect_http

CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json"
CLIENTS: dict[str, Any] = {
    "2025-03-26": v2025_03_26.Client,
    "2025-06-18": v2025_06_18.Client,
    "2025-11-25": v2025_11_25.Client,
    "2026-07-28": v2026_07_28.Client,
}


async def approve(authorization_url: str) -> str:
    """A user who approves at once: where the authorization endpoint redirects the browser."""
    async with (
        aiohttp.ClientSession() as http,
        http.get(authorization_url, allow_redirects=False) as response,
    ):
        location = response.headers.get("Location")
        if response.status not in (301, 302, 303, 307, 308) or location is None:
            raise RuntimeError(f"the authorization endpoint answered HTTP {response.status}")
        return location


def oauth_from_context(context: dict[str, Any]) -> OAuthClient:
    """The ``OAuthClient`` a scenario's context calls for."""
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    credentials: list[ClientInfo] = []
    if "client_id" in context:
        method = "private_key_jwt" if "private_key_pem" in context else None
        credentials.append(
            ClientInfo(
                client_id=context["client_id"],
                client_secret=context.get("client_secret"),
                token_endpoint_auth_method=method,
                issuer=context.get("issuer"),
            )
        )
    return OAuthClient(
        redirect_handler=approve,
        client_name="mcpgen conformance client",
        client_metadata_url=CLIENT_METADATA_URL,
        credentials=credentials,
        grant=grant_for(scenario, context),
        private_key=context.get("private_key_pem"),
        signing_algorithm=context.get("signing_algorithm", "RS256"),
        dpop=DPoP() if scenario.startswith("auth/dpop") else None,
    )


def grant_for(
    scenario: str, context: dict[str, Any]
) -> Literal["authorization_code", "client_credentials"] | JwtBearerGrant | EnterpriseGrant:
    """The grant a scenario's context calls for: a machine's credentials, a workload's JWT,
    an enterprise ID token, or the authorization code grant with a user."""
    if scenario.startswith("auth/client-credentials"):
        return "client_credentials"
    if "valid_jwt" in context:
        return JwtBearerGrant(context["valid_jwt"])
    if "idp_id_token" in context:
        idp_client = ClientInfo(context["idp_client_id"]) if "idp_client_id" in context else None
        return EnterpriseGrant(context["idp_token_endpoint"], context["idp_id_token"], idp_client)
    return "authorization_code"


async def main(url: str) -> None:
    """Connect with OAuth, list the tools, call the first one."""
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    version = os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION", "2025-11-25")
    client = CLIENTS.get(version, v2025_11_25.Client)(name="mcpgen-auth-fixture", version="1.0")
    await connect_http(client, url, auth=oauth_from_context(context), sse_fallback=False)
    try:
        tools = await client.list_tools()
        if tools.tools:
            await client.call_tool(name=tools.tools[0].name, arguments={})
    finally:
        await client.close()


if __name__ == "__main__":
    try:
        asyncio.run(main(sys.argv[1]))
    except Exception as exc:
        print(f"auth fixture client failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        sys.exit(1)
