"""The pure parts of authorization: challenges, discovery URLs, resource matching, PKCE; and
that a package not using authorization never loads its libraries."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from generated._runtime.auth.crypto import pkce_pair, s256
from generated._runtime.auth.metadata import (
    as_metadata_urls,
    bearer_challenge,
    canonical_resource,
    format_challenge,
    is_secure,
    parse_challenges,
    prm_urls,
    resource_covers,
)
from tests.conftest import ROOT


def test_challenges_are_parsed_with_quotes_and_several_schemes() -> None:
    """RFC 7235 syntax: several challenges, quoted strings with escapes, bare tokens."""
    header = (
        'Basic realm="x", Bearer error="insufficient_scope", scope="files:read files:write",'
        'resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource",'
        ' error_description="say \\"please\\""'
    )
    basic, bearer = parse_challenges(header)
    assert basic.scheme == "Basic" and basic.params == {"realm": "x"}
    assert bearer.error == "insufficient_scope"
    assert bearer.scope == "files:read files:write"
    assert (
        bearer.resource_metadata == "https://mcp.example.com/.well-known/oauth-protected-resource"
    )
    assert bearer.params["error_description"] == 'say "please"'
    assert parse_challenges('Bearer error=invalid_token, DPoP algs="ES256"')[0].error == (
        "invalid_token"
    )
    assert bearer_challenge(["Negotiate abc==", "bearer scope=x"]).scope == "x"
    assert bearer_challenge([]).params == {}
    round_trip = format_challenge({"scope": "a b", "error_description": 'q"uote'})
    assert bearer_challenge([round_trip]).params == {"scope": "a b", "error_description": 'q"uote'}


def test_protected_resource_metadata_urls_in_spec_order() -> None:
    """The header's URL first, then the path-suffixed well-known URI, then the root one."""
    assert prm_urls("https://ex.com/public/mcp", "https://ex.com/custom.json") == [
        "https://ex.com/custom.json",
        "https://ex.com/.well-known/oauth-protected-resource/public/mcp",
        "https://ex.com/.well-known/oauth-protected-resource",
    ]
    assert prm_urls("https://ex.com/", None) == [
        "https://ex.com/.well-known/oauth-protected-resource"
    ]


def test_authorization_server_metadata_urls_in_spec_order() -> None:
    """RFC 8414 path insertion, OpenID insertion, OpenID appending; two for a bare issuer."""
    assert as_metadata_urls("https://auth.example.com/tenant1") == [
        "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
        "https://auth.example.com/.well-known/openid-configuration/tenant1",
        "https://auth.example.com/tenant1/.well-known/openid-configuration",
    ]
    assert as_metadata_urls("https://auth.example.com") == [
        "https://auth.example.com/.well-known/oauth-authorization-server",
        "https://auth.example.com/.well-known/openid-configuration",
    ]


@pytest.mark.parametrize(
    ("resource", "url", "covered"),
    [
        ("https://mcp.example.com/mcp", "https://mcp.example.com/mcp", True),
        ("https://mcp.example.com", "https://mcp.example.com/mcp", True),
        ("https://MCP.example.com:443/", "https://mcp.example.com/mcp", True),
        ("https://mcp.example.com/mcp", "https://mcp.example.com/mcp-admin", False),
        ("https://mcp.example.com/mcp", "https://mcp.example.com/", False),
        ("https://mcp.example.com/mcp", "http://mcp.example.com/mcp", False),
        ("https://mcp.example.com/mcp", "https://mcp.example.com:8443/mcp", False),
        ("https://evil.example.com/mcp", "https://mcp.example.com/mcp", False),
    ],
)
def test_resource_covers(resource: str, url: str, covered: bool) -> None:
    """Same origin, and the resource's path a whole-segment prefix of the URL's."""
    assert resource_covers(resource, url) is covered


def test_canonical_resource_and_secure_endpoints() -> None:
    """Lower-case scheme and host, no fragment or trailing slash; HTTPS or loopback HTTP."""
    assert canonical_resource("HTTPS://MCP.Example.com/Mcp/#x") == "https://mcp.example.com/Mcp"
    assert canonical_resource("https://mcp.example.com/") == "https://mcp.example.com"
    assert is_secure("https://as.example.com/token")
    assert is_secure("http://localhost:3000/token") and is_secure("http://127.0.0.1/x")
    assert is_secure("http://[::1]:80/x")
    assert not is_secure("http://as.example.com/token")
    assert not is_secure("ftp://localhost/x")


def test_pkce_s256_matches_rfc_7636_appendix_b() -> None:
    """The RFC's worked example, and fresh pairs that differ and verify."""
    verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    assert s256(verifier) == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    (v1, c1), (v2, _) = pkce_pair(), pkce_pair()
    assert v1 != v2 and s256(v1) == c1 and 43 <= len(v1) <= 128


def test_packages_without_authorization_load_none_of_its_libraries() -> None:
    """Using every revision's client and server, over stdio and HTTP, loads no JOSE or crypto
    library and not ``_runtime.auth`` (checked in a fresh interpreter)."""
    script = textwrap.dedent(
        """
        import sys
        import generated
        from generated import v2024_11_05, v2025_03_26, v2025_06_18, v2025_11_25, v2026_07_28
        from generated.v2025_11_25 import Client, Server, types
        from generated._runtime.transports.http import client, server
        from generated._runtime.transports import stdio
        Client(name="x", version="1")
        loaded = [m for m in sys.modules if m.split(".")[0] in ("jwt", "cryptography", "authlib")
                  or m.startswith("generated._runtime.auth")]
        print(loaded)
        sys.exit(1 if loaded else 0)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_client_metadata_document_and_application_type() -> None:
    """The CIMD names its own URL as client id; the registration type follows the redirect."""
    from generated._runtime.auth import OAuthClient

    async def handler(url: str) -> str:
        return url

    url = "https://app.example.com/oauth/client.json"
    local = OAuthClient(redirect_handler=handler, client_metadata_url=url, client_name="App")
    doc = local.metadata_document()
    assert doc["client_id"] == url and doc["client_name"] == "App"
    assert doc["redirect_uris"] == ["http://localhost:3030/callback"]
    assert "refresh_token" in doc["grant_types"] and doc["token_endpoint_auth_method"] == "none"
    assert local.application_type == "native"
    web = OAuthClient(redirect_handler=handler, redirect_uri="https://app.example.com/cb")
    assert web.application_type == "web"
    with pytest.raises(ValueError, match="client_metadata_url"):
        web.metadata_document()
    with pytest.raises(ValueError, match="redirect_handler"):
        OAuthClient()
