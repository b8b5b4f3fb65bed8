"""The lifecycle of the sans-I/O core: phases, what each admits, negotiation, both eras."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from generated._runtime.core.errors import INVALID_REQUEST, LocalProtocolError
from generated._runtime.core.events import Notification, ProtocolViolation, Request
from generated._runtime.core.lifecycle import (
    ADMITS,
    OWN_KIND,
    Kind,
    Lifecycle,
    Phase,
    initial_phase,
)
from generated._runtime.core.session import Session
from generated._runtime.roles.server import ServerConnection
from generated._runtime.transports.memory import memory_pair
from generated.v2025_03_26 import methods as m0326
from generated.v2025_06_18 import methods as m0618
from generated.v2026_07_28 import methods as m0728
from tests.support.runtime_support import STEP_S, EchoServer, RawPeer

INIT = {
    "protocolVersion": "2025-06-18",
    "capabilities": {"roots": {}},
    "clientInfo": {"name": "c", "version": "1"},
}


def frame(value: Any) -> bytes:
    """Encode one JSON value as a frame."""
    return json.dumps(value).encode()


def sent(session: Session) -> list[Any]:
    """The frames the session queued, decoded."""
    return [json.loads(data) for data in session.data_to_send()]


def server() -> Session:
    """A 2025-06-18 server session as a connection starts it."""
    return Session(m0618.METHODS, role="server", phase=initial_phase(m0618.METHODS))


def client() -> Session:
    """A 2025-06-18 client session as a connection starts it."""
    return Session(m0618.METHODS, role="client", phase=initial_phase(m0618.METHODS))


def request(id_: int, method: str, params: Any = None) -> bytes:
    """A request frame."""
    value: dict[str, Any] = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not None:
        value["params"] = params
    return frame(value)


def test_every_phase_has_a_row_and_closed_admits_nothing() -> None:
    assert set(ADMITS) == set(Phase)
    assert ADMITS[Phase.CLOSED] == frozenset()
    assert all((kind, s) in ADMITS[Phase.UNMANAGED] for kind in Kind for s in ("client", "server"))


def test_the_requests_a_phase_admits_without_admit_are_those_admit_passes_unchanged() -> None:
    # The session skips ``admit`` for a request whose sender is in ``requests_from``: in every
    # phase that must be exactly what ``admit`` passes and keeps the phase for.
    for phase in Phase:
        for sender in ("client", "server"):
            for method in ("tools/call", "sampling/createMessage", "initialize", "ping"):
                lifecycle = Lifecycle(phase)
                refused = lifecycle.admit(method, True, sender)
                quiet = refused is None and lifecycle.phase is phase
                skipped = method not in OWN_KIND and sender in Lifecycle(phase).requests_from
                assert skipped <= quiet, (phase, sender, method)
                if method not in OWN_KIND:
                    assert skipped == quiet, (phase, sender, method)


def test_eras_start_where_their_method_table_says() -> None:
    assert initial_phase(m0618.METHODS) is Phase.AWAITING_INITIALIZE
    assert initial_phase(m0728.METHODS) is Phase.STATELESS
    assert Session(m0618.METHODS, role="server").phase is Phase.UNMANAGED


def test_server_refuses_requests_before_initialize_but_answers_ping() -> None:
    s = server()
    events = s.receive(request(1, "tools/list"))
    [reply] = sent(s)
    assert reply["id"] == 1 and reply["error"]["code"] == INVALID_REQUEST
    assert "before initialize" in reply["error"]["message"]
    assert isinstance(events[0], ProtocolViolation)
    assert s.receive(request(2, "ping")) == [Request(2, "ping", None)]
    assert s.phase is Phase.AWAITING_INITIALIZE


def test_handshake_moves_both_sides_through_the_same_phases() -> None:
    c, s = client(), server()
    with pytest.raises(LocalProtocolError, match="before initialize"):
        c.send_request(m0618.TOOLS_LIST, None)
    rid = c.send_request(m0618.INITIALIZE, INIT)
    assert c.phase is Phase.INITIALIZING
    [init] = s.receive(c.data_to_send()[0])
    assert isinstance(init, Request) and s.phase is Phase.INITIALIZING
    s.negotiate("2025-06-18", m0618.METHODS, batch=False)
    s.send_response(
        init.id,
        {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "serverInfo": {"name": "s", "version": "1"},
        },
    )
    [answer] = c.receive(s.data_to_send()[0])
    assert answer.id == rid  # type: ignore[union-attr]
    c.negotiate("2025-06-18", m0618.METHODS, batch=False)
    c.send_notification(m0618.NOTIFICATIONS_INITIALIZED, None)
    assert c.phase is Phase.OPERATING and c.protocol_version == "2025-06-18"
    assert s.receive(c.data_to_send()[0]) == [Notification("notifications/initialized", None)]
    assert s.phase is Phase.OPERATING and s.protocol_version == "2025-06-18"


def test_server_may_not_send_requests_until_it_read_initialized() -> None:
    s = server()
    s.receive(request(1, "initialize", INIT))
    s.negotiate("2025-06-18", m0618.METHODS, batch=False)
    with pytest.raises(LocalProtocolError, match="initialized notification"):
        s.send_request(m0618.ROOTS_LIST, None)
    s.send_request(m0618.PING, None)  # ping is always allowed
    s.send_notification(m0618.NOTIFICATIONS_MESSAGE, {"level": "info", "data": "x"})
    s.receive(frame({"jsonrpc": "2.0", "method": "notifications/initialized"}))
    s.send_request(m0618.ROOTS_LIST, None)
    assert [f.get("method") for f in sent(s)] == ["ping", "notifications/message", "roots/list"]


def test_a_client_request_before_its_initialized_notification_is_still_served() -> None:
    s = server()
    s.receive(request(1, "initialize", INIT))
    [event] = s.receive(request(2, "tools/list"))
    assert isinstance(event, Request) and event.method == "tools/list"


def test_second_initialize_is_refused() -> None:
    s = server()
    s.receive(request(1, "initialize", INIT))
    s.receive(request(2, "initialize", INIT))
    [reply] = sent(s)
    assert reply["id"] == 2 and reply["error"]["code"] == INVALID_REQUEST
    assert "already done" in reply["error"]["message"]


def test_negotiate_adopts_the_table_and_batch_support_of_the_chosen_revision() -> None:
    s = Session(m0618.METHODS, role="server", phase=initial_phase(m0618.METHODS))
    s.receive(request(1, "initialize", {**INIT, "protocolVersion": "2025-03-26"}))
    s.negotiate("2025-03-26", m0326.METHODS, batch=m0326.SUPPORTS_BATCH)
    assert s.methods is m0326.METHODS and s.batch is True
    with pytest.raises(LocalProtocolError):
        s.negotiate("2025-03-26", m0326.METHODS, batch=True)  # once only


def test_stateless_era_needs_no_handshake_and_negotiates_nothing() -> None:
    s = Session(m0728.METHODS, role="server", phase=initial_phase(m0728.METHODS))
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
    [event] = s.receive(request(1, "tools/list", {"_meta": meta}))
    assert isinstance(event, Request)
    with pytest.raises(LocalProtocolError, match="per request"):
        s.negotiate("2026-07-28", m0728.METHODS, batch=False)


def test_serving_without_a_handshake_is_operating_at_once() -> None:
    s = server()
    s.negotiate("2025-06-18", m0618.METHODS, batch=False, handshake=False)
    assert s.phase is Phase.OPERATING
    s.send_request(m0618.ROOTS_LIST, None)


def test_closed_session_sends_nothing_and_restart_awaits_initialize_again() -> None:
    c = client()
    c.send_request(m0618.INITIALIZE, INIT)
    c.restart()
    assert c.phase is Phase.AWAITING_INITIALIZE
    c.close()
    with pytest.raises(LocalProtocolError):
        c.send_request(m0618.PING, None)


async def test_connection_reads_initialized_over_a_transport() -> None:
    client_end, server_end = memory_pair()
    connection = ServerConnection([EchoServer()], server_end)
    task = asyncio.create_task(connection.run())
    raw = RawPeer(client_end)
    reply = await raw.call(0, "initialize", INIT)
    assert reply["result"]["protocolVersion"] == "2025-06-18"
    assert not connection.initialized
    await raw.notify("notifications/initialized")
    await raw.call(1, "ping")
    assert connection.initialized
    await client_end.close()
    await asyncio.wait_for(task, STEP_S)
