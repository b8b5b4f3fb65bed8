"""The incremental SSE parser: every field, every line ending, chunks cut anywhere."""

from __future__ import annotations

from generated._runtime.transports.http.sse import SSEEvent, SSEParser

STREAM = (
    "\ufeff: a comment first\r\n"
    "retry: 1500\r\n"
    "id: 1\r\n"
    "data: first line\r\n"
    "data:second line (no space)\r\n"
    "data:  two spaces keep one\r\n"
    "\r\n"
    ":keep-alive\n"
    "event: endpoint\n"
    "data: /messages/?session_id=abc\n"
    "\n"
    "id: 2\r"
    'data: {"jsonrpc":"2.0","method":"x"}\r'
    "\r"
    "data\n"
    "\n"
    "id: ignored\0because of NUL\n"
    "retry: 2s\n"
    "data: ü€😀 after a bad retry\n"
    "\n"
    "id: 3\n"
    "\n"
    "data: no id line, still id 3\n"
    "\n"
    "data: never finished\n"
)
EXPECTED = [
    SSEEvent("message", "first line\nsecond line (no space)\n two spaces keep one", "1", 1500),
    SSEEvent("endpoint", "/messages/?session_id=abc", "1", 1500),
    SSEEvent("message", '{"jsonrpc":"2.0","method":"x"}', "2", 1500),
    SSEEvent("message", "", "2", 1500),
    SSEEvent("message", "ü€😀 after a bad retry", "2", 1500),
    SSEEvent("message", "no id line, still id 3", "3", 1500),
]


def parse(chunks: list[bytes]) -> tuple[list[SSEEvent], SSEParser]:
    """Feed ``chunks`` in order; return every event and the parser."""
    parser = SSEParser()
    events: list[SSEEvent] = []
    for chunk in chunks:
        events.extend(parser.feed(chunk))
    return events, parser


def test_whole_stream() -> None:
    """One chunk: all fields, CRLF/CR/LF, comments, BOM, bad id and retry, unfinished tail."""
    events, parser = parse([STREAM.encode()])
    assert events == EXPECTED
    assert parser.last_event_id == "3" and parser.retry == 1500


def test_every_split_point() -> None:
    """Cutting the bytes in two anywhere (inside CRLF, inside UTF-8) changes nothing."""
    data = STREAM.encode()
    for cut in range(len(data) + 1):
        events, parser = parse([data[:cut], data[cut:]])
        assert events == EXPECTED, cut
        assert parser.last_event_id == "3"


def test_byte_by_byte() -> None:
    """One byte at a time."""
    data = STREAM.encode()
    events, _ = parse([data[i : i + 1] for i in range(len(data))])
    assert events == EXPECTED


def test_cr_then_lf_in_the_next_chunk_is_one_line_end() -> None:
    """A CR ending a chunk and an LF starting the next make one line end, not two."""
    events, _ = parse([b"data: a\r", b"\ndata: b\r", b"\n\r", b"\n"])
    assert events == [SSEEvent("message", "a\nb", "", None)]


def test_empty_data_is_not_dispatched_but_its_id_counts() -> None:
    """A priming event (id, no data) sets the last event id without producing an event."""
    events, parser = parse([b"id: p-1\nretry: 250\n\n"])
    assert events == [] and parser.last_event_id == "p-1" and parser.retry == 250
    events, _ = parse([b"id: p-1\n\ndata: x\n\n"])
    assert events == [SSEEvent("message", "x", "p-1", None)]


def test_field_without_colon_and_unknown_fields() -> None:
    """``data`` alone appends an empty line; unknown fields are ignored."""
    events, _ = parse([b"data\ndata\nfoo: bar\n\n"])
    assert events == [SSEEvent("message", "\n", "", None)]


def test_empty_id_resets_the_last_event_id() -> None:
    """``id:`` with no value clears the last event id."""
    events, parser = parse([b"id: 7\ndata: a\n\nid\ndata: b\n\n"])
    assert [e.id for e in events] == ["7", ""] and parser.last_event_id == ""


def test_invalid_utf8_is_replaced() -> None:
    """Bytes that are not UTF-8 become U+FFFD instead of breaking the stream."""
    events, _ = parse([b"data: \xff\xfe ok\n\n"])
    assert events == [SSEEvent("message", "\ufffd\ufffd ok", "", None)]
