"""The MCP lifecycle as a state machine driven by tables (after h11's ``_state.py``).

Invariants:

1. Everything that decides whether a message may be sent or received in the current phase
   lives here, in two tables: ``ADMITS`` (which message kinds each phase admits, by sender)
   and ``TRANSITIONS`` (which message moves the connection to which phase).
2. The machine does not know which role we play. It sees messages as "a client sent an
   ``initialize``", whether we sent it or received it, so both sides apply the same rules
   to themselves and to their peer; the session turns a refusal into a
   ``LocalProtocolError`` (we misbehaved) or an error response (the peer did).
3. Responses answer requests that were admitted, so they are not in the tables.

Phases: ``AWAITING_INITIALIZE`` (nothing exchanged yet), ``INITIALIZING`` (``initialize``
was sent; until the client sends ``notifications/initialized``), ``OPERATING``, and
``CLOSED``. Revisions without ``initialize`` (2026-07-28) start in ``STATELESS``: there is
no handshake, every request carries its own version and capabilities in ``_meta``. A bare
session (tests, embedding in another stack) is ``UNMANAGED``: its caller keeps the
lifecycle, and everything the method table allows flows.

The rest of the module holds version negotiation and capability checks of the
initialize-era revisions; capabilities are plain JSON objects here (``msgspec.to_builtins``
of the generated capability types), checked by dotted path.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, cast

import msgspec

from .errors import INVALID_PARAMS, LocalProtocolError, RemoteProtocolError, UnsupportedVersion
from .meta import META_CAPABILITIES, META_VERSION, UNSUPPORTED_PROTOCOL_VERSION
from .methods import MethodSpec

Sender = Literal["client", "server"]


class Phase(enum.Enum):
    """Where a connection is in the MCP lifecycle."""

    AWAITING_INITIALIZE = "awaiting-initialize"
    INITIALIZING = "initializing"
    OPERATING = "operating"
    STATELESS = "stateless"
    CLOSED = "closed"
    UNMANAGED = "unmanaged"

    __hash__ = object.__hash__  # members are singletons: identity hashing is exact and fast


class Kind(enum.Enum):
    """What a message is, as far as the lifecycle cares."""

    INITIALIZE = "initialize"
    INITIALIZED = "notifications/initialized"
    PING = "ping"
    REQUEST = "request"
    NOTIFICATION = "notification"

    __hash__ = object.__hash__  # members are singletons: identity hashing is exact and fast


_BY_METHOD: Final[Mapping[str, Kind]] = {
    "initialize": Kind.INITIALIZE,
    "notifications/initialized": Kind.INITIALIZED,
    "ping": Kind.PING,
}


_REQUEST: Final = Kind.REQUEST
_NOTIFICATION: Final = Kind.NOTIFICATION


_C: Final = "client"


def _both(*kinds: Kind) -> set[tuple[Kind, Sender]]:
    """The given kinds, from either sender."""
    return {(kind, sender) for kind in kinds for sender in ("client", "server")}


ADMITS: Final[Mapping[Phase, frozenset[tuple[Kind, Sender]]]] = {
    # Before the handshake only initialize (and ping, cancellation, progress, logging) flows.
    Phase.AWAITING_INITIALIZE: frozenset(
        {(Kind.INITIALIZE, _C), *_both(Kind.PING, Kind.NOTIFICATION)}
    ),
    # The server may not send requests other than ping until it has read the client's
    # notifications/initialized: this is what that notification means. A client request
    # that arrives before it is served (clients that pipeline lose nothing).
    Phase.INITIALIZING: frozenset(
        {(Kind.INITIALIZED, _C), (Kind.REQUEST, _C), *_both(Kind.PING, Kind.NOTIFICATION)}
    ),
    # A repeated initialized notification is harmless.
    Phase.OPERATING: frozenset(
        {(Kind.INITIALIZED, _C), *_both(Kind.PING, Kind.REQUEST, Kind.NOTIFICATION)}
    ),
    # 2026-07-28: no handshake; each request says its version and capabilities in _meta.
    Phase.STATELESS: frozenset(_both(Kind.PING, Kind.REQUEST, Kind.NOTIFICATION)),
    Phase.CLOSED: frozenset(),
    Phase.UNMANAGED: frozenset(_both(*Kind)),
}
"""Which message kinds, from which sender, each phase admits."""

TRANSITIONS: Final[Mapping[tuple[Phase, Kind, Sender], Phase]] = {
    (Phase.AWAITING_INITIALIZE, Kind.INITIALIZE, _C): Phase.INITIALIZING,
    (Phase.INITIALIZING, Kind.INITIALIZED, _C): Phase.OPERATING,
}
"""The message-triggered transitions; any admitted message not listed keeps the phase."""

_TRIGGERS: Final = frozenset(kind for _, kind, _ in TRANSITIONS)
OWN_KIND: Final = frozenset(_BY_METHOD)
"""The methods with a kind of their own (``initialize``, ``ping``...): every other request
is of kind ``REQUEST``, which triggers no transition."""


def _requests_from(phase: Phase) -> frozenset[Sender]:
    """The senders whose plain requests ``phase`` admits (``Lifecycle.requests_from``)."""
    assert _REQUEST not in _TRIGGERS
    return frozenset(s for k, s in ADMITS[phase] if k is _REQUEST)


PER_REQUEST: Final[Mapping[Phase, tuple[tuple[str, type[Any]], ...]]] = {
    # No handshake: each request says in _meta what initialize said once.
    Phase.STATELESS: ((META_VERSION, str), (META_CAPABILITIES, dict)),
}
"""What each phase requires of every received request's ``_meta``: (key, JSON type) rows,
refused with -32602; where there are rows, the version must also be one the connection
serves (-32022, naming the supported versions)."""


class MetaRefused(RemoteProtocolError):
    """A request refused by its phase's ``_meta`` rows (before any handler could see it)."""


StatedVersion = Callable[[str], "RemoteProtocolError | None"]
"""A transport's check of a request's ``_meta`` version against what it stated (a header)."""


@dataclass(frozen=True, slots=True)
class Served:
    """The versions a connection without a handshake answers, and those its -32022 names."""

    versions: frozenset[str]
    supported: tuple[str, ...]


def initial_phase(methods: Mapping[str, MethodSpec[Any, Any]]) -> Phase:
    """The phase a connection of this method table starts in (with or without a handshake)."""
    return Phase.AWAITING_INITIALIZE if "initialize" in methods else Phase.STATELESS


class Lifecycle:
    """The phase of one connection and the version it negotiated."""

    __slots__ = ("_admitted", "phase", "requests_from", "served", "version")

    def __init__(self, phase: Phase = Phase.UNMANAGED, served: Served | None = None) -> None:
        self.phase = phase
        self._admitted = ADMITS[phase]
        self.requests_from = _requests_from(phase)
        """The senders whose requests (other than ``initialize`` and ``ping``) this phase
        admits: such a request changes no phase, so the session admits it without ``admit``."""
        self.version = ""
        """The negotiated protocol version; "" before negotiation and when stateless."""
        self.served = served
        """The versions answered per request (a connection without a handshake)."""

    def _enter(self, phase: Phase) -> None:
        self.phase = phase
        self._admitted = ADMITS[phase]
        self.requests_from = _requests_from(phase)

    def admits(self, kind: Kind, sender: Sender) -> bool:
        """Whether a message of ``kind`` from ``sender`` may flow in the current phase."""
        return (kind, sender) in self._admitted

    def admit(self, method: str, request: bool, sender: Sender) -> str | None:
        """Check and record one message (the session's hot path): None, or why it is refused."""
        kind = _BY_METHOD.get(method) or (_REQUEST if request else _NOTIFICATION)
        if (kind, sender) not in self._admitted:
            return self.refusal(method, kind, sender)
        if kind in _TRIGGERS:
            self._enter(TRANSITIONS.get((self.phase, kind, sender), self.phase))
        return None

    def admit_meta(
        self, meta: object, stated: StatedVersion | None = None
    ) -> RemoteProtocolError | None:
        """Check a received request's ``_meta`` against the phase's rows: None, or the error.

        ``stated``: the transport's own check of the version (HTTP's header), run between the
        rows and the served versions."""
        rows = PER_REQUEST.get(self.phase)
        if rows is None:
            return None
        found: Any = meta  # a dict once tested (not ``cast``: a call on every request)
        if not isinstance(meta, dict):
            return MetaRefused("Invalid params: _meta is required", INVALID_PARAMS)
        for key, kind in rows:
            if not isinstance(found.get(key), kind):
                return MetaRefused(f"Invalid params: _meta needs {key}", INVALID_PARAMS)
        version = found[META_VERSION]
        if stated is not None and (mismatch := stated(version)) is not None:
            return mismatch
        served = self.served
        if served is not None and version not in served.versions:
            supported = list(served.supported)
            data = {"supported": supported, "requested": version}
            return MetaRefused("Unsupported protocol version", UNSUPPORTED_PROTOCOL_VERSION, data)
        return None

    def refusal(self, method: str, kind: Kind, sender: Sender) -> str:
        """Explain why ``method`` from ``sender`` is not admitted now."""
        if kind is Kind.INITIALIZE and self.phase in (Phase.INITIALIZING, Phase.OPERATING):
            return "initialize was already done on this connection"
        if self.phase is Phase.AWAITING_INITIALIZE:
            return f"{method} before initialize: send initialize first"
        if self.phase is Phase.INITIALIZING and sender == "server":
            return f"the server may not send {method} before the client's initialized notification"
        return f"{method} from the {sender} is not allowed while {self.phase.value}"

    def negotiated(self, version: str, *, handshake: bool = True) -> None:
        """Record the negotiated version; ``handshake=False`` serves without one (operating)."""
        if self.phase is Phase.CLOSED:
            raise LocalProtocolError("the connection is closed")
        if self.phase is Phase.STATELESS:
            raise LocalProtocolError("a stateless connection negotiates per request, not once")
        if self.phase is Phase.UNMANAGED:
            self.version = version
            return
        # Once per handshake, after initialize flowed (a client that sent its initialized
        # notification before reading our answer may already have made us operating).
        if handshake and (self.version or self.phase not in (Phase.INITIALIZING, Phase.OPERATING)):
            raise LocalProtocolError(f"cannot negotiate while {self.phase.value} (once only)")
        self.version = version
        if not handshake:
            self._enter(Phase.OPERATING)

    def restart(self) -> None:
        """Start over before a new handshake (a client whose HTTP session expired)."""
        if self.phase not in (Phase.CLOSED, Phase.UNMANAGED):
            self._enter(Phase.AWAITING_INITIALIZE)
            self.version = ""

    def close(self) -> None:
        """The connection ended: nothing is admitted any more."""
        self._enter(Phase.CLOSED)


# -- version negotiation and capabilities (initialize era) ---------------------------------


def choose_version(requested: str, supported: Iterable[str]) -> str:
    """Return the version a server answers: the requested one if supported, else its newest."""
    versions = sorted(supported)
    if not versions:
        raise LocalProtocolError("no protocol version is supported")
    return requested if requested in versions else versions[-1]


def accept_version(chosen: str, supported: Iterable[str]) -> str:
    """Check, on the client, the version the server answered; raise if it is not supported."""
    versions = sorted(supported)
    if chosen not in versions:
        raise UnsupportedVersion(
            f"the server chose protocol version {chosen!r}, which this client does not support "
            f"(supported: {', '.join(versions)})"
        )
    return chosen


def as_json(capabilities: object) -> dict[str, Any]:
    """Return a generated Struct (capabilities, a Tool...), a dict or None as a JSON object."""
    if capabilities is None or capabilities is msgspec.UNSET:
        return {}
    value: object = msgspec.to_builtins(capabilities)
    return cast(dict[str, Any], value) if isinstance(value, dict) else {}


def has_capability(capabilities: Mapping[str, Any], path: str) -> bool:
    """Whether a dotted capability path is declared (``tools``, ``resources.subscribe``)."""
    node: object = capabilities
    top: Any = capabilities  # a dict once tested (not ``cast``: a call per request)
    if type(node) is dict and "." not in path:  # the common case: one lookup
        found = top.get(path)
        return found is not False and found is not None
    for part in path.split("."):
        if not isinstance(node, Mapping):
            return False
        members = cast(Mapping[str, object], node)
        if part not in members:
            return False
        node = members[part]
    return node is not False and node is not None


def gate(
    spec: MethodSpec[Any, Any],
    *,
    ours: Mapping[str, Any],
    theirs: Mapping[str, Any],
    sending: bool,
) -> str | None:
    """Return why ``spec`` may not be used now given both sides' capabilities, or None.

    A request needs the receiver's capability and a notification the sender's; ``sending``
    says whether we are the sender.
    """
    if spec.capability is None or spec.capability_owner is None:
        return None
    we_own = (spec.capability_owner == "sender") == sending
    holder, who = (ours, "we") if we_own else (theirs, "the peer")
    if has_capability(holder, spec.capability):
        return None
    return f"{spec.method} needs capability {spec.capability!r}, which {who} did not declare"
