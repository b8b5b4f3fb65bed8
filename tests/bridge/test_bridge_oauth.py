"""The bridge holds the upstream's OAuth token: a downstream client without credentials reaches
an OAuth-protected HTTP server (``oauth_upstream.py``).

In one process, ``connect_upstream`` with ``Upstream(auth=OAuthClient(...))``; and the real
``mcpgen bridge`` command with its ``--oauth-*`` options (the secret from the environment):
the client_credentials grant, the JWT bearer grant from a file, and a wrong secret ending the
bridge with one line that does not show the secret.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from pathlib import Path

from click.testing import CliRunner

from codegen.bridge_command import bridge_command
from generated._runtime.auth import ClientInfo, OAuthClient
from generated._runtime.roles.bridge import Bridge
from generated._runtime.roles.bridge_run import Upstream, connect_upstream
from generated._runtime.roles.era import serve
from generated._runtime.transports.memory import memory_pair
from generated._runtime.transports.stdio import spawn_server
from generated.converters import BRIDGE
from generated.v2025_06_18 import Client
from tests.bridge.oauth_upstream import Machines, protected_upstream, text_of
from tests.bridge.test_bridge_stdio import MCPGEN

BOUND_S = 30.0
SECRET = "s3cret-of-the-bridge"


async def test_the_bridge_holds_the_token_for_a_client_without_credentials() -> None:
    """``Upstream(auth=...)``: the bridge gets a token by client_credentials; the downstream
    session, which has none, calls the protected tool as the bridge's client."""
    machines = Machines(secrets={"bridge-1": SECRET})
    async with protected_upstream(machines) as upstream:
        bridge = Bridge(BRIDGE)
        oauth = OAuthClient(grant="client_credentials", credentials=ClientInfo("bridge-1", SECRET))
        where = Upstream(url=upstream.mcp_url, auth=oauth)
        await asyncio.wait_for(connect_upstream(bridge, where), BOUND_S)
        down_client, down_server = memory_pair()
        served = asyncio.create_task(serve(down_server, bridge.served))
        client = Client()
        try:
            await asyncio.wait_for(client.connect(down_client), BOUND_S)
            result = await asyncio.wait_for(client.call_tool(name="whoami"), BOUND_S)
        finally:
            await client.close()
            await bridge.close()
            served.cancel()
            with contextlib.suppress(BaseException):
                await served
    assert text_of(result) == "alice mcp:read"
    assert machines.served == [("client_credentials", "bridge-1")]


async def whoami_through_the_command(url: str, options: list[str], env: dict[str, str]) -> str:
    """``mcpgen bridge --url URL OPTIONS`` spawned over stdio; a 2025-06-18 client calls whoami."""
    transport = await spawn_server(
        MCPGEN, ["bridge", "--url", url, *options], env={**os.environ, **env}
    )
    client = Client()
    try:
        await asyncio.wait_for(client.connect(transport), BOUND_S)
        return text_of(await asyncio.wait_for(client.call_tool(name="whoami"), BOUND_S))
    finally:
        await client.close()


async def test_the_command_gets_the_token_by_client_credentials() -> None:
    """``--oauth-client-id`` with the secret from MCPGEN_BRIDGE_CLIENT_SECRET."""
    machines = Machines(secrets={"bridge-1": SECRET})
    async with protected_upstream(machines) as upstream:
        env = {"MCPGEN_BRIDGE_CLIENT_SECRET": SECRET}
        text = await whoami_through_the_command(
            upstream.mcp_url, ["--oauth-client-id", "bridge-1"], env
        )
    assert text == "alice mcp:read"
    assert machines.served == [("client_credentials", "bridge-1")]


async def test_the_command_gets_the_token_by_a_jwt_from_a_file(tmp_path: Path) -> None:
    """MCPGEN_BRIDGE_ASSERTION_FILE names a workload JWT: the JWT bearer grant presents it."""
    machines = Machines(assertions={"workload.jwt.1"})
    jwt_file = tmp_path / "token"
    jwt_file.write_text("workload.jwt.1\n")
    async with protected_upstream(machines) as upstream:
        env = {"MCPGEN_BRIDGE_ASSERTION_FILE": str(jwt_file)}
        text = await whoami_through_the_command(upstream.mcp_url, [], env)
    assert text == "alice mcp:read"
    assert machines.served == [("urn:ietf:params:oauth:grant-type:jwt-bearer", "workload.jwt.1")]


async def test_a_refused_grant_ends_the_command_with_one_line() -> None:
    """A wrong secret: exit 1, one stderr line, the secret not in it."""
    machines = Machines(secrets={"bridge-1": SECRET})
    async with protected_upstream(machines) as upstream:
        process = await asyncio.create_subprocess_exec(
            MCPGEN,
            "bridge",
            "--url",
            upstream.mcp_url,
            "--oauth-client-id",
            "bridge-1",
            env={**os.environ, "MCPGEN_BRIDGE_CLIENT_SECRET": "wrong-secret"},
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        try:
            _, err = await asyncio.wait_for(process.communicate(), BOUND_S)
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
    logged = err.decode()
    lines = [line for line in logged.splitlines() if line.strip()]
    assert process.returncode == 1, logged
    assert len(lines) == 1 and "invalid_client" in lines[0], logged
    assert "wrong-secret" not in logged
    assert machines.served == []


def test_oauth_options_need_an_upstream_url() -> None:
    """The --oauth-* options with a command upstream are a usage error, not ignored."""
    done = CliRunner().invoke(bridge_command, ["--oauth-client-id", "x", "--", "python", "s.py"])
    assert done.exit_code == 2 and "--url" in done.output, done.output


def test_a_secret_needs_a_client_id() -> None:
    """A client secret without a client id is a usage error."""
    url = ["--url", "http://127.0.0.1:9/mcp"]
    done = CliRunner().invoke(bridge_command, url, env={"MCPGEN_BRIDGE_CLIENT_SECRET": "x"})
    assert done.exit_code == 2 and "--oauth-client-id" in done.output, done.output


def test_a_scope_needs_a_grant() -> None:
    """--oauth-scope alone is a usage error, not ignored."""
    url = ["--url", "http://127.0.0.1:9/mcp", "--oauth-scope", "mcp:read"]
    done = CliRunner().invoke(bridge_command, url)
    assert done.exit_code == 2 and "--oauth-scope" in done.output, done.output
