"""What the session reads of decoded params and remembers between frames.

The session keeps, per connection: our requests awaiting a response (``Outgoing``), the
peer's requests awaiting ours (``Incoming``), the answers owed for an incoming batch
(``Batch``), and bounded sets of recently cancelled ids (``Recent``), so late answers to
cancelled requests are dropped without growing memory.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from typing import Any, Final, Protocol

import msgspec
from msgspec import UNSET

from .events import ProgressToken
from .methods import MethodSpec
from .wire import Outbound

RECENT_LIMIT: Final = 1024
"""How many cancelled ids (and progress tokens) a ``Recent`` set keeps."""


class ProgressParams(Protocol):
    """What the session reads of a decoded ``notifications/progress`` params object."""

    @property
    def progress_token(self) -> object:
        """The token of the request the progress is about."""
        ...


class CancelledParams(Protocol):
    """What the session reads of a decoded ``notifications/cancelled`` params object."""

    @property
    def request_id(self) -> object:
        """The id of the request being cancelled (absent for tasks in 2025-11-25)."""
        ...

    @property
    def reason(self) -> object:
        """Why, if said."""
        ...


class Recent:
    """A bounded set that forgets its oldest members (ids of cancelled requests)."""

    def __init__(self, limit: int = RECENT_LIMIT) -> None:
        self._items: OrderedDict[Hashable, None] = OrderedDict()
        self._limit = limit

    def add(self, item: Hashable) -> None:
        """Remember ``item``, forgetting the oldest member when full."""
        self._items[item] = None
        while len(self._items) > self._limit:
            self._items.popitem(last=False)

    def take(self, item: Hashable) -> bool:
        """Forget ``item``; return whether it was remembered."""
        return self._items.pop(item, UNSET) is not UNSET

    def __contains__(self, item: object) -> bool:
        return item in self._items


class Batch:
    """The answers owed for one incoming batch, sent as one array when all are known."""

    def __init__(self) -> None:
        self.entries: list[Outbound | None] = []
        self.pending = 0
        self.open = True


class Outgoing(msgspec.Struct, gc=False):
    """One of our requests awaiting its response (a Struct: made in C, one per request)."""

    spec: MethodSpec[Any, Any]
    progress_token: ProgressToken | None


class Incoming(msgspec.Struct, gc=False):
    """One of the peer's requests awaiting our response (a Struct: made in C, one per
    request)."""

    method: str
    progress_token: ProgressToken | None
    batch: Batch | None
    slot: int
