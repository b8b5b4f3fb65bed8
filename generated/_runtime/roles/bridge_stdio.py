# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""A stdio client of the bridge: its frames relayed as they are, or the typed bridge.

When a stdio client's ``initialize`` asks for the very revision a handshake upstream (over
stdio) already speaks, nothing needs converting, so ``serve_stdio`` relays bytes instead of
serving the typed bridge (``bridge_relay.Relay``): the client's ``initialize`` is answered
with the upstream's own answer to the bridge's (its result as it came, the client's id), and
from then on every frame goes through the relay. Any other client (another revision, the
other era, a first frame that is not ``initialize``, a revision with batches, a transport
that is no pipe) gets the converting bridge.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Final

import msgspec
from msgspec import Raw

from ..core.frame_guard import DEFAULT_MAX_DEPTH, shape_problem
from ..core.transport import Transport
from ..core.wire import ENCODER, ENVELOPE_DECODER, Envelope, Inbound, Outbound, OutResult, as_id
from ..transports.lines import HasPipeEnd
from .bridge_relay import Relay, guarded
from .bridge_tap import DECODE_ERRORS, Replay, UpstreamTap
from .era import serve

if TYPE_CHECKING:
    from .bridge import Bridge
    from .client import ClientBase

__all__ = ["serve_stdio"]

LOG: Final = logging.getLogger(__name__)


class _Hello(msgspec.Struct):
    """What the first frame's ``initialize`` params decide the path on."""

    protocolVersion: object = None
    capabilities: object = None


_HELLO: Final = msgspec.json.Decoder(_Hello)


def _hello(
    frame: bytes | Inbound | None, upstream: ClientBase[Any], max_depth: int
) -> Envelope | None:
    """The client's ``initialize`` when it asks for the upstream's revision, else None."""
    if type(frame) is not bytes:
        return None
    env = guarded(frame, max_depth)
    if isinstance(env, Inbound) or env.method != "initialize" or shape_problem(env) is not None:
        return None
    if as_id(env.id) is None or type(env.params) is not Raw:
        return None
    try:
        hello = _HELLO.decode(env.params)
    except DECODE_ERRORS:
        return None
    return env if hello.protocolVersion == upstream.protocol_version else None


def _capabilities(env: Envelope) -> dict[str, Any]:
    """The capabilities the client's ``initialize`` declares."""
    declared = _HELLO.decode(env.params).capabilities  # type: ignore[arg-type]
    return declared if isinstance(declared, dict) else {}  # pyright: ignore[reportUnknownVariableType]


async def serve_stdio(
    bridge: Bridge, transport: Transport, max_depth: int = DEFAULT_MAX_DEPTH
) -> None:
    """Serve one stdio client: relayed when it asks for the upstream's revision, else converted."""
    upstream = bridge.upstream
    tap = upstream.peer.transport
    relayable = (
        isinstance(tap, UpstreamTap)
        and isinstance(tap.inner, HasPipeEnd)  # the relay writes with the pipes' own calls
        and isinstance(transport, HasPipeEnd)
        and upstream.stateless is None
        and upstream.FACTS.handshake
        and not upstream.FACTS.batch
    )
    first = await transport.read() if relayable else None
    hello = _hello(first, upstream, max_depth) if relayable else None
    if hello is None or not isinstance(tap, UpstreamTap) or tap.initialize_answer is None:
        if isinstance(tap, UpstreamTap):
            tap.seal()
            upstream.peer.transport = tap.inner  # the typed client reads it directly again
        await serve(Replay(transport, first) if relayable else transport, bridge.served, max_depth)
        return
    answer = ENVELOPE_DECODER.decode(tap.initialize_answer).result
    relay = Relay(transport, tap, upstream, _capabilities(hello), max_depth)
    tap.relay_to(relay)
    client_id = as_id(hello.id)
    assert client_id is not None
    frame = ENCODER.encode(OutResult("2.0", client_id, answer))
    await transport.write(Outbound(frame, "response", ids=(client_id,)))
    if bridge.on_session is not None:
        bridge.on_session(upstream.protocol_version)
    LOG.debug("relaying frames as they are: client and server speak %s", upstream.protocol_version)
    await relay.run()
