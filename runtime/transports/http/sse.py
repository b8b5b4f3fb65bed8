"""An incremental ``text/event-stream`` parser (the WHATWG "event stream interpretation").

Feed it bytes as they arrive, cut anywhere (inside a line, a CRLF pair or a UTF-8 sequence);
it returns the events completed so far. No I/O: the HTTP transports drive it.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from typing import Final

_LINE_END: Final = re.compile(r"\r\n|\r|\n")
DEFAULT_MAX_EVENT_CHARS: Final = 16 * 1024 * 1024
"""Longest event (its data lines, or one unfinished line) buffered: a peer cannot make us
hold more for one event (the stdio transport's frame limit is the same)."""


class EventTooLarge(ValueError):
    """The stream sent an event (or a line) longer than the parser's bound."""


@dataclass(frozen=True, slots=True)
class SSEEvent:
    """One dispatched event: its type, its data (lines joined by LF) and the last event id."""

    event: str = "message"
    data: str = ""
    id: str = ""
    """The stream's last event id when this event was dispatched ("" if none was ever set)."""
    retry: int | None = None
    """The reconnection time in milliseconds the stream last set, if any."""


class SSEParser:
    """Turns a byte stream into ``SSEEvent`` values, keeping the last event id and retry."""

    def __init__(self, max_event_chars: int = DEFAULT_MAX_EVENT_CHARS) -> None:
        self.max_event_chars = max_event_chars
        """Bound on one event's buffered text; beyond it ``feed`` raises ``EventTooLarge``."""
        self._size = 0
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._partial: list[str] = []
        """The pieces of the unfinished line (none holds a line end)."""
        self._partial_size = 0
        self._skip_lf = False
        self._started = False
        self._data: list[str] = []
        self._event = ""
        self._id_buffer = ""
        self.last_event_id = ""
        """The last event id string of the stream (kept across events, as a browser does)."""
        self.retry: int | None = None
        """The reconnection time in milliseconds set by the last valid ``retry`` field."""

    def reconnected(self) -> None:
        """Start reading a new connection of the same stream (a resumption).

        What the previous connection left half-read (a partial line, an event without its
        blank line, a partial UTF-8 sequence) is discarded, as the spec says for the end of a
        stream; the last event id and the retry time are kept.
        """
        self._decoder.reset()
        self._partial, self._partial_size = [], 0
        self._skip_lf = False
        self._started = False
        self._data, self._event, self._size = [], "", 0
        self._id_buffer = self.last_event_id

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        """Parse the next bytes; return the events they complete, in order."""
        text = self._decoder.decode(chunk)
        if not text:
            return []
        if not self._started:
            self._started = True
            text = text.removeprefix("\ufeff")
        if self._skip_lf:
            # A CR ended the previous chunk; an LF starting this one belongs to it.
            self._skip_lf = False
            text = text.removeprefix("\n")
        # Only the new text is searched: what is kept of an unfinished line has no line end
        # (searching it again at every chunk made a long line cost its length squared).
        lines = _LINE_END.split(text)
        tail = lines.pop()
        if lines:
            if self._partial:
                lines[0] = "".join(self._partial) + lines[0]
            self._partial, self._partial_size = [tail] if tail else [], len(tail)
        elif tail:
            self._partial.append(tail)
            self._partial_size += len(tail)
        if self._partial_size > self.max_event_chars:
            raise EventTooLarge(f"an SSE line exceeds {self.max_event_chars} characters")
        if text.endswith("\r"):
            self._skip_lf = True
        events: list[SSEEvent] = []
        for line in lines:
            event = self._line(line)
            if event is not None:
                events.append(event)
        return events

    def _line(self, line: str) -> SSEEvent | None:
        """Process one complete line; return the event a blank line dispatches, if any."""
        if not line:
            return self._dispatch()
        if line.startswith(":"):
            return None
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._size += len(value) + 1
            if self._size > self.max_event_chars:
                raise EventTooLarge(f"an SSE event exceeds {self.max_event_chars} characters")
            self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id" and "\0" not in value:
            self._id_buffer = value
        elif name == "retry" and value.isascii() and value.isdigit():
            self.retry = int(value)
        return None

    def _dispatch(self) -> SSEEvent | None:
        """End the current event: set the last event id; return it unless its data is empty."""
        self.last_event_id = self._id_buffer
        data, event = self._data, self._event
        self._data, self._event, self._size = [], "", 0
        if not data:
            return None
        return SSEEvent(event or "message", "\n".join(data), self.last_event_id, self.retry)
