"""Read transactions: a pooled reading connection per read, and the snapshot it sees."""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Callable
from typing import Any, Protocol, TypeAlias

from storyloom.store.errors import (
    Damaged,
    DatabaseClosed,
)
from storyloom.store.integrity import check_attachment, checked_body, checked_tree, is_bad_text, translate
from storyloom.store.revtree import Tree

# A ``docs`` row as read: (revision tree, winning rev, whether the winner is deleted, seq).
DocRow: TypeAlias = tuple[Tree, str, bool, int]


class Snapshot:
    """A read view on one connection; reads inside one snapshot see one committed state.

    Every row read whole is checked (storyloom.store.integrity): damage raises
    :class:`~storyloom.store.errors.Damaged` naming ``store`` and the document."""

    def __init__(self, conn: sqlite3.Connection, store: str) -> None:
        self.conn = conn
        self.store = store

    def doc_row(self, doc_id: str) -> DocRow | None:
        try:
            row = self.conn.execute(
                "SELECT rev_tree, winning_rev, deleted, seq, crc FROM docs WHERE id = ?", (doc_id,)
            ).fetchone()
        except sqlite3.OperationalError as exc:
            if is_bad_text(exc):
                raise Damaged(self.store, doc_id=doc_id, detail="its row holds text that is not valid UTF-8") from None
            raise
        if row is None:
            return None
        tree_json, winner, deleted, seq, crc = row
        return checked_tree(self.store, doc_id, tree_json, winner, deleted, seq, crc), winner, bool(deleted), seq

    def body(self, doc_id: str, rev: str) -> tuple[dict[str, Any], bool] | None:
        try:
            row = self.conn.execute(
                "SELECT body, deleted, crc FROM revs WHERE doc_id = ? AND rev = ?", (doc_id, rev)
            ).fetchone()
        except sqlite3.OperationalError as exc:
            if is_bad_text(exc):
                raise Damaged(self.store, doc_id=doc_id, detail=f"revision {rev} is not valid UTF-8") from None
            raise
        if row is None:
            return None
        return checked_body(self.store, doc_id, rev, row[1], row[0], row[2]), bool(row[1])

    def attachment_data(self, digest: str, doc_id: str | None = None, name: str | None = None) -> bytes:
        """An attachment's bytes, checked against ``digest``; ``doc_id`` and ``name`` name it
        when it is damaged or missing."""
        row = self.conn.execute("SELECT data, length FROM attachments WHERE digest = ?", (digest,)).fetchone()
        if row is None:
            return check_attachment(self.store, doc_id, name, digest, None)
        data = row[0]
        return check_attachment(self.store, doc_id, name, digest,
                                bytes(data) if isinstance(data, (bytes, memoryview)) else data, row[1])

    def meta(self, key: str, default: str | None = None) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return default if row is None else row[0]


class ReadHost(Protocol):
    """What a read transaction needs of its database (the connections, the lock, the thread's
    current read)."""

    path: str
    _memory: bool
    _closed: bool
    _local: threading.local
    _write_lock: threading.RLock
    _writer: sqlite3.Connection

    def _checkout_reader(self) -> sqlite3.Connection: ...

    def _checkin_reader(self, conn: sqlite3.Connection) -> None: ...


class ReadContext:
    """``with db._read() as snap``: one read transaction (one snapshot).

    A read nested in another on the same thread joins the outer transaction (same connection).
    """

    conn: sqlite3.Connection  # set by __enter__
    nested: bool
    began: bool

    def __init__(self, db: ReadHost) -> None:
        self.db = db
        self.locked = False

    def __enter__(self) -> Snapshot:
        if self.db._memory:
            self.db._write_lock.acquire()
            self.locked = True
        outer: sqlite3.Connection | None = getattr(self.db._local, "conn", None)
        self.nested = outer is not None
        if outer is not None:
            self.conn = outer
            return Snapshot(outer, self.db.path)
        try:
            conn = self.db._checkout_reader()
            if conn is not self.db._writer and conn.in_transaction:
                conn.execute("ROLLBACK")  # an idle reader never holds a snapshot
            # In memory the writer's connection serves reads; inside a write (a validator that
            # reads) it is already in the write's transaction, which is not ours to end.
            self.began = not conn.in_transaction
            if self.began:
                conn.execute("BEGIN")
        except BaseException as exc:
            if self.locked:
                self.db._write_lock.release()
            if isinstance(exc, sqlite3.Error):
                named = translate(exc, self.db.path, writing=False)
                if named is not None:
                    raise named from None
            raise
        self.conn = conn
        self.db._local.conn = conn
        return Snapshot(conn, self.db.path)

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: object) -> None:
        if self.nested:
            if self.locked:
                self.db._write_lock.release()
            return
        self.db._local.conn = None
        if exc_type is not None and issubclass(exc_type, sqlite3.ProgrammingError) and self.db._closed:
            # close() closed this connection under a read in flight: report it as the store's
            # db_closed error, not as a bare sqlite3 error.
            if self.locked:
                self.db._write_lock.release()
            raise DatabaseClosed() from exc
        try:
            if exc is not None:
                # The read failed: end its transaction quietly, then name the failure.
                if self.began and not self.db._closed and self.conn.in_transaction:
                    with contextlib.suppress(sqlite3.Error):
                        self.conn.execute("ROLLBACK")
                if isinstance(exc, sqlite3.Error):
                    named = translate(exc, self.db.path, writing=False)
                    if named is not None:
                        raise named from None
            elif self.began and not self.db._closed and self.conn.in_transaction:
                self.conn.execute("COMMIT")
        finally:
            try:
                self.db._checkin_reader(self.conn)
            finally:
                if self.locked:
                    self.db._write_lock.release()


class ReaderPool:
    """Reading connections, checked out for one read transaction and back to a bounded idle
    pool after it: a short-lived thread that reads (a sync run, a request) leaves no connection
    and no file descriptor behind."""

    IDLE = 4

    def __init__(self, connect: Callable[[], sqlite3.Connection]) -> None:
        self._connect = connect
        self._all: list[sqlite3.Connection] = []  # every open reading connection
        self._idle: list[sqlite3.Connection] = []  # those not inside a read right now
        self._lock = threading.Lock()

    def checkout(self) -> sqlite3.Connection:
        with self._lock:
            if self._idle:
                return self._idle.pop()
        conn = self._connect()
        with self._lock:
            self._all.append(conn)
        return conn

    def checkin(self, conn: sqlite3.Connection, keep: bool = True) -> None:
        with self._lock:
            if keep and len(self._idle) < self.IDLE:
                self._idle.append(conn)
                return
            if conn in self._all:
                self._all.remove(conn)
        try:
            conn.close()
        except sqlite3.Error:
            pass

    @property
    def open_count(self) -> int:
        """How many reading connections are open now."""
        with self._lock:
            return len(self._all)

    def close_all(self) -> None:
        with self._lock:
            for conn in self._all:
                try:
                    conn.close()
                except sqlite3.Error:
                    pass
            self._all.clear()
            self._idle.clear()
