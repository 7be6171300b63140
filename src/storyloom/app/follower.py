"""``ChangeFollower``: one thread that reads a store's changes feed in seq order.

The feed is the only source of truth for what changed: it lists every write, whoever made it
(this process, a replication, another process on the same file), in seq order. The follower
keeps a cursor and, whenever it is woken, reads ``changes(since=cursor)`` until nothing is left,
handing each batch to ``deliver``. Two things wake it: ``wake()`` (the session calls it from the
store's subscription, so writes of this process are seen at once) and a poll every
``poll_interval`` seconds (writes of other processes, which no callback announces).

``post(fn)`` runs ``fn`` on the same thread, between two batches, so everything the session
publishes leaves one thread in one order.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from storyloom.store import Database, DatabaseClosed
from storyloom.store.read_view import ReadView

log = logging.getLogger(__name__)

Row = dict[str, Any]


class ChangeFollower:
    """Follows ``db``'s changes feed after ``since`` (default: the current update seq).

    ``deliver(rows)`` returns how many of the rows it took, in order; the rest are read again at
    the next wake-up (a row whose writer has not returned yet can wait that way).
    """

    def __init__(
        self,
        db: Database | ReadView,
        deliver: Callable[[list[Row]], int],
        *,
        since: int | None = None,
        poll_interval: float = 0.25,
        batch: int = 500,
        include_docs: bool = False,
        name: str = "storyloom-changes",
    ) -> None:
        self._db = db
        self._deliver = deliver
        self._cursor = int(db.info()["update_seq"]) if since is None else int(since)
        self._poll_interval = poll_interval
        self._batch = batch
        self._include_docs = include_docs
        self._cond = threading.Condition()
        self._woken = False
        self._stopping = False
        self._posted: deque[Callable[[], None]] = deque()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    @property
    def cursor(self) -> int:
        """The seq of the last change delivered."""
        return self._cursor

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def start(self) -> None:
        self._thread.start()

    def wake(self) -> None:
        """Read the feed now (thread-safe, cheap: callable from the store's subscription)."""
        with self._cond:
            self._woken = True
            self._cond.notify()

    def post(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` on the follower's thread, in order with the deliveries."""
        with self._cond:
            self._posted.append(fn)
            self._cond.notify()

    def stop(self, timeout: float = 5.0) -> None:
        """Read the feed a last time, run what is posted, then end the thread."""
        with self._cond:
            self._stopping = True
            self._cond.notify()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout)

    def catch_up(self, timeout: float = 5.0) -> bool:
        """Block until every change committed before this call was delivered; False on timeout.

        The check runs on the follower's thread after each turn of reading, again and again, so
        a turn that stopped early (a row whose writer had not returned yet) is waited out."""
        target = int(self._db.info()["update_seq"])
        done = threading.Event()
        deadline = time.monotonic() + timeout
        while not done.is_set():
            left = deadline - time.monotonic()
            if left <= 0 or not self.running:
                return done.is_set()
            self.post(lambda: done.set() if self._cursor >= target else None)
            self.wake()
            done.wait(min(left, 0.05))
        return True

    # ------------------------------------------------------------------ the thread
    def _run(self) -> None:
        while True:
            with self._cond:
                if not (self._woken or self._posted or self._stopping):
                    self._cond.wait(self._poll_interval)
                self._woken = False
                posted = list(self._posted)
                self._posted.clear()
                stopping = self._stopping
            # The feed is read before the posted work runs, also when stopping: what was
            # committed before a stop is delivered before whatever the stop posted last.
            try:
                self._read_all()
            except DatabaseClosed:
                stopping = True
            except Exception:  # a failed read is retried at the next wake-up or poll
                log.exception("reading the changes feed failed; retrying after %.2fs", self._poll_interval)
            self._run_all(posted)
            if stopping:
                with self._cond:
                    late = list(self._posted)
                    self._posted.clear()
                self._run_all(late)
                return

    @staticmethod
    def _run_all(work: list[Callable[[], None]]) -> None:
        for fn in work:
            try:
                fn()
            except Exception:
                log.exception("posted session work %r failed", fn)

    def _read_all(self) -> None:
        while True:
            feed = self._db.changes(since=self._cursor, limit=self._batch, include_docs=self._include_docs)
            rows = feed.get("results") or []
            if not rows:
                return
            taken = self._deliver(rows)
            if taken > 0:
                self._cursor = int(rows[taken - 1]["seq"])
            if taken < len(rows) or len(rows) < self._batch:
                return
