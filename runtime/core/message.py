"""What a received message is to the session, whichever decoder read it (no run-time imports
of the wire or the guard, so both can name it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, TypeAlias

from msgspec import Raw, UnsetType

if TYPE_CHECKING:
    from .errors import ErrorObject

WireId: TypeAlias = "str | int | UnsetType | None"
"""An ``id`` as received: checked by the session (MCP forbids null and non-integers)."""


class Message(Protocol):
    """A received message as the session reads it: an ``Envelope`` or a one-pass typed one.

    ``params`` and ``result`` are ``Raw`` (decode them with ``read_params`` /
    ``decode_result``) or already decoded with the method's types.
    """

    @property
    def jsonrpc(self) -> Any:
        """Must be ``"2.0"``."""
        ...

    @property
    def id(self) -> WireId:
        """The id as sent (UNSET for a notification)."""
        ...

    @property
    def method(self) -> str | UnsetType:
        """The method of a request or notification."""
        ...

    @property
    def params(self) -> Any:
        """Raw params, decoded params, or UNSET."""
        ...

    @property
    def result(self) -> Any:
        """Raw result, decoded result, or UNSET."""
        ...

    @property
    def error(self) -> Raw | ErrorObject | UnsetType:
        """The ``error`` member of an error response: raw (the general path) or decoded in
        the one pass (read either with ``decode_error``)."""
        ...

    @property
    def shaped(self) -> bool:
        """Whether the type it was decoded into checked its JSON-RPC shape (a one-pass
        request or notification: ``jsonrpc`` is "2.0", the id a string or an integer if any,
        no ``result`` or ``error``); else the session checks it (``shape_problem``)."""
        ...
