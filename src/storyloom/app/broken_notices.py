"""Telling a lock holder, once per machine, that someone broke their lock.

A break is recorded in the document (``lockBroken``: who broke whose lock, held since when, at
what time; :mod:`storyloom.project.locks`). The holder learns of it when a revision carrying
such a record reaches this machine (a pull, or the server copy a lock, unlock or ``doc set``
reads): ``storyloom sync``, ``lock`` and ``doc set`` print a line on stderr, the app's sync
activity lists it and an open editor of the document says so. Which breaks were told is kept
in the store's ``_local/storyloom-announced-breaks`` (local documents are never replicated), so
each is told once per machine, whichever process saw it first.

:func:`unannounced` is the pure rule (the words are the front ends': `app.views.lock_view` and the CLI);
:class:`BreakNotices` keeps the record.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Iterable
from typing import TYPE_CHECKING, Any

from storyloom.project import BrokenLock, broken_lock
from storyloom.store import Conflict, NotFound

if TYPE_CHECKING:
    from storyloom.store import Database

ANNOUNCED_ID = "_local/storyloom-announced-breaks"
#: Breaks remembered (the newest); an older one that comes back is long cleared by a new lock.
KEEP = 500
_ATTEMPTS = 25


def break_key(record: BrokenLock) -> str:
    """What tells one break from another: the document, who broke whose lock, since and at."""
    return "|".join((record.doc_id, record.by, record.holder, str(record.since or ""), str(record.at or "")))


def unannounced(docs: Iterable[dict[str, Any] | None], me: str, announced: Collection[str]) -> list[BrokenLock]:
    """The breaks of ``me``'s locks recorded in ``docs`` and not in ``announced`` (each once)."""
    found: dict[str, BrokenLock] = {}
    for doc in docs:
        if not doc or doc.get("_deleted"):
            continue
        record = broken_lock(doc)
        if record is None or record.holder != me or record.by == me:
            continue
        key = break_key(record)
        if key not in announced:
            found.setdefault(key, record)
    return list(found.values())


class BreakNotices:
    """Which breaks of the holder's locks this machine was told of. ``store`` gives the
    project's store, ``holder`` the lock holder's name (see :func:`storyloom.app.locks.lock_holder`)."""

    def __init__(self, store: Callable[[], Database], holder: Callable[[], str]) -> None:
        self._store = store
        self._holder = holder
        self._lock = threading.Lock()

    def announced(self) -> list[str]:
        try:
            doc = self._store().get_local(ANNOUNCED_ID)
        except NotFound:
            return []
        keys = (doc or {}).get("breaks")
        return [str(k) for k in keys] if isinstance(keys, list) else []

    def take(self, docs: Iterable[dict[str, Any] | None]) -> list[BrokenLock]:
        """The breaks in ``docs`` not told yet, now recorded as told (so a second call, or
        another process of the project, finds none)."""
        docs = list(docs)
        me = self._holder()
        if not any(broken_lock(doc) is not None for doc in docs if doc):
            return []  # the common case: nothing to record, no read of the local document
        with self._lock:
            for _ in range(_ATTEMPTS):
                store = self._store()
                try:
                    current = store.get_local(ANNOUNCED_ID) or {}
                except NotFound:
                    current = {}
                keys = [str(k) for k in current.get("breaks") or []]
                new = unannounced(docs, me, set(keys))
                if not new:
                    return []
                record: dict[str, Any] = {"_id": ANNOUNCED_ID,
                                          "breaks": [*keys, *(break_key(b) for b in new)][-KEEP:]}
                if current.get("_rev"):
                    record["_rev"] = current["_rev"]
                try:
                    store.put_local(record)
                except Conflict:  # another process of this project told one meanwhile: read again
                    continue
                return new
        return []

    def take_stored(self, doc_ids: Iterable[str]) -> list[BrokenLock]:
        """:meth:`take` for the current local revisions of ``doc_ids`` (after a pull)."""
        store = self._store()
        docs = []
        for doc_id in dict.fromkeys(doc_ids):
            if doc_id.startswith(("_local/", "_design/")):
                continue
            try:
                docs.append(store.get(doc_id))
            except NotFound:
                continue
        return self.take(docs)
