"""Progress of long work, one shape for every layer.

Import, export, backup, restore, a first pull and a clone each take a ``progress`` callback
(:data:`ProgressCallback`) and call it with a :class:`Progress` as they go: the CLI draws a
progress bar from it (``storyloom.cli.progress``), the desktop app a progress dialog, tests
collect the events. Work reports through :class:`ProgressReporter`, which skips the callback
when there is none and thins the calls out (at most one per ``interval`` seconds, plus the
first and the last), so a 100,000-document loop costs no more with a bar than without.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Progress:
    """How far one piece of long work is.

    ``phase`` names the work (``"import"``, ``"export"``, ``"schema"``, ``"backup"``,
    ``"restore"``, ``"pull"``, ``"push"``, ``"clone"``); ``done`` counts what is finished in
    ``unit``s (``"documents"`` unless said otherwise) out of ``total`` (``None`` while unknown);
    ``detail`` says what it is doing now, in words (``"Scripts"``, ``"writing game.json"``);
    ``finished`` is true on the last event of the work.
    """

    phase: str
    done: int
    total: int | None = None
    unit: str = "documents"
    detail: str = ""
    finished: bool = False


ProgressCallback = Callable[[Progress], None]


class ProgressReporter:
    """Reports one phase's progress to an optional callback, at most every ``interval`` seconds.

    ``advance(n)`` and ``update(done)`` move the count; ``set_total``, ``set_detail`` change what
    the next event says; ``finish()`` sends the last event (always delivered). With no callback
    every method is a cheap no-op.
    """

    def __init__(self, callback: ProgressCallback | None, phase: str, total: int | None = None, *,
                 unit: str = "documents", interval: float = 0.1, clock: Callable[[], float] = time.monotonic) -> None:
        self._callback = callback
        self.phase = phase
        self.total = total
        self.unit = unit
        self.detail = ""
        self.done = 0
        self._interval = interval
        self._clock = clock
        self._last = float("-inf")
        self._finished = False

    @property
    def active(self) -> bool:
        """Whether anyone listens (work may skip counting what nobody sees)."""
        return self._callback is not None

    def set_total(self, total: int | None) -> None:
        self.total = total
        self._emit(force=True)

    def set_detail(self, detail: str) -> None:
        self.detail = detail
        self._emit(force=True)

    def advance(self, count: int = 1) -> None:
        self.done += count
        self._emit()

    def update(self, done: int) -> None:
        self.done = done
        self._emit()

    def finish(self) -> None:
        """The last event of the phase (``finished=True``); later calls do nothing."""
        if self._finished:
            return
        self._finished = True
        self._emit(force=True, finished=True)

    def _emit(self, *, force: bool = False, finished: bool = False) -> None:
        if self._callback is None or (self._finished and not finished):
            return
        now = self._clock()
        if not force and now - self._last < self._interval:
            return
        self._last = now
        self._callback(Progress(self.phase, self.done, self.total, self.unit, self.detail, finished))


def reporter(callback: ProgressCallback | None, phase: str, total: int | None = None, *,
             unit: str = "documents") -> ProgressReporter:
    """A :class:`ProgressReporter` for ``phase`` that reports to ``callback`` (which may be None)."""
    return ProgressReporter(callback, phase, total, unit=unit)
