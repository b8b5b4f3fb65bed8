"""The push line transport: frames split and handed on as bytes arrive, bounds, flow control."""

from __future__ import annotations

import asyncio
import contextlib
import os
import pathlib
import threading
import tracemalloc

import pytest

from generated._runtime.core.wire import Inbound, Outbound
from generated._runtime.transports.lines import (
    CORKED_BYTES,
    QUEUED_FRAMES,
    WRITE_GONE,
    LineReader,
    LineTransport,
)
from generated._runtime.transports.pipe_ends import FileSink, PipeWriter

STEP_S = 5.0
"""The longest any single wait here may take before it counts as a hang."""
Frame = bytes | Inbound


def refused(frame: Frame) -> str:
    """The error message of a frame refused unparsed (fails if the frame is not one)."""
    assert isinstance(frame, Inbound)
    error = frame.messages[0].error
    return str(error)


class Taking:
    """A ``take`` that records frames; with ``slow``, each frame waits on a future."""

    def __init__(self, slow: bool = False) -> None:
        self.frames: list[Frame] = []
        self.slow = slow
        self.pending: list[asyncio.Future[None]] = []

    def __call__(self, frame: Frame) -> asyncio.Future[None] | None:
        self.frames.append(frame)
        if not self.slow:
            return None
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.pending.append(future)
        return future

    def release(self) -> None:
        """Let every frame taken so far be done."""
        for future in self.pending:
            if not future.done():
                future.set_result(None)


class FakePipe(asyncio.ReadTransport):
    """A read transport that records pausing."""

    def __init__(self) -> None:
        super().__init__()
        self.paused = False
        self.pauses = 0

    def is_closing(self) -> bool:
        """Never closing."""
        return False

    def pause_reading(self) -> None:
        """Record a pause."""
        self.paused = True
        self.pauses += 1

    def resume_reading(self) -> None:
        """Record a resume."""
        self.paused = False


async def pumped(reader: LineReader, take: Taking) -> asyncio.Task[None]:
    """Start pumping ``reader`` into ``take``, in a task."""
    task = asyncio.create_task(reader.pump(take))
    await asyncio.sleep(0)
    return task


async def test_a_frame_split_across_many_reads_arrives_whole() -> None:
    """Bytes fed one at a time make one frame, taken as its last byte arrives."""
    reader, take = LineReader(1024), Taking()
    task = await pumped(reader, take)
    for byte in b'{"a": 1}\n':
        assert take.frames == []
        reader.data_received(bytes([byte]))
    assert take.frames == [b'{"a": 1}']
    reader.eof_received()
    await asyncio.wait_for(task, STEP_S)


async def test_many_frames_in_one_read_are_taken_in_order_and_blank_lines_skipped() -> None:
    """One chunk of 500 lines (with blank and CRLF lines) gives 500 frames, in order."""
    reader, take = LineReader(1024), Taking()
    task = await pumped(reader, take)
    chunk = b"".join(b"[%d]\r\n\n" % i for i in range(500)) + b"[500"
    reader.data_received(chunk)
    assert take.frames == [b"[%d]" % i for i in range(500)]
    reader.data_received(b"]\n")
    assert take.frames[-1] == b"[500]"
    reader.eof_received()
    await asyncio.wait_for(task, STEP_S)


async def test_a_last_frame_without_newline_is_taken_at_end_of_input() -> None:
    """What follows the last newline is a frame once the input ends, pulled or pushed."""
    reader, take = LineReader(1024), Taking()
    task = await pumped(reader, take)
    reader.data_received(b'{"x": 1}\n{"y": 2}  ')
    assert take.frames == [b'{"x": 1}']
    reader.eof_received()
    await asyncio.wait_for(task, STEP_S)
    assert take.frames == [b'{"x": 1}', b'{"y": 2}']
    pulled = LineReader(1024)
    pulled.data_received(b"[1]\n[2]")
    pulled.eof_received()
    assert [await pulled.read(), await pulled.read(), await pulled.read()] == [b"[1]", b"[2]", None]


@pytest.mark.parametrize("chunk", [7, 100, 1 << 16], ids=["tiny-reads", "small-reads", "one-read"])
async def test_an_oversize_frame_is_refused_and_the_next_frame_taken(chunk: int) -> None:
    """A line over the limit becomes one refused frame; the good frame after it goes through."""
    reader, take = LineReader(64), Taking()
    task = await pumped(reader, take)
    data = b"[1]\n" + b"[" + b"9," * 100 + b"0]\n" + b"[2]\n"
    for at in range(0, len(data), chunk):
        reader.data_received(data[at : at + chunk])
    reader.eof_received()
    await asyncio.wait_for(task, STEP_S)
    assert take.frames[0] == b"[1]" and take.frames[2] == b"[2]" and len(take.frames) == 3
    assert "exceeds the limit of 64" in refused(take.frames[1])


async def test_an_oversize_frame_is_dropped_as_it_arrives_not_buffered() -> None:
    """20 MB of one line in 64 KB reads never holds more than a frame's limit at once."""
    limit = 64 * 1024
    reader, take = LineReader(limit), Taking()
    task = await pumped(reader, take)
    piece = b"x" * (1 << 16)
    tracemalloc.start()
    try:
        reader.data_received(b'{"pad": "')
        for _ in range(320):
            reader.data_received(piece)
        reader.data_received(b'"}\n[7]\n')
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * limit
    assert "exceeds" in refused(take.frames[0]) and take.frames[1:] == [b"[7]"]
    reader.eof_received()
    await asyncio.wait_for(task, STEP_S)


async def test_an_oversize_line_cut_short_by_end_of_input_is_refused() -> None:
    """An oversize line with no newline before end of input still stands as a refused frame."""
    reader, take = LineReader(16), Taking()
    task = await pumped(reader, take)
    reader.data_received(b"x" * 40)
    reader.eof_received()
    await asyncio.wait_for(task, STEP_S)
    assert len(take.frames) == 1 and "exceeds" in refused(take.frames[0])


async def test_a_waiting_take_holds_the_next_frames_and_a_full_queue_pauses_reading() -> None:
    """Frames after a waiting take queue in order; reading pauses at the bound, resumes when
    they are taken, and nothing is lost."""
    reader, take = LineReader(1024), Taking(slow=True)
    pipe = FakePipe()
    reader.connection_made(pipe)
    task = await pumped(reader, take)
    sent = 0
    while not pipe.paused:  # a pipe delivers only while reading is not paused
        reader.data_received(b"".join(b"[%d]\n" % (sent + i) for i in range(10)))
        sent += 10
        assert reader.queued <= QUEUED_FRAMES + 10
    assert len(take.frames) == 1  # the first frame's take still waits
    assert reader.queued >= QUEUED_FRAMES - 10
    while take.pending and not all(f.done() for f in take.pending):
        take.release()
        await asyncio.sleep(0)
    assert not pipe.paused and reader.queued == 0
    assert take.frames == [b"[%d]" % i for i in range(sent)]
    reader.eof_received()
    await asyncio.wait_for(task, STEP_S)


async def test_a_line_read_alone_waits_behind_a_waiting_take_and_keeps_its_order() -> None:
    """One whole line per read (the reads handed to the taker at once): while a take waits,
    the next lines queue; each is taken, in order, only once the one before is done."""
    reader, take = LineReader(1024), Taking(slow=True)
    task = await pumped(reader, take)
    for i in range(3):
        reader.data_received(b"[%d]\n" % i)
    assert take.frames == [b"[0]"] and reader.queued == 2
    for done in range(1, 3):
        take.pending[-1].set_result(None)
        await asyncio.sleep(0)
        assert take.frames == [b"[%d]" % i for i in range(done + 1)]
    take.release()
    await asyncio.sleep(0)
    reader.data_received(b"  [3]  \n")
    assert take.frames[-1] == b"[3]" and reader.queued == 0
    reader.eof_received()
    take.release()
    await asyncio.wait_for(task, STEP_S)


async def test_a_flood_over_a_real_pipe_with_a_slow_reader_stays_bounded() -> None:
    """A writer flooding a pipe against a take that waits on every frame: memory stays
    bounded (the queue never passes its bound by more than one read) and every frame arrives."""
    await flood_a_slow_reader()


def test_a_flood_stays_bounded_on_uvloop() -> None:
    """The same on uvloop (``run_stdio`` and ``mcpgen bridge`` run on it), whose pipe
    transports are no ``asyncio.ReadTransport`` but pause all the same."""
    uvloop = pytest.importorskip("uvloop")
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        runner.run(flood_a_slow_reader())


async def flood_a_slow_reader() -> None:
    """Flood a real pipe against a take that waits on every frame; check the queue's bound."""
    loop = asyncio.get_running_loop()
    ours, theirs = os.pipe()
    frames = 20_000
    line = b'{"jsonrpc":"2.0","method":"notifications/progress","params":{"n":%d}}\n'

    def flood() -> None:
        with os.fdopen(theirs, "wb") as out:
            for i in range(frames):
                out.write(line % i)

    reader = LineReader(1024)
    pipe, _ = await loop.connect_read_pipe(lambda: reader, os.fdopen(ours, "rb", buffering=0))
    most = 0
    taken: list[Frame] = []

    def take(frame: Frame) -> asyncio.Future[None]:
        nonlocal most
        most = max(most, reader.queued)
        taken.append(frame)
        future: asyncio.Future[None] = loop.create_future()
        loop.call_soon(future.set_result, None)  # done on the next turn: slower than the pipe
        return future

    writer = threading.Thread(target=flood)
    writer.start()
    try:
        await asyncio.wait_for(reader.pump(take), 60)
    finally:
        writer.join(STEP_S)
        pipe.close()
    assert len(taken) == frames and taken[-1] == (line % (frames - 1)).strip()
    per_read = 256 * 1024 // len(line % 0) + 1
    assert QUEUED_FRAMES <= most <= QUEUED_FRAMES + per_read


def reading_into(got: bytearray, fd: int) -> threading.Thread:
    """A started thread that reads ``fd`` into ``got`` until its end."""

    def drain() -> None:
        while chunk := os.read(fd, 1 << 16):
            got.extend(chunk)

    reading = threading.Thread(target=drain)
    reading.start()
    return reading


async def test_a_write_waits_while_the_pipe_is_full_and_goes_on_once_read() -> None:
    """Writes to a pipe nobody reads stop at its high-water mark; reading lets them finish."""
    loop = asyncio.get_running_loop()
    theirs, ours = os.pipe()
    pipe, flow = await loop.connect_write_pipe(PipeWriter, os.fdopen(ours, "wb", buffering=0))
    transport = LineTransport(LineReader(1024), pipe, flow)
    frame = b"[" + b"1," * 500 + b"1]"
    count = 2000

    async def write_all() -> None:
        for _ in range(count):
            await transport.write(frame)

    writing = asyncio.create_task(write_all())
    await asyncio.sleep(0.2)
    assert not writing.done()
    assert pipe.get_write_buffer_size() <= pipe.get_write_buffer_limits()[1] + len(frame) + 1
    got = bytearray()
    reading = reading_into(got, theirs)
    await asyncio.wait_for(writing, STEP_S * 4)
    await asyncio.wait_for(transport.close(), STEP_S)
    reading.join(STEP_S)
    os.close(theirs)
    assert bytes(got) == (frame + b"\n") * count


async def test_the_pipe_end_stops_at_the_full_pipe_and_its_writes_arrive_in_order() -> None:
    """Written by its pipe end, a pipe nobody reads is full past its high-water mark (``flow``
    paused); ``full()`` returns once it is read, and every frame arrives once, in order."""
    loop = asyncio.get_running_loop()
    theirs, ours = os.pipe()
    pipe, flow = await loop.connect_write_pipe(PipeWriter, os.fdopen(ours, "wb", buffering=0))
    transport = LineTransport(LineReader(1024), pipe, flow)
    write, end_flow, full = transport.pipe_end()
    frames = [b"[" + str(i).encode() + b"," + b"1," * 500 + b"1]\n" for i in range(2000)]
    sent = 0
    while not end_flow.paused:
        write(frames[sent])
        sent += 1
    assert sent < len(frames)
    waiting = asyncio.ensure_future(full())
    await asyncio.sleep(0.1)
    assert not waiting.done()
    got = bytearray()
    reading = reading_into(got, theirs)
    await asyncio.wait_for(waiting, STEP_S)
    for frame in frames[sent:]:
        write(frame)
        if end_flow.paused:
            await asyncio.wait_for(full(), STEP_S)
    await asyncio.wait_for(transport.close(), STEP_S)
    reading.join(STEP_S)
    os.close(theirs)
    assert bytes(got) == b"".join(frames)
    with contextlib.suppress(
        *WRITE_GONE
    ):  # closed: dropped, or one of these (what the relay catches)
        write(b"[1]\n")


async def test_the_pipe_end_of_a_file_is_never_full(tmp_path: pathlib.Path) -> None:
    """A regular file written by its pipe end: at once, never paused."""
    path = tmp_path / "out"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT)
    transport = LineTransport(LineReader(1024), FileSink(fd))
    write, flow, full = transport.pipe_end()
    write(b"[1]\n")
    assert not flow.paused
    await asyncio.wait_for(full(), STEP_S)
    await transport.close()
    assert path.read_bytes() == b"[1]\n"
    with pytest.raises(WRITE_GONE):
        write(b"[2]\n")


async def test_a_take_that_raises_ends_the_pump_with_its_error() -> None:
    """What ``take`` raises ends the pumping and comes out of ``pump``."""
    reader = LineReader(1024)

    def take(frame: Frame) -> None:
        raise ConnectionResetError("the reader closed")

    task = asyncio.create_task(reader.pump(take))
    await asyncio.sleep(0)
    reader.data_received(b"[1]\n")
    with pytest.raises(ConnectionResetError):
        await asyncio.wait_for(task, STEP_S)


class Sink:
    """A write side that records each write (a pipe transport's ``write``)."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closed = False

    def write(self, data: bytes) -> None:
        """Record one write."""
        self.writes.append(data)

    def is_closing(self) -> bool:
        """Whether ``close`` was called."""
        return self.closed

    def close(self) -> None:
        """Close."""
        self.closed = True


class Answering:
    """A ``take`` that answers each frame at once through ``transport`` (as a server does);
    after the answer to frame ``notify_after``, it writes a notification."""

    def __init__(self, transport: LineTransport, size: int = 0, notify_after: bytes = b"") -> None:
        self.transport = transport
        self.padding = b"0" * size
        self.notify_after = notify_after

    def __call__(self, frame: Frame) -> None:
        assert isinstance(frame, bytes)
        answer = Outbound(b"[" + frame + b"," + self.padding + b"]", "response", ids=(1,))
        assert self.transport.write_now(answer) is None
        if frame == self.notify_after:
            note = Outbound(b'{"note":' + frame + b"}", "notification", "notifications/message")
            assert self.transport.write_now(note) is None


async def test_the_answers_to_the_frames_of_one_read_leave_in_one_write() -> None:
    """Three frames in one read, answered at once: one write of three lines, in order; a
    frame read alone is answered by a write of its own."""
    reader, sink = LineReader(1024), Sink()
    transport = LineTransport(reader, sink)
    task = asyncio.create_task(reader.pump(Answering(transport)))
    await asyncio.sleep(0)
    reader.data_received(b"1\n2\n3\n")
    assert sink.writes == [b"[1,]\n[2,]\n[3,]\n"]
    reader.data_received(b"4\n")
    assert sink.writes[1:] == [b"[4,]\n"]
    reader.eof_received()
    await asyncio.wait_for(task, STEP_S)


async def test_answers_gathered_past_the_corked_limit_are_written_before_the_read_ends() -> None:
    """Large answers to many frames of one read go out as they pass ``CORKED_BYTES``: no
    write is much larger than the limit, and every answer arrives once, in order."""
    reader, sink = LineReader(1024), Sink()
    transport = LineTransport(reader, sink)
    size = CORKED_BYTES // 4
    task = asyncio.create_task(reader.pump(Answering(transport, size)))
    await asyncio.sleep(0)
    reader.data_received(b"".join(b"%d\n" % i for i in range(10)))
    assert 2 <= len(sink.writes) <= 4
    assert all(len(w) <= CORKED_BYTES + size + 16 for w in sink.writes)
    expected = b"".join(b"[%d,%s]\n" % (i, b"0" * size) for i in range(10))
    assert b"".join(sink.writes) == expected
    reader.eof_received()
    await asyncio.wait_for(task, STEP_S)


async def test_what_was_gathered_is_written_before_the_transport_closes() -> None:
    """A transport closed while it gathers answers still writes them first."""
    sink = Sink()
    transport = LineTransport(LineReader(1024), sink)
    transport.cork()
    assert transport.write_now(Outbound(b"[1]", "response", ids=(1,))) is None
    assert sink.writes == []
    await asyncio.wait_for(transport.close(), STEP_S)
    assert sink.writes == [b"[1]\n"] and sink.closed


async def test_a_notification_written_while_answers_gather_takes_them_along_in_order() -> None:
    """A notification is never held back: it leaves at once, after the answers before it."""
    reader, sink = LineReader(1024), Sink()
    transport = LineTransport(reader, sink)
    task = asyncio.create_task(reader.pump(Answering(transport, notify_after=b"2")))
    await asyncio.sleep(0)
    reader.data_received(b"1\n2\n3\n")
    assert sink.writes == [b'[1,]\n[2,]\n{"note":2}\n', b"[3,]\n"]
    reader.eof_received()
    await asyncio.wait_for(task, STEP_S)


async def test_answer_lines_gather_with_answers_and_other_lines_take_them_along() -> None:
    """``write_line``: an answer's line waits with the gathered answers, in order; a line
    that is no answer leaves at once with them; outside a read each line is one write."""
    sink = Sink()
    transport = LineTransport(LineReader(1024), sink)
    transport.cork()
    assert transport.write_now(Outbound(b"[1]", "response", ids=(1,))) is None
    assert transport.write_line(b"[2]\n") is None
    assert sink.writes == []
    assert transport.write_line(b'{"note":3}\n', False) is None
    assert sink.writes == [b'[1]\n[2]\n{"note":3}\n']
    transport.write_line(b"[4]\n")
    transport.uncork()
    transport.write_line(b"[5]\n")
    assert sink.writes[1:] == [b"[4]\n", b"[5]\n"]
