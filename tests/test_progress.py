"""storyloom.progress (the events) and storyloom.cli.progress (the bars)."""

from __future__ import annotations

import argparse
import io
import os
import pty
import select

from storyloom.cli.progress import progress_bars, wants_bars
from storyloom.progress import Progress, ProgressReporter


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_reporter_thins_events_out_but_always_sends_the_last() -> None:
    events: list[Progress] = []
    clock = FakeClock()
    work = ProgressReporter(events.append, "export", 1000, interval=0.5, clock=clock)
    for _ in range(1000):
        clock.now += 0.001  # 1,000 steps over one second: about one event per half second
        work.advance()
    work.finish()
    assert 2 <= len(events) <= 5
    assert events[-1] == Progress("export", 1000, 1000, "documents", "", True)
    assert [e.done for e in events] == sorted(e.done for e in events)
    work.advance()
    work.finish()
    assert len(events[-1:]) == 1 and events[-1].done == 1000  # nothing after the end


def test_reporter_without_callback_does_nothing() -> None:
    work = ProgressReporter(None, "import")
    assert not work.active
    work.advance(5)
    work.set_detail("Scripts")
    work.finish()
    assert work.done == 5


def test_detail_and_total_changes_are_sent_at_once() -> None:
    events: list[Progress] = []
    clock = FakeClock()
    work = ProgressReporter(events.append, "pull", None, interval=10, clock=clock)
    work.advance()
    work.set_total(50)
    work.set_detail("fetching")
    assert [(e.total, e.detail) for e in events] == [(None, ""), (50, ""), (50, "fetching")]


def test_no_bars_when_stderr_is_not_a_terminal_or_quiet() -> None:
    piped = io.StringIO()
    with progress_bars(None, piped) as callback:
        assert callback is None
    assert piped.getvalue() == ""
    assert not wants_bars(argparse.Namespace(quiet=True), piped)


def _drain(controller: int) -> bytes:
    """Everything the pseudo-terminal holds: the kernel hands a pty's output over in pieces."""
    chunks = []
    while select.select([controller], [], [], 0.5)[0]:
        chunk = os.read(controller, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


def test_bars_on_a_terminal_show_count_total_and_close_per_phase() -> None:
    controller, terminal = pty.openpty()
    try:
        stream = os.fdopen(terminal, "w", closefd=False)
        assert wants_bars(argparse.Namespace(quiet=False), stream)
        assert not wants_bars(argparse.Namespace(quiet=True), stream)
        with progress_bars(argparse.Namespace(quiet=False), stream) as callback:
            assert callback is not None
            callback(Progress("export", 0, 200))
            callback(Progress("export", 200, 200, finished=True))
            callback(Progress("schema", 3, 15, "collections", "Scripts"))
        stream.flush()
        output = _drain(controller).decode("utf-8", "replace")
    finally:
        os.close(controller)
        os.close(terminal)
    assert "Exporting" in output and "200/200" in output
    assert "Schema" in output and "3/15" in output and "Scripts" in output
