# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""Multi round-trip requests (stateless era, ``basic/patterns/mrtr.mdx``) behind an ``await``.

A handler asks the client for input with ``await ctx.elicit(...)`` (or ``create_message``,
``list_roots``, or ``ask(ctx, method, params, key=...)``) in every era. With a handshake that
is a server->client request. Without one there are no such requests: ``with_rounds`` wraps the
unchanged handler of each method whose result may be an ``InputRequiredResult`` (the Go SDK's
``mcp/mrtr.go`` is the model). The first time a handler asks, ``Rounds.ask`` records the
question and raises ``InputRequired``; the connection answers ``InputRequiredResult`` with
every question asked so far (``asyncio.gather`` of several asks gives one round with all of them)
and a sealed ``requestState`` holding the answers already given. The client retries with
``inputResponses``; the handler runs again from the start and each ``ask`` now returns its
answer at once, until it completes.

So a handler runs once per round: what it does before its last ask is repeated, as with any
retried request. State bound to the request (method, name/uri, arguments) and sealed with the
server's key; tampered, expired or foreign state is -32602.
"""

from __future__ import annotations

from collections.abc import Awaitable, Iterator, Mapping
from typing import Any, Final, Protocol

import msgspec

from ..core.codec import convert
from ..core.errors import INTERNAL_ERROR, INVALID_PARAMS, MCPError, RoundTripSignal
from ..core.sealed import InvalidRequestState, StateSealer, binding
from ..core.wire import as_object
from .connection import RequestContext, RequestFacts, client_capabilities
from .dispatch import Handler

INPUT_CAPABILITY: Final = {
    "elicitation/create": "elicitation",
    "sampling/createMessage": "sampling",
    "roots/list": "roots",
}
"""Input request method -> the client capability it needs."""
_KEY_PREFIX: Final = {
    "elicitation/create": "elicitation",
    "sampling/createMessage": "sampling",
    "roots/list": "roots",
}
MAX_ANSWERS: Final = 64
"""Most answers one request state carries; more is refused (the state travels every round)."""


class InputRequired(RoundTripSignal):
    """Raised inside a stateless handler that needs input the client has not given yet."""


class MissingClientCapability(RoundTripSignal):
    """The request needs a client capability the client did not declare (-32021)."""

    def __init__(self, capability: str, required: dict[str, Any] | None = None) -> None:
        super().__init__(f"this request needs the client capability {capability!r}")
        self.capability = capability
        self.required: dict[str, Any] = {capability: {}} if required is None else required

    @property
    def data(self) -> dict[str, Any]:
        """The error's ``data``: ``requiredCapabilities`` as a ClientCapabilities object."""
        return {"requiredCapabilities": self.required}


class InvalidInputResponse(RoundTripSignal):
    """An ``inputResponses`` entry is not a valid result of the question asked (-32602)."""


def params_json(params: Any) -> Any:
    """The params of an input request as JSON builtins (none: an empty object)."""
    if params is None or params is msgspec.UNSET:
        return {}
    return msgspec.to_builtins(params)


class Rounds:
    """The questions and answers of one stateless request across its rounds."""

    def __init__(
        self,
        method: str,
        bind: str | Mapping[str, Any],
        answers: Mapping[str, Any],
        client_capabilities: Mapping[str, Any],
        result_types: Mapping[str, Any],
    ) -> None:
        self.method = method
        self._bind = bind
        self.answers = dict(answers)
        self.client_capabilities = client_capabilities
        self.result_types = result_types
        self.asked: dict[str, dict[str, Any]] = {}
        self.used: dict[str, Any] = {}
        self._count = 0

    @property
    def bind(self) -> str:
        """The digest this request's state is sealed for (worked out when first needed)."""
        if not isinstance(self._bind, str):
            self._bind = request_binding(self.method, self._bind)
        return self._bind

    def ask(self, method: str, params: Any, key: str | None = None) -> Any:
        """Return the typed answer to one question, or record it and raise ``InputRequired``."""
        capability = INPUT_CAPABILITY.get(method)
        if capability is None:
            raise ValueError(f"{method} is not a request a server may put in inputRequests")
        self._count += 1
        if key is None:
            key = f"{_KEY_PREFIX[method]}-{self._count}"
        if not isinstance(self.client_capabilities.get(capability), Mapping):
            raise MissingClientCapability(capability)
        if key in self.answers:
            raw = self.answers[key]
            try:
                value = convert(raw, self.result_types[method])
            except (msgspec.ValidationError, TypeError) as exc:
                raise InvalidInputResponse(f"inputResponses[{key!r}]: {exc}") from None
            self.used[key] = raw
            return value
        self.asked[key] = {"method": method, "params": params_json(params)}
        raise InputRequired(key)

    def interim(self, sealer: StateSealer) -> dict[str, Any]:
        """The ``InputRequiredResult`` for what was asked, with the sealed answers so far."""
        return {
            "resultType": "input_required",
            "inputRequests": self.asked,
            "requestState": sealer.seal({"answers": self.used}, bind=self.bind),
        }


def open_rounds(
    method: str,
    params: Mapping[str, Any],
    sealer: StateSealer,
    client_capabilities: Mapping[str, Any],
    result_types: Mapping[str, Any],
) -> Rounds:
    """Start the rounds of one request from its ``requestState`` and ``inputResponses``.

    Raises ``InvalidRequestState`` (tampered, expired, other key, other request) and
    ``InvalidInputResponse`` (``inputResponses`` not an object), both -32602.
    """
    bind: str | Mapping[str, Any] = params  # hashed only to open or seal a state
    answers: dict[str, Any] = {}
    state = params.get("requestState")
    if state is not None:
        if not isinstance(state, str):
            raise InvalidRequestState("malformed")
        bind = request_binding(method, params)
        sealed = as_object(sealer.open(state, bind=bind)) or {}
        opened = as_object(sealed.get("answers"))
        if opened is None:
            raise InvalidRequestState("malformed")
        answers.update(opened)
    responses = params.get("inputResponses")
    if responses is not None:
        given = as_object(responses)
        if given is None:
            raise InvalidInputResponse("inputResponses must be an object")
        answers.update(given)
    if len(answers) > MAX_ANSWERS:
        raise InvalidInputResponse(f"at most {MAX_ANSWERS} inputResponses per request")
    return Rounds(method, bind, answers, client_capabilities, result_types)


class RoundsAsker(msgspec.Struct):
    """A request's MRTR rounds as where its questions go: one not answered yet ends the round.

    A first round (no ``requestState``, no ``inputResponses``) opens its rounds only when the
    handler asks its first question: most calls ask none and cost one object (a Struct, made
    in C).
    """

    method: str
    params: Any
    meta: Mapping[str, Any]
    """The request's ``_meta`` (``RequestFacts.meta``): the client's capabilities, read if asked."""
    result_types: Mapping[str, Any]
    sealer: StateSealer
    """Seals the state of the ``InputRequiredResult`` (the server's key)."""
    opened: Rounds | None = None
    """The rounds, once opened (from the request's state and answers, or by a first ask)."""

    @property
    def rounds(self) -> Rounds:
        """The rounds of this request (a first round's, opened now if not yet)."""
        if self.opened is None:
            caps = client_capabilities(self.meta)
            self.opened = Rounds(self.method, _Lazy(self.params), {}, caps, self.result_types)
        return self.opened

    async def ask(self, method: str, params: Any, key: str | None = None) -> Any:
        """The answer given in an earlier round, else raise ``InputRequired``."""
        return self.rounds.ask(method, params, key)


def with_rounds(
    method: str, handler: Handler, sealer: StateSealer, result_types: Mapping[str, Any]
) -> Handler:
    """Wrap an unchanged handler of ``method`` in MRTR (after the Go SDK's ``mcp/mrtr.go``).

    The wrapper opens the rounds from the request's sealed state and ``inputResponses`` and
    makes them where the handler's questions go; it hands back the handler's own coroutine
    (no coroutine of its own per call). The ``InputRequired`` of an unanswered question
    leaves the handler to where the request is dispatched (``StatelessConnection``), which
    answers the ``InputRequiredResult`` of the rounds (``input_required``).
    """

    def rounds(params: Any, ctx: RequestContext) -> Awaitable[Any]:
        facts = ctx.facts
        if facts is None:  # with a handshake, questions are requests to the client
            return handler(params, ctx)
        typed: _RoundTrip = params
        opened = None
        if typed.request_state is not msgspec.UNSET or typed.input_responses is not msgspec.UNSET:
            try:
                given = as_object(msgspec.to_builtins(params)) or {}
                opened = open_rounds(method, given, sealer, facts.client_capabilities, result_types)
            except (InvalidRequestState, InvalidInputResponse) as exc:
                raise MCPError(INVALID_PARAMS, f"Invalid params: {exc}") from None
        if facts.asker is None:
            facts.asker = RoundsAsker(method, params, facts.meta, result_types, sealer, opened)
        return handler(params, ctx)

    return rounds


def input_required(facts: RequestFacts | None) -> dict[str, Any]:
    """The ``InputRequiredResult`` of a request whose handler raised ``InputRequired``:
    every question its rounds asked so far, with the sealed answers already given."""
    asker = None if facts is None else facts.asker
    if not isinstance(asker, RoundsAsker):  # no rounds of ``with_rounds`` asked it
        raise MCPError(INTERNAL_ERROR, "a question to the client outside MRTR rounds")
    return asker.rounds.interim(asker.sealer)


class _RoundTrip(Protocol):
    """The params of a request that may be answered with an ``InputRequiredResult``."""

    @property
    def request_state(self) -> str | msgspec.UnsetType:
        """The sealed state of earlier rounds."""
        ...

    @property
    def input_responses(self) -> object:
        """The client's answers to the last round's questions."""
        ...


class _Lazy(Mapping[str, Any]):
    """Typed params read as JSON only if the rounds need them (to seal a first state)."""

    def __init__(self, params: Any) -> None:
        self._params = params
        self._json: dict[str, Any] | None = None

    def _read(self) -> dict[str, Any]:
        if self._json is None:
            self._json = as_object(msgspec.to_builtins(self._params)) or {}
        return self._json

    def get(self, key: str, default: Any = None) -> Any:
        """No state and no responses without converting; the rest from the JSON."""
        if key in ("requestState", "inputResponses"):
            return default
        return self._read().get(key, default)

    def __getitem__(self, key: str) -> Any:
        return self._read()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._read())

    def __len__(self) -> int:
        return len(self._read())


def request_binding(method: str, params: Mapping[str, Any]) -> str:
    """The binding of a request's state: its method, name/uri and arguments."""
    return binding(method, params.get("name"), params.get("uri"), params.get("arguments"))


async def ask(
    ctx: RequestContext, method: str, params: Any = None, *, key: str | None = None
) -> Any:
    """Ask the client for input in either era: a request (with a handshake), an MRTR round
    (without), or a task's input request (without, once the call became a task: see
    ``stateless_tasks.py``).

    ``key`` names the entry in ``inputRequests`` (default: ``elicitation-1``, ...).
    """
    if ctx.facts is not None:
        return await ctx.facts.ask(method, params, key)
    return await ctx.request(ctx.connection.methods[method], params)
