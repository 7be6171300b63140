"""Pausing Python's cyclic garbage collector around long work that builds acyclic data.

Exports and one-shot replications create hundreds of thousands of dicts, lists and strings
that hold no cycles: reference counting frees them, and the cyclic collector would only
traverse them again and again (it doubles the time of a 10,000-document export and adds half
to a first pull's own CPU time). Shared by the export and sync layers, so it imports no layer.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator

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
