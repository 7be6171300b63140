"""``GET /events``: Server-Sent Events for every committed change of the loaded project.

Each change is one event::

    id: <update seq>
    event: change
    data: {"id": "<doc id>", "collection": "Script", "rev": "3-...", "deleted": false}

``collection`` is the app name of the document's collection (``null`` for design documents and
documents without one). The store calls the subscription callback on the writing thread; the
callback only hands the change to the server's event loop (``call_soon_threadsafe``), and the
stream reads the document's collection in a worker thread.

A client that reconnects with ``Last-Event-ID`` first receives the changes after that seq from
the changes feed, so nothing committed while it was away is missed. A comment line
(``: keep-alive``) is sent when nothing happened for ``heartbeat`` seconds. When the server
stops, the project closes, or the client falls too far behind, the stream sends
``event: end`` with a reason and ends; the server never waits on an open stream to stop.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import AsyncIterator
from typing import Any

import anyio

from storyloom.api.provider import ProjectLike, ProjectProvider

log = logging.getLogger(__name__)

_CLOSE = object()
MAX_QUEUED = 10_000


def _format(event: str, data: dict[str, Any], event_id: Any = None) -> str:
    lines = []
    if event_id is not None:
        lines.append(f"id: {event_id}")
    lines.append(f"event: {event}")
    lines.append("data: " + json.dumps(data, separators=(",", ":")))
    return "\n".join(lines) + "\n\n"


def _seq_number(seq: Any) -> int | None:
    if isinstance(seq, int):
        return seq
    if isinstance(seq, str):
        head = seq.split("-", 1)[0]
        if head.isdigit():
            return int(head)
    return None


def collection_of(db: Any, doc_id: str, rev: str | None, deleted: bool) -> str | None:
    """The app collection name of a changed document; for a deletion, read it from the parent rev."""
    from storyloom.store.errors import StoreError

    if doc_id.startswith("_design/"):
        return None
    try:
        doc = db.get(doc_id, rev=rev, revs=deleted)
    except StoreError:
        return None
    collection = doc.get("collection") or doc.get("type")
    if not collection and deleted:
        revisions = doc.get("_revisions") or {}
        ids = revisions.get("ids") or []
        start = revisions.get("start")
        if isinstance(start, int) and len(ids) > 1:
            try:
                parent = db.get(doc_id, rev=f"{start - 1}-{ids[1]}")
            except StoreError:
                return None
            collection = parent.get("collection") or parent.get("type")
    return collection if isinstance(collection, str) else None


class EventHub:
    """Tracks the open streams of one server so stopping it can end them all at once."""

    def __init__(self, provider: ProjectProvider, heartbeat: float = 15.0) -> None:
        self.provider = provider
        self.heartbeat = heartbeat
        self._queues: set[asyncio.Queue[Any]] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()
        self._closed = False

    @property
    def open_streams(self) -> int:
        return len(self._queues)

    def close_threadsafe(self) -> None:
        """End every open stream and refuse new ones (called from any thread by ``ApiServer.stop``)."""
        with self._lock:
            self._closed = True
        self.end_streams_threadsafe("server stopping")

    def end_streams_threadsafe(self, reason: str) -> None:
        """End every open stream with ``event: end`` and ``reason`` (from any thread)."""
        with self._lock:
            loop = self._loop
        if loop is None or loop.is_closed():
            return
        try:
            loop.call_soon_threadsafe(self._close_all, reason)
        except RuntimeError:
            pass  # the loop already stopped

    def _close_all(self, reason: str) -> None:
        for queue in list(self._queues):
            _put_close(queue, reason)

    async def stream(self, project: ProjectLike, last_event_id: str | None) -> AsyncIterator[str]:
        """The text of one SSE response; ends on server stop, project change or overflow."""
        loop = asyncio.get_running_loop()
        with self._lock:
            self._loop = loop
            closed = self._closed
        queue: asyncio.Queue[Any] = asyncio.Queue()
        db = project.db

        def offer(change: dict[str, Any]) -> None:  # runs in the loop
            if queue.qsize() >= MAX_QUEUED:
                _put_close(queue, "client too slow: reconnect with Last-Event-ID to catch up")
            else:
                queue.put_nowait(change)

        def on_change(change: dict[str, Any]) -> None:  # runs on the writing thread
            try:
                loop.call_soon_threadsafe(offer, dict(change))
            except RuntimeError:
                pass  # the server's loop is gone

        unsubscribe = db.subscribe(on_change)
        self._queues.add(queue)
        try:
            yield "retry: 2000\n\n"
            if closed:
                yield _format("end", {"reason": "server stopping"})
                return
            replayed = -1
            since = _seq_number(last_event_id) if last_event_id else None
            if since is not None:
                replay = await anyio.to_thread.run_sync(lambda: db.changes(since=since))
                for row in replay.get("results", []):
                    if row.get("id", "").startswith("_local/"):
                        continue
                    rev = (row.get("changes") or [{}])[0].get("rev")
                    change = {"id": row["id"], "rev": rev, "seq": row.get("seq"),
                              "deleted": bool(row.get("deleted"))}
                    yield await self._event(db, change)
                    replayed = max(replayed, _seq_number(row.get("seq")) or -1)
            while True:
                try:
                    item = await asyncio.wait_for(queue.get(), timeout=self.heartbeat)
                except TimeoutError:
                    if self.provider.current_project() is not project:
                        yield _format("end", {"reason": "project closed"})
                        return
                    yield ": keep-alive\n\n"
                    continue
                if isinstance(item, tuple) and item and item[0] is _CLOSE:
                    yield _format("end", {"reason": item[1]})
                    return
                if item.get("id", "").startswith("_local/"):
                    continue
                number = _seq_number(item.get("seq"))
                if number is not None and number <= replayed:
                    continue
                yield await self._event(db, item)
        finally:
            self._queues.discard(queue)
            try:
                unsubscribe()
            except Exception:  # pragma: no cover - the store may be closed already
                log.debug("unsubscribe failed", exc_info=True)

    async def _event(self, db: Any, change: dict[str, Any]) -> str:
        doc_id = change["id"]
        rev = change.get("rev")
        deleted = bool(change.get("deleted"))
        collection = await anyio.to_thread.run_sync(collection_of, db, doc_id, rev, deleted)
        data = {"id": doc_id, "collection": collection, "rev": rev, "deleted": deleted}
        return _format("change", data, change.get("seq"))


def _put_close(queue: asyncio.Queue[Any], reason: str) -> None:
    queue.put_nowait((_CLOSE, reason))
