"""``GET /events``: Server-Sent Events that follow the project store's changes feed.

Each change is one event::

    id: <update seq>
    event: change
    data: {"id": "<doc id>", "collection": "Script", "rev": "3-...", "deleted": false}

``collection`` is the app name of the document's collection (``null`` for design documents and
documents without one).

A stream is a reader of ``db.changes(since=cursor)``: it sends what the feed lists after its
cursor, in seq order, then waits to be woken. Whoever wrote (this process, a ``storyloom sync``,
another program on the same project file), the feed lists it, so nothing is skipped or
reordered; a document changed several times between two reads appears once, at its latest seq,
as in CouchDB's ``_changes``. Two sources wake the streams of one store (:class:`_Feed`, shared
by them): a store subscription, at once, for writes made in this process, and a poll of the
store's update seq every :data:`POLL_INTERVAL` seconds, while at least one stream is open, for
writes made by other processes.

Status events: the app hands the API the state of a background service through
:meth:`EventHub.publish_status_threadsafe` (the session's sync service: ``event: sync``). A
status event carries no ``id:`` (it is not a change, and does not move ``Last-Event-ID``); a
new stream gets the latest status of each name first, then every later one::

    event: sync
    data: {"state": "idle", "detail": "up to date", "pending": 0, ...}

``Last-Event-ID`` (the seq of the last event a client received) sets the cursor, so a reconnect
resumes exactly after it. A value that is not a seq is refused (:func:`parse_last_event_id`,
400); a seq beyond the store's latest (the client followed another or a since-replaced copy of
the project) gets ``event: reset`` and the stream goes on from the current seq. A comment line
(``: keep-alive``) is sent when nothing happened for ``heartbeat`` seconds. When the server
stops or the project closes, the stream sends ``event: end`` with a reason and ends; the server
never waits on an open stream to stop.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import threading
from collections.abc import AsyncIterator
from typing import Any

import anyio

from storyloom.api import errors as E
from storyloom.api.errors import ApiError
from storyloom.api.provider import ProjectProvider
from storyloom.project import ProjectLike, collection_of_revision
from storyloom.store import StoreError

log = logging.getLogger(__name__)

POLL_INTERVAL = 0.25  # seconds between two looks at the update seq (writes from other processes)
BATCH = 500  # changes read per visit of the feed; a stream catching up reads several batches
_SEQ = re.compile(r"[0-9]{1,18}")
REASON_STOPPING = "server stopping"
REASON_CLOSED = "project closed"
REASON_READ_FAILED = "the changes feed could not be read; reconnect with Last-Event-ID"


def parse_last_event_id(value: str | None) -> int | None:
    """The seq of a ``Last-Event-ID`` header; ``None`` without one (or an empty one); 400
    ``bad_request`` when it is not a seq (a non-negative integer, as this stream's ``id:`` lines)."""
    text = (value or "").strip()
    if not text:  # EventSource never sends an empty one; a proxy might: the same as none
        return None
    if not _SEQ.fullmatch(text):
        shown = text if len(text) <= 40 else text[:40] + "..."
        raise ApiError(
            400, E.BAD_REQUEST,
            f"invalid Last-Event-ID header {shown!r}: expected the id of an event of this stream (a "
            "non-negative integer update seq); reconnect without it to receive only new changes",
        )
    return int(text)


def _format(event: str, data: dict[str, Any], event_id: Any = None) -> str:
    lines = []
    if event_id is not None:
        lines.append(f"id: {event_id}")
    lines.append(f"event: {event}")
    lines.append("data: " + json.dumps(data, separators=(",", ":")))
    return "\n".join(lines) + "\n\n"


def _snapshot(db: Any) -> Any:
    snapshot = getattr(db, "snapshot", None)
    return snapshot() if snapshot is not None else contextlib.nullcontext()


def read_events(db: Any, since: int) -> tuple[list[str], int, bool]:
    """The events after ``since`` (at most :data:`BATCH`), from one snapshot of the store.

    Returns ``(event texts, new cursor, more)``; ``more`` when the batch was full.
    """
    with _snapshot(db):
        feed = db.changes(since=since, limit=BATCH)
        rows = feed.get("results", [])
        texts = []
        for row in rows:
            doc_id = row["id"]
            if doc_id.startswith("_local/"):
                continue
            rev = (row.get("changes") or [{}])[0].get("rev")
            deleted = bool(row.get("deleted"))
            data = {"id": doc_id, "collection": collection_of_revision(db, doc_id, rev, deleted), "rev": rev,
                    "deleted": deleted}
            texts.append(_format("change", data, row.get("seq")))
        cursor = int(feed.get("last_seq", since)) if rows else since
        return texts, cursor, len(rows) >= BATCH


def _update_seq(db: Any) -> int:
    return int(db.info()["update_seq"])


class _Stream:
    """One open ``/events`` response, as the hub and its feed see it."""

    def __init__(self) -> None:
        self.wake = asyncio.Event()
        self.end_reason: str | None = None
        self.statuses: list[str] = []  # status events to send before the next read of the feed

    def end(self, reason: str) -> None:
        if self.end_reason is None:
            self.end_reason = reason
        self.wake.set()


class _Feed:
    """Wakes the streams that follow one store; exists while at least one of them is open."""

    def __init__(self, db: Any, loop: asyncio.AbstractEventLoop, poll_interval: float) -> None:
        self.db = db
        self.loop = loop
        self.poll_interval = poll_interval
        self.streams: set[_Stream] = set()
        self._wake_scheduled = False
        self.unsubscribe = db.subscribe(self._on_change)
        self.task = loop.create_task(self._poll())

    def _on_change(self, change: dict[str, Any]) -> None:  # runs on the writing thread
        # One wake-up per burst: a bulk write of thousands of documents schedules one callback.
        # The commit precedes this call, so a wake already scheduled runs after it and covers it.
        if self._wake_scheduled:
            return
        self._wake_scheduled = True
        try:
            self.loop.call_soon_threadsafe(self.wake_all)
        except RuntimeError:
            pass  # the server's loop is gone

    def wake_all(self) -> None:
        self._wake_scheduled = False
        for stream in self.streams:
            stream.wake.set()

    async def _poll(self) -> None:
        """Writes by other processes notify nothing here: look at the update seq instead."""
        last: int | None = None
        while True:
            await asyncio.sleep(self.poll_interval)
            try:
                seq = await anyio.to_thread.run_sync(_update_seq, self.db)
            except StoreError as exc:
                if exc.error == "db_closed":  # the streams find out when they read, and end
                    self.wake_all()
                    return
                log.warning("checking the store's update seq failed (%s); trying again", exc)
                continue
            except Exception:  # a transient failure must not end the wake-ups of every stream
                log.exception("checking the store's update seq failed; trying again")
                continue
            if seq != last:
                last = seq
                self.wake_all()

    def close(self) -> None:
        self.task.cancel()
        try:
            self.unsubscribe()
        except Exception:  # pragma: no cover - the store may be closed already
            log.debug("unsubscribe failed", exc_info=True)


class EventHub:
    """The open streams of one server, so stopping it (or closing the project) ends them all."""

    def __init__(self, provider: ProjectProvider, heartbeat: float = 15.0,
                 poll_interval: float = POLL_INTERVAL, statuses: dict[str, dict[str, Any]] | None = None) -> None:
        self.provider = provider
        self._statuses: dict[str, dict[str, Any]] = dict(statuses or {})
        self.heartbeat = heartbeat
        self.poll_interval = poll_interval
        self._streams: set[_Stream] = set()
        self._feeds: dict[int, _Feed] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()
        self._closed = False

    @property
    def open_streams(self) -> int:
        return len(self._streams)

    def close_threadsafe(self) -> None:
        """End every open stream and refuse new ones (called from any thread by ``ApiServer.stop``)."""
        with self._lock:
            self._closed = True
        self.end_streams_threadsafe(REASON_STOPPING)

    def end_streams_threadsafe(self, reason: str) -> None:
        """End every open stream with ``event: end`` and ``reason`` (from any thread)."""
        with self._lock:
            loop = self._loop
        if loop is None or loop.is_closed():
            return
        try:
            loop.call_soon_threadsafe(self._end_all, reason)
        except RuntimeError:
            pass  # the loop already stopped

    def publish_status_threadsafe(self, name: str, data: dict[str, Any]) -> None:
        """Send ``event: <name>`` with ``data`` to every open stream, and to each new stream first
        (the latest of each name is kept). From any thread."""
        with self._lock:
            loop = self._loop
            if loop is None or loop.is_closed():
                self._statuses[name] = data
                return
        try:
            loop.call_soon_threadsafe(self._push_status, name, data)
        except RuntimeError:  # the loop already stopped
            with self._lock:
                self._statuses[name] = data

    def _push_status(self, name: str, data: dict[str, Any]) -> None:
        # On the server's loop, like every stream: a stream sees each status once, in order.
        with self._lock:
            self._statuses[name] = data
        text = _format(name, data)
        for stream in self._streams:
            stream.statuses.append(text)
            stream.wake.set()

    def _current_statuses(self) -> str:
        with self._lock:
            return "".join(_format(name, data) for name, data in self._statuses.items())

    def _end_all(self, reason: str) -> None:
        for stream in list(self._streams):
            stream.end(reason)

    def _attach(self, db: Any, stream: _Stream, loop: asyncio.AbstractEventLoop) -> _Feed:
        feed = self._feeds.get(id(db))
        if feed is None or feed.db is not db:
            feed = self._feeds[id(db)] = _Feed(db, loop, self.poll_interval)
        feed.streams.add(stream)
        self._streams.add(stream)
        return feed

    def _detach(self, feed: _Feed, stream: _Stream) -> None:
        self._streams.discard(stream)
        feed.streams.discard(stream)
        if not feed.streams:
            feed.close()
            if self._feeds.get(id(feed.db)) is feed:
                del self._feeds[id(feed.db)]

    async def stream(self, project: ProjectLike, since: int | None, current: int) -> AsyncIterator[str]:
        """The text of one SSE response, from ``since`` (the ``Last-Event-ID``; ``None``: from now).

        ``current`` is the store's update seq when the request was handled, before its answer
        started: "now" for a stream without ``Last-Event-ID``, so a client that writes once it
        has the answer's headers always gets the event.
        """
        loop = asyncio.get_running_loop()
        with self._lock:
            self._loop = loop
            closed = self._closed
        db = project.db
        me = _Stream()
        # The feed is read right after attaching: writes committed since ``current`` was read are
        # found by that read, later ones wake this stream.
        feed = self._attach(db, me, loop)
        try:
            yield "retry: 2000\n\n"
            if closed:
                yield _format("end", {"reason": REASON_STOPPING})
                return
            if since is None:
                cursor = current
            elif since > current:
                yield _format("reset", {
                    "reason": f"Last-Event-ID {since} is beyond this project's latest change ({current}): "
                              "the project was replaced or restored since; reload everything",
                    "seq": current,
                }, current)
                cursor = current
            else:
                cursor = since
            # The latest status of each name; what was queued for this stream until now is older.
            current_statuses = self._current_statuses()
            me.statuses.clear()
            if current_statuses:
                yield current_statuses
            idle = 0.0
            while True:
                if me.end_reason is not None:
                    yield _format("end", {"reason": me.end_reason})
                    return
                me.wake.clear()
                if me.statuses:
                    texts_now, me.statuses = "".join(me.statuses), []
                    yield texts_now
                try:
                    texts, cursor, more = await anyio.to_thread.run_sync(read_events, db, cursor)
                except Exception as exc:
                    if getattr(exc, "error", None) == "db_closed":
                        yield _format("end", {"reason": REASON_CLOSED})
                    else:  # the client reconnects with Last-Event-ID and loses nothing
                        log.exception("reading the changes feed failed")
                        yield _format("end", {"reason": REASON_READ_FAILED})
                    return
                if texts:
                    idle = 0.0
                    yield "".join(texts)
                if more:
                    continue
                started = loop.time()
                try:
                    await asyncio.wait_for(me.wake.wait(), timeout=max(0.0, self.heartbeat - idle))
                    idle += loop.time() - started
                except TimeoutError:
                    idle = 0.0
                    if self.provider.current_project() is not project:
                        yield _format("end", {"reason": REASON_CLOSED})
                        return
                    yield ": keep-alive\n\n"
        finally:
            self._detach(feed, me)
