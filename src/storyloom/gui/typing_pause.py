"""The writer's typing as work on worker threads sees it: a check that can wait gives way while
edits arrive, and goes on once the writer pauses.

Python runs one thread at a time (the GIL): a worker's pure-Python check running while the writer
types makes each key wait for it (the key's handling is sliced with the worker's, 5 ms at a time),
so a keystroke that costs 10 ms of the GUI thread's time shows after 30 or more. Work that can
wait (the Problems dock's check after an autosave) calls :meth:`TypingPause.give_way` between its
slices: while the last edit is less than :data:`QUIET_S` old it sleeps, holding nothing, and it
never waits longer than the typing lasts. Every editor notes its edits (``DocumentEditor.mark_dirty``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

#: How long after the last edit the writer counts as typing: more than the gap between two keys
#: of someone typing (30 to 200 ms), less than the pause before the text is parsed (250 ms) and
#: saved (800 ms).
QUIET_S = 0.25
#: How often a waiting check looks again.
POLL_S = 0.02
#: A slice's yield when nobody types: the GIL given up long enough for a GUI thread waiting for it
#: to take it (rather than wait out Python's 5 ms switch interval).
YIELD_S = 0.0002


class TypingPause:
    """When the writer last edited, for workers to give way to. One per process (:data:`typing`):
    the GUI thread writes the time, workers read it (a float attribute: one store, one load)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self._clock = clock
        self._sleep = sleep
        self._last = -math.inf

    def typed(self) -> None:
        """The writer edited now (called on the GUI thread)."""
        self._last = self._clock()

    def typing(self) -> bool:
        return self._clock() - self._last < QUIET_S

    def give_way(self) -> None:
        """Between two slices of a worker's check: yield the GIL, and wait while the writer types."""
        self._sleep(YIELD_S)
        while self.typing():
            self._sleep(POLL_S)


#: The process's one record of the writer's typing.
typing = TypingPause()
