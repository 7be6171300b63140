"""Keeping Python's cyclic garbage collector from traversing what does not need it.

Exports and one-shot replications create hundreds of thousands of dicts, lists and strings
that hold no cycles: reference counting frees them, and the cyclic collector would only
traverse them again and again (it doubles the time of a 10,000-document export and adds half
to a first pull's own CPU time): :func:`gc_paused`.

A long interactive session (the desktop app) holds a large heap that lives as long as its
windows: the project's index, the open editors, a long script's parse. Every full collection
traverses all of it, holding the GIL throughout, in whichever thread happens to allocate when
the collector's count runs out: with a 10,000-document project and a 5,000-line script open,
230,000 objects, 200 to 250 ms of CPU (twice as long on a loaded machine), during which no
other thread runs Python, the GUI thread's included. :class:`LongLivedObjects` moves what
survives out of the collector's reach at quiet moments (``gc.freeze``), so later collections
traverse only what was made since.

Shared by the export and sync layers and the app, so it imports no layer.
"""

from __future__ import annotations

import contextlib
import gc
import threading
import time
from collections.abc import Callable, Iterator

_gc_lock = threading.Lock()
_gc_depth = 0
_gc_was_enabled = False


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while long work builds acyclic data (an export's
    JSON, a replication's batches). Reference counting still frees everything as usual. Nested and
    concurrent uses are counted: the collector is re-enabled by the last one out, and only if
    it was enabled before the first one came in.

    On the way out, the objects allocated meanwhile are moved to the oldest generation
    (:func:`promote_young_objects`): re-enabled as is, the collector would start with a
    collection of the young generation that traverses every one of them (about a sixth of a
    cold export's time), then traverse them again in the middle generation.
    """
    global _gc_depth, _gc_was_enabled
    with _gc_lock:
        if _gc_depth == 0:
            _gc_was_enabled = gc.isenabled()
            gc.disable()
        _gc_depth += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_depth -= 1
            if _gc_depth == 0 and _gc_was_enabled:
                promote_young_objects()
                gc.enable()


_PROMOTION_BUDGET = 10_000_000
"""Young objects promoted (net allocations) after which one full collection runs instead."""
_promoted = 0


def promote_young_objects() -> None:
    """Move every object of the young and middle generations to the oldest one, in constant
    time and without traversing them (``gc.freeze()`` then ``gc.unfreeze()``).

    Cyclic garbage among them waits for the next full collection; since promoted objects do
    not count towards the collector's own trigger for one, a full collection runs here
    instead once :data:`_PROMOTION_BUDGET` objects have been promoted (about fifty exports of
    a 10,000-document project; a one-shot ``storyloom export`` never gets there). Skipped when
    something else has frozen objects on purpose (``gc.get_freeze_count()``, e.g. a
    pre-forking server): they must stay frozen. Call with the collector disabled.
    """
    global _promoted
    if gc.get_freeze_count():
        return
    _promoted += gc.get_count()[0]
    if _promoted > _PROMOTION_BUDGET:
        _promoted = 0
        gc.collect()
        return
    gc.freeze()
    gc.unfreeze()


RECLAIM_SPACING_S = 60.0
"""The shortest time between two :meth:`LongLivedObjects.reclaim` that ``when_due`` lets run."""


class LongLivedObjects:
    """Keeps a long session's heap out of the cyclic collector's full collections.

    :meth:`settle`, often (the desktop app: every second): the young generations are collected
    (what they hold is bounded by the collector's thresholds: a few thousand objects, a
    millisecond or two), then every object still tracked is frozen: no collection, automatic or
    explicit, traverses it again. An automatic full collection then traverses only what
    survived since the last settle, not the whole heap. Reference counting still frees a
    frozen object that nothing refers to any more; only cyclic garbage among frozen objects
    waits, for :meth:`reclaim`.

    :meth:`reclaim`, at a moment nobody waits for the app (it lost the focus, a project window
    closed): everything is unfrozen and collected once (the whole heap: the cost a full
    collection had before), then settled again. :meth:`release`: unfrozen, for good.

    Neither runs while the collector is disabled (:func:`gc_paused`: an export building objects
    on a worker, which it promotes itself when done). Only one owner per process: the frozen
    objects are the process's (``gc.freeze`` has one permanent generation). Call from one
    thread (the GUI thread)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.frozen = False  # (gc.get_freeze_count() walks every frozen object: 20 ms for 230,000)
        self.settles = 0
        self.reclaims = 0
        self._reclaimed_at: float | None = None
        self._settles_at_reclaim = 0

    def settle(self) -> bool:
        """Collect the young generations and freeze every tracked object. False when the
        collector is disabled (nothing done)."""
        if not gc.isenabled():
            return False
        gc.collect(1)
        gc.freeze()
        self.frozen = True
        self.settles += 1
        return True

    def reclaim(self, *, when_due: bool = False) -> bool:
        """Unfreeze, collect everything once, settle again. With ``when_due``, only when
        something was frozen since and the last reclaim is RECLAIM_SPACING_S old (a window
        losing and taking the focus again and again does not collect each time). False when
        nothing was done."""
        if not gc.isenabled():
            return False
        now = self.clock()
        if when_due and (self.settles == self._settles_at_reclaim
                         or (self._reclaimed_at is not None and now - self._reclaimed_at < RECLAIM_SPACING_S)):
            return False
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        self.frozen = True
        self._reclaimed_at = now
        self._settles_at_reclaim = self.settles
        self.reclaims += 1
        return True

    def release(self) -> None:
        """Every frozen object back in the collector's reach (the next full collection
        traverses them again and frees the cycles among them)."""
        if self.frozen:
            gc.unfreeze()
            self.frozen = False
