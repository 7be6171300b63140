"""LongLivedObjects: what a settle froze is out of every collection's reach (a full collection
traverses only what was made since), cyclic garbage made since is still collected, a reclaim
frees the cycles among frozen objects, and nothing is done while the collector is paused."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from storyloom.collector import RECLAIM_SPACING_S, LongLivedObjects, gc_paused


class Cycle:
    def __init__(self) -> None:
        self.me = self


def _traversed(obj: object) -> bool:
    """Whether a full collection traverses ``obj`` (it is in one of the collector's generations)."""
    return any(o is obj for o in gc.get_objects())


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def settler() -> Iterator[LongLivedObjects]:
    """One owner of the process's frozen objects for the test; everything unfrozen afterwards."""
    assert gc.isenabled()
    objects = LongLivedObjects(clock=Clock())
    try:
        yield objects
    finally:
        gc.unfreeze()


def test_settled_objects_are_out_of_every_collection_and_later_garbage_is_collected(
        settler: LongLivedObjects) -> None:
    kept = Cycle()
    assert _traversed(kept)
    assert settler.settle() and settler.frozen
    assert not _traversed(kept)  # a full collection no longer walks it
    later = Cycle()
    garbage = weakref.ref(Cycle())  # cyclic garbage made after the settle
    assert _traversed(later)
    gc.collect()
    assert garbage() is None
    settler.release()
    assert _traversed(kept) and not settler.frozen


def test_a_reclaim_frees_the_cycles_among_settled_objects(settler: LongLivedObjects) -> None:
    kept = Cycle()
    ref = weakref.ref(kept)
    settler.settle()
    del kept
    gc.collect()
    assert ref() is not None  # frozen: waits for the reclaim
    assert settler.reclaim()
    assert ref() is None
    survivor = Cycle()
    settler.settle()
    assert settler.reclaim() and not _traversed(survivor)  # settled again


def test_reference_counting_still_frees_a_settled_object(settler: LongLivedObjects) -> None:
    class Plain:
        pass

    kept = Plain()
    ref = weakref.ref(kept)
    settler.settle()
    del kept
    assert ref() is None


def test_nothing_is_done_while_the_collector_is_paused(settler: LongLivedObjects) -> None:
    kept = Cycle()
    with gc_paused():
        assert not settler.settle()
        assert not settler.reclaim()
    assert _traversed(kept) and not settler.frozen


def test_a_reclaim_when_due_waits_for_a_settle_and_its_spacing(settler: LongLivedObjects) -> None:
    clock = settler.clock
    assert isinstance(clock, Clock)
    assert not settler.reclaim(when_due=True)  # nothing settled yet
    settler.settle()
    assert settler.reclaim(when_due=True)
    assert not settler.reclaim(when_due=True)  # nothing settled since
    settler.settle()
    clock.now += RECLAIM_SPACING_S - 1
    assert not settler.reclaim(when_due=True)  # too soon after the last one
    clock.now += 2
    assert settler.reclaim(when_due=True)
    assert settler.reclaims == 2
