"""storyloom.export.cache: the per-revision memo, including concurrent use (the API exports
from several threads while another export trims the memo)."""

from __future__ import annotations

import sys
import threading

import pytest

from storyloom.export.cache import MISS, ContentCache


def test_memo_returns_fresh_copies_and_trim_forgets_unused_entries() -> None:
    cache = ContentCache()
    assert cache.get("k") is MISS
    value = cache.memo("k", lambda: {"a": [1, 2]})
    value["a"].append(3)
    assert cache.memo("k", lambda: pytest.fail("computed twice")) == {"a": [1, 2]}
    for _ in range(ContentCache.KEEP_GENERATIONS + 1):
        cache.trim()
    assert len(cache) == 0 and cache.get("k") is MISS


def test_get_put_and_trim_from_many_threads() -> None:
    """``trim`` iterates the bookkeeping while other exports read and write it: without the lock
    in ``get``/``put`` this raised ``RuntimeError: dictionary changed size during iteration``."""
    cache = ContentCache()
    for i in range(20_000):  # a long iteration for trim
        cache.put(("seed", i), i)
    errors: list[BaseException] = []
    stop = threading.Event()

    def writer(worker: int) -> None:
        try:
            i = 0
            while not stop.is_set():
                key = ("w", worker, i)
                cache.put(key, [i])
                assert cache.get(key) in ([i], MISS)  # trims in between may have dropped it
                cache.get(("missing", worker, i))
                i += 1
        except BaseException as exc:  # reported below
            errors.append(exc)
            stop.set()

    def trimmer() -> None:
        try:
            for _ in range(300):
                if stop.is_set():
                    break
                cache.trim()
        except BaseException as exc:  # reported below
            errors.append(exc)
        finally:
            stop.set()

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible
    try:
        threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
        threads.append(threading.Thread(target=trimmer))
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
    finally:
        sys.setswitchinterval(interval)
        stop.set()
    assert not any(thread.is_alive() for thread in threads)
    assert errors == []
    assert set(cache._entries) <= set(cache._last_used)  # every entry has its bookkeeping
