"""The official SDK's ``Client`` as the interop and bridge tests open it."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator
from typing import Any

import mcp_types as types
from mcp import Client
from mcp.client.session import ClientRequestContext, ElicitationFnT, SamplingFnT

READ_TIMEOUT_S = 30.0
"""The SDK client's bound on each reply (an upper bound, generous for a loaded machine)."""


async def sample_paris(context: ClientRequestContext, params: Any) -> types.CreateMessageResult:
    """Answer a sampling request with Paris, as model ``sdk-model``."""
    text = types.TextContent(type="text", text="Paris")
    return types.CreateMessageResult(role="assistant", content=text, model="sdk-model")


@contextlib.asynccontextmanager
async def sdk_client(
    server: Any,
    mode: str,
    *,
    name: str,
    elicit: ElicitationFnT,
    sample: SamplingFnT = sample_paris,
) -> AsyncGenerator[Client]:
    """The SDK's ``Client`` of ``server`` in ``mode`` named ``name``, answering elicitation and
    sampling with the callbacks given, without its cache."""
    async with Client(
        server,
        mode=mode,
        read_timeout_seconds=READ_TIMEOUT_S,
        elicitation_callback=elicit,
        sampling_callback=sample,
        cache=None,
        client_info=types.Implementation(name=name, version="1"),
    ) as client:
        yield client
