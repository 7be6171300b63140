"""An embedded document database on SQLite with CouchDB semantics (docs/protocol.md sections 1-2).

One file per project (WAL mode), or ``":memory:"``. One writer at a time (a lock), many readers
(one SQLite connection per reading thread, each seeing a committed snapshot). Every ``bulk_docs``
call is one transaction, so a killed process never leaves a torn document, and a write is only
acknowledged after its transaction committed.
"""

from __future__ import annotations

import base64
import contextlib
import logging
import os
import sqlite3
import threading
import uuid
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, overload

from storyloom.store import revtree
from storyloom.store.all_docs import AllDocsOptions, all_docs_around_damage, all_docs_rows, stream_chunks
from storyloom.store.codec import dumps
from storyloom.store.documents import (
    LOCAL_PREFIX,
    check_special_fields,
    error_from_result,
    local_key,
    replicated_revision,
    safe_pos,
    validate_doc_id,
)
from storyloom.store.errors import (
    BadRequest,
    Conflict,
    Damaged,
    DatabaseClosed,
    NotAStore,
    NotFound,
)
from storyloom.store.integrity import checked_local, checked_tree, local_crc, translate, verify_tree
from storyloom.store.readers import DocRow, ReadContext, ReaderPool, Snapshot
from storyloom.store.schema import SCHEMA, check_is_store, upgrade
from storyloom.store.writer import Writer

log = logging.getLogger(__name__)

ChangeCallback = Callable[[dict[str, Any]], None]


Validator = Callable[[dict[str, Any], "dict[str, Any] | None"], None]


DEFAULT_REVS_LIMIT = 1000
# Revisions of each root-to-leaf path that keep their bodies (the ancestors a three-way merge
# can start from); older ones keep only their place in the tree.
DEFAULT_KEPT_BODIES = 20


class Database:
    """A CouchDB-like database in one SQLite file. See docs/store.md for the full contract."""

    def __init__(
        self,
        path: str | Path,
        revs_limit: int | None = None,
        validator: Validator | None = None,
        name: str | None = None,
        *,
        create: bool = True,
    ) -> None:
        """``revs_limit``: None keeps the database's own (set by an earlier open or
        ``set_revs_limit``; 1000 for a new database); a number sets and stores it.

        A file that exists must be a Storyloom store: anything else (another program's SQLite
        file, a file that is not SQLite) raises :class:`NotAStore` and is left untouched. With
        ``create=False`` a missing file raises :class:`NotAStore` too."""
        if revs_limit is not None and (isinstance(revs_limit, bool) or not isinstance(revs_limit, int)
                                       or revs_limit < 1):
            raise BadRequest("revs_limit must be a positive integer")
        self.path = str(path)
        self.name = name or (Path(self.path).stem if self.path != ":memory:" else "memory")
        self.revs_limit = DEFAULT_REVS_LIMIT if revs_limit is None else revs_limit
        self.kept_bodies = DEFAULT_KEPT_BODIES
        self.validator = validator
        self._memory = self.path == ":memory:"
        self._write_lock = threading.RLock()
        self._local = threading.local()
        self._pool = ReaderPool(self._connect)
        self._subscribers: list[ChangeCallback] = []
        self._seq_cond = threading.Condition()
        self._closed = False
        existing = not self._memory and os.path.exists(self.path) and os.path.getsize(self.path) > 0
        if not self._memory and not existing:
            if not create:
                there = os.path.exists(self.path)
                raise NotAStore(f"{self.path} is empty, not a Storyloom store" if there
                                else f"no Storyloom store at {self.path}")
            # Only its owner may read a store (a project's data and credentials); SQLite gives -wal
            # and -shm this mode. Changed in place, never written whole: not an atomic_write.
            try:
                os.close(os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600))
            except OSError:  # created meanwhile (its mode stands), or not creatable (SQLite says why)
                pass
        if existing:
            check_is_store(self.path)
        try:
            self._writer = self._connect()
        except sqlite3.DatabaseError as exc:
            named = translate(exc, self.path, writing=False)
            if named is not None and existing:
                raise named from None
            raise NotAStore(f"{self.path} is not a Storyloom store ({exc})") from None
        try:
            self._set_up(revs_limit)
        except sqlite3.Error as exc:
            self._writer.close()
            raise (translate(exc, self.path, writing=False) or exc) from None
        except BaseException:
            self._writer.close()
            raise

    def _set_up(self, revs_limit: int | None) -> None:
        """The schema (created, or upgraded from an earlier version) and the stored settings."""
        with self._write_lock:
            self._writer.executescript(SCHEMA)
            cur = self._writer.cursor()
            cur.execute("BEGIN IMMEDIATE")
            upgrade(cur)
            cur.execute("INSERT OR IGNORE INTO meta VALUES ('instance_uuid', ?)", (uuid.uuid4().hex,))
            cur.execute("INSERT OR IGNORE INTO meta VALUES ('update_seq', '0')")
            cur.execute("INSERT OR IGNORE INTO meta VALUES ('doc_count', '0')")
            cur.execute("INSERT OR IGNORE INTO meta VALUES ('doc_del_count', '0')")
            if revs_limit is None:
                cur.execute("INSERT OR IGNORE INTO meta VALUES ('revs_limit', ?)", (str(self.revs_limit),))
                stored = cur.execute("SELECT value FROM meta WHERE key = 'revs_limit'").fetchone()[0]
                self.revs_limit = int(stored)
            else:
                cur.execute("INSERT OR REPLACE INTO meta VALUES ('revs_limit', ?)", (str(revs_limit),))
            kept = cur.execute("SELECT value FROM meta WHERE key = 'kept_bodies'").fetchone()
            self.kept_bodies = int(kept[0]) if kept else DEFAULT_KEPT_BODIES
            cur.execute("COMMIT")

    # -- connections -------------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=30)
        if not self._memory:
            conn.execute("PRAGMA journal_mode=WAL")
            # FULL: an acknowledged write survives power loss too, not only a process kill.
            conn.execute("PRAGMA synchronous=FULL")
        conn.execute("PRAGMA foreign_keys=OFF")
        return conn

    def _checkout_reader(self) -> sqlite3.Connection:
        """A reading connection for one read transaction (the writer's own in memory)."""
        if self._closed:
            raise DatabaseClosed()
        return self._writer if self._memory else self._pool.checkout()

    def _checkin_reader(self, conn: sqlite3.Connection) -> None:
        if not self._memory:
            self._pool.checkin(conn, keep=not self._closed)

    def _read(self) -> ReadContext:
        return ReadContext(self)

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Cursor]:
        """One write transaction under the write lock: committed when the block ends, rolled
        back when it raises. SQLite's own failures come out named (a full disk, damage).

        SQLite may already have rolled back when COMMIT fails (a full disk), so the rollback
        here only runs while a transaction is still open: it must never hide the real error."""
        with self._write_lock:
            if self._closed:
                raise DatabaseClosed()
            cur = self._writer.cursor()
            try:
                cur.execute("BEGIN IMMEDIATE")
                try:
                    yield cur
                    cur.execute("COMMIT")
                except BaseException:
                    if self._writer.in_transaction:
                        cur.execute("ROLLBACK")
                    raise
            except sqlite3.Error as exc:
                named = translate(exc, self.path, writing=True)
                if named is None:
                    raise
                raise named from None

    def close(self) -> None:
        """Close every connection. Further calls raise."""
        if self._closed:
            return
        self._closed = True
        with self._write_lock:
            self._pool.close_all()
            self._writer.close()
        with self._seq_cond:
            self._seq_cond.notify_all()

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- info and notifications ------------------------------------------------------------

    def info(self) -> dict[str, Any]:
        with self._read() as snap:
            return {
                "db_name": self.name,
                "doc_count": int(snap.meta("doc_count", "0") or 0),
                "doc_del_count": int(snap.meta("doc_del_count", "0") or 0),
                "update_seq": int(snap.meta("update_seq", "0") or 0),
                "instance_uuid": snap.meta("instance_uuid"),
                "revs_limit": self.revs_limit,
            }

    @property
    def update_seq(self) -> int:
        return int(self.info()["update_seq"])

    def changes_count(self, since: int = 0) -> int:
        """How many rows ``changes(since=since)`` has (one per document changed after ``since``),
        counted on the seq index without reading them: the total of a replication's progress."""
        with self._read() as snap:
            return int(snap.conn.execute("SELECT COUNT(*) FROM docs WHERE seq > ?", (int(since),)).fetchone()[0])

    def subscribe(self, callback: ChangeCallback) -> Callable[[], None]:
        """Call ``callback({"id", "rev", "seq", "deleted"})`` after each committed change."""
        if self._closed:
            raise DatabaseClosed()
        self._subscribers.append(callback)

        def unsubscribe() -> None:
            try:
                self._subscribers.remove(callback)
            except ValueError:
                pass

        return unsubscribe

    def wait_for_change(self, since: int, timeout: float) -> bool:
        """Block until ``update_seq > since`` or ``timeout`` seconds pass; True if it changed."""
        with self._seq_cond:
            return self._seq_cond.wait_for(lambda: self._closed or self.update_seq > since, timeout)

    def _notify(self, changes: list[tuple[str, str, int, bool]]) -> None:
        """Wake waiters, then call every listener with each change ``(id, rev, seq, deleted)`` as a dict."""
        if not changes:
            return
        with self._seq_cond:
            self._seq_cond.notify_all()
        subscribers = list(self._subscribers)
        if not subscribers:
            return
        as_dicts = [{"id": i, "rev": r, "seq": q, "deleted": d} for i, r, q, d in changes]
        for callback in subscribers:
            for change in as_dicts:
                try:
                    callback(change)
                except Exception:  # a listener's bug must not fail the write, but it is seen
                    log.exception("a store subscriber failed on change %s %s", change["id"], change["rev"])

    def set_revs_limit(self, limit: int) -> None:
        self.revs_limit = self._store_setting("revs_limit", limit)

    def set_kept_bodies(self, count: int) -> None:
        """Keep the bodies of the newest ``count`` revisions of each path (leaves always keep
        theirs); stored with the database. Applies from each document's next write; ``compact``
        applies it to all at once."""
        self.kept_bodies = self._store_setting("kept_bodies", count)

    def _store_setting(self, key: str, value: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise BadRequest(f"{key} must be a positive integer")
        with self._transaction() as cur:
            cur.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, str(value)))
        return value

    def compact(self) -> int:
        """Drop the bodies ``kept_bodies`` no longer keeps, in every document; returns how many.
        Seqs and winners do not change. Runs in transactions of a few hundred documents."""
        with self._read() as snap:  # only a document with two bodies or more can lose one
            ids = [r[0] for r in snap.conn.execute("SELECT doc_id FROM revs GROUP BY doc_id HAVING count(*) > 1")]
        dropped = 0
        for start in range(0, len(ids), 200):
            with self._transaction() as cur:
                writer = Writer(self, cur)
                dropped += writer.compact(ids[start:start + 200])
                writer.finish()
        return dropped

    # -- writes ----------------------------------------------------------------------------------

    def put(self, doc: dict[str, Any]) -> dict[str, Any]:
        """Write one document (interactive edit). Raises Conflict, BadRequest, Forbidden, MissingStub."""
        if not isinstance(doc, dict):
            raise BadRequest("Document must be a JSON object")
        doc_id = doc.get("_id")
        if isinstance(doc_id, str) and doc_id.startswith(LOCAL_PREFIX):
            return self.put_local(doc)
        result = self.bulk_docs([doc])[0]
        if "error" in result:
            raise error_from_result(result)
        return result

    def remove(self, doc_id: str, rev: str) -> dict[str, Any]:
        """Delete a document by writing a tombstone on top of ``rev``."""
        return self.put({"_id": doc_id, "_rev": rev, "_deleted": True})

    def bulk_docs(self, docs: Iterable[dict[str, Any]], new_edits: bool = True) -> list[dict[str, Any]]:
        """Write many documents in one transaction.

        With ``new_edits=True``: one result per doc, ``{"ok", "id", "rev"}`` or ``{"id", "error",
        "reason"}``. With ``new_edits=False`` (replication): revisions are merged into the trees as
        they are; only failures are returned (an empty list on full success); a request-level
        problem (missing ``_rev``, bad special field, unresolvable stub) fails the whole call.
        """
        docs = list(docs)
        for doc in docs:
            if not isinstance(doc, dict):
                raise BadRequest("Each document must be a JSON object")
        # Each revision as checked here, handed to the writer (not parsed a second time).
        revisions: list[tuple[str, int, list[str]]] = []
        if not new_edits:
            for doc in docs:
                check_special_fields(doc)
                if "_rev" not in doc and "_revisions" not in doc:
                    raise BadRequest(
                        "When `new_edits: false`, the document needs `_rev` or `_revisions` specified."
                    )
                validate_doc_id(doc.get("_id"))
                if doc["_id"].startswith(LOCAL_PREFIX):
                    raise BadRequest("_local documents cannot be replicated")
                revisions.append(replicated_revision(doc))
        with self._transaction() as cur:
            writer = Writer(self, cur)
            writer.prefetch([doc.get("_id") for doc in docs])
            if new_edits:
                results = writer.write_all_interactive(docs)
            else:
                results = []
                for doc, revision in zip(docs, revisions, strict=True):
                    failure = writer.write_replicated(doc, revision)
                    if failure:
                        results.append(failure)
            writer.finish()
        self._notify(writer.changes)
        return results

    # -- reads -------------------------------------------------------------------------------

    # With ``open_revs``, a list of ``{"ok": doc}`` or ``{"missing": rev}``; else one document.
    @overload
    def get(self, doc_id: str, rev: str | None = None, revs: bool = False, revs_info: bool = False,
            conflicts: bool = False, deleted_conflicts: bool = False, open_revs: None = None, latest: bool = False,
            attachments: bool = False, atts_since: list[str] | None = None) -> dict[str, Any]: ...

    @overload
    def get(self, doc_id: str, rev: str | None = None, revs: bool = False, revs_info: bool = False,
            conflicts: bool = False, deleted_conflicts: bool = False, *, open_revs: str | list[str],
            latest: bool = False, attachments: bool = False, atts_since: list[str] | None = None,
            ) -> list[dict[str, Any]]: ...

    def get(  # noqa: PLR0917 - CouchDB's GET options, in its order
        self, doc_id: str, rev: str | None = None, revs: bool = False, revs_info: bool = False,
        conflicts: bool = False, deleted_conflicts: bool = False, open_revs: str | list[str] | None = None,
        latest: bool = False, attachments: bool = False, atts_since: list[str] | None = None,
    ) -> dict[str, Any] | list[dict[str, Any]]:
        """Read a document, a revision of it, or (with ``open_revs``) several revisions."""
        if isinstance(doc_id, str) and doc_id.startswith(LOCAL_PREFIX):
            return self.get_local(doc_id)
        with self._read() as snap:
            row = snap.doc_row(doc_id)
            if open_revs is not None:
                return self._open_revs(snap, doc_id, row, open_revs, latest, revs, attachments, atts_since)
            if row is None:
                raise NotFound("missing")
            tree, winner, deleted, _ = row
            if rev is None:
                if deleted:
                    raise NotFound("deleted")
                rev = winner
            else:
                try:
                    revtree.parse_rev(rev)
                except ValueError as exc:
                    raise BadRequest("Invalid rev format") from exc
                if latest:
                    descendants = revtree.leaves_descending_from(tree, rev)
                    if descendants:
                        rev = descendants[0].rev
            doc = self._materialize(snap, doc_id, tree, rev, revs, attachments, atts_since)
            if doc is None:
                raise NotFound("missing")
            if revs_info:
                doc["_revs_info"] = self._revs_info(snap, doc_id, tree, rev)
            if conflicts or deleted_conflicts:
                live, dead = revtree.conflicts(tree)
                if conflicts and live and rev == winner:
                    doc["_conflicts"] = live
                if deleted_conflicts and dead and rev == winner:
                    doc["_deleted_conflicts"] = dead
            return doc

    def _open_revs(
        self,
        snap: Snapshot,
        doc_id: str,
        row: DocRow | None,
        open_revs: str | list[str],
        latest: bool,
        revs: bool,
        attachments: bool,
        atts_since: list[str] | None,
    ) -> list[dict[str, Any]]:
        if open_revs == "all":
            if row is None:
                return []
            wanted = [leaf.rev for leaf in revtree.leaves(row[0])]
        elif isinstance(open_revs, list):
            wanted = list(open_revs)
        else:
            raise BadRequest("open_revs must be 'all' or a list of revs")
        out: list[dict[str, Any]] = []
        seen: set[str] = set()
        for wanted_rev in wanted:
            try:
                revtree.parse_rev(wanted_rev)
            except ValueError as exc:
                raise BadRequest(f"Invalid rev format: {wanted_rev!r}") from exc
            targets = [wanted_rev]
            if row is not None and latest:
                descendants = revtree.leaves_descending_from(row[0], wanted_rev)
                if descendants:
                    targets = [leaf.rev for leaf in descendants]
            for target in targets:
                if target in seen:
                    continue
                seen.add(target)
                doc = None
                if row is not None:
                    doc = self._materialize(snap, doc_id, row[0], target, revs, attachments, atts_since)
                out.append({"ok": doc} if doc is not None else {"missing": target})
        return out

    def _materialize(
        self,
        snap: Snapshot,
        doc_id: str,
        tree: revtree.Tree,
        rev: str,
        revs: bool,
        attachments: bool,
        atts_since: list[str] | None = None,
    ) -> dict[str, Any] | None:
        stored = snap.body(doc_id, rev)
        if stored is None:
            return None
        body, deleted = stored
        doc: dict[str, Any] = {"_id": doc_id, "_rev": rev}
        doc.update(body)
        if deleted:
            doc["_deleted"] = True
        if revs:
            path = revtree.ancestry(tree, rev)
            if path:
                doc["_revisions"] = {"start": path[0][0], "ids": [node[0] for _, node in path]}
        atts = doc.get("_attachments")
        if atts:
            threshold = 0
            if atts_since:
                ancestors = {f"{p}-{n[0]}" for p, n in revtree.ancestry(tree, rev)}
                for since_rev in atts_since:
                    if since_rev in ancestors:
                        threshold = max(threshold, revtree.parse_rev(since_rev)[0])
            out_atts: dict[str, Any] = {}
            for name, meta in atts.items():
                entry = {k: v for k, v in meta.items() if k not in ("stub", "data")}
                if attachments and entry.get("revpos", 0) > threshold:
                    data = snap.attachment_data(meta["digest"], doc_id, name)
                    entry["data"] = base64.b64encode(data).decode()
                else:
                    entry["stub"] = True
                out_atts[name] = entry
            doc["_attachments"] = out_atts
        return doc

    def _revs_info(self, snap: Snapshot, doc_id: str, tree: revtree.Tree, rev: str) -> list[dict[str, str]]:
        info = []
        for pos, node in revtree.ancestry(tree, rev):
            node_rev = f"{pos}-{node[0]}"
            if node[1].get("deleted"):
                status = "deleted"
            elif snap.body(doc_id, node_rev) is not None:
                status = "available"
            else:
                status = "missing"
            info.append({"rev": node_rev, "status": status})
        return info

    def get_attachment(self, doc_id: str, name: str, rev: str | None = None) -> bytes:
        """The raw bytes of attachment ``name`` of the winning (or given) revision."""
        # One snapshot for the document and its data (the nested get() joins it): a write between
        # the two reads could otherwise collect the data of a revision just stemmed.
        with self._read() as snap:
            doc = self.get(doc_id, rev=rev)
            meta = (doc.get("_attachments") or {}).get(name)
            if meta is None:
                raise NotFound("missing")
            return snap.attachment_data(meta["digest"], doc_id, name)

    def revs_diff(self, request: dict[str, list[str]]) -> dict[str, dict[str, list[str]]]:
        """For each id, the revs this database lacks (and possible ancestors among its leaves)."""
        out: dict[str, dict[str, list[str]]] = {}
        with self._read() as snap:
            for doc_id, revs_wanted in request.items():
                row = snap.doc_row(doc_id)
                tree = row[0] if row else []
                missing = [r for r in dict.fromkeys(revs_wanted) if not revtree.has_rev(tree, r)]
                if not missing:
                    continue
                entry: dict[str, list[str]] = {"missing": missing}
                max_missing = max((safe_pos(r) for r in missing), default=0)
                ancestors = [leaf.rev for leaf in revtree.leaves(tree) if leaf.pos < max_missing] if tree else []
                if ancestors:
                    entry["possible_ancestors"] = ancestors
                out[doc_id] = entry
        return out

    def bulk_get(
        self,
        requests: list[dict[str, Any]],
        revs: bool = False,
        latest: bool = False,
        attachments: bool = False,
    ) -> dict[str, Any]:
        """CouchDB ``_bulk_get``: one result per request item, in request order."""
        results = []
        with self._read() as snap:
            for item in requests:
                doc_id = item.get("id")
                if not isinstance(doc_id, str):
                    results.append({"id": doc_id, "docs": [{"error": {
                        "id": doc_id, "rev": item.get("rev"), "error": "bad_request", "reason": "missing id"}}]})
                    continue
                row = snap.doc_row(doc_id)
                open_revs: str | list[str] = [item["rev"]] if item.get("rev") else "all"
                if row is None:
                    rev = item.get("rev") or "undefined"
                    results.append({"id": doc_id, "docs": [{"error": {
                        "id": doc_id, "rev": rev, "error": "not_found", "reason": "missing"}}]})
                    continue
                try:
                    found = self._open_revs(
                        snap, doc_id, row, open_revs, latest, revs, attachments, item.get("atts_since")
                    )
                except BadRequest as exc:
                    results.append({"id": doc_id, "docs": [{"error": {
                        "id": doc_id, "rev": item.get("rev"), "error": exc.error, "reason": exc.reason}}]})
                    continue
                docs = []
                for entry in found:
                    if "ok" in entry:
                        docs.append(entry)
                    else:
                        docs.append({"error": {"id": doc_id, "rev": entry["missing"],
                                               "error": "not_found", "reason": "missing"}})
                results.append({"id": doc_id, "docs": docs})
        return {"results": results}

    # -- changes -------------------------------------------------------------------------

    def changes(  # noqa: C901, PLR0912 - CouchDB's _changes options in one read, its common walk inline
        self,
        since: int | str = 0,
        limit: int | None = None,
        style: str = "main_only",
        include_docs: bool = False,
        conflicts: bool = False,
        doc_ids: Iterable[str] | None = None,
        descending: bool = False,
        attachments: bool = False,
    ) -> dict[str, Any]:
        """The changes feed: one row per document at its latest seq, after ``since``."""
        if style not in ("main_only", "all_docs"):
            raise BadRequest(f"Invalid style {style!r}: use 'main_only' or 'all_docs'")
        if limit is not None and (not isinstance(limit, int) or limit < 0):
            raise BadRequest("limit must be a non-negative integer")
        wanted_ids = set(doc_ids) if doc_ids is not None else None
        with self._read() as snap:
            update_seq = int(snap.meta("update_seq", "0") or 0)
            if since == "now":
                since_seq = update_seq
            else:
                try:
                    since_seq = int(since)
                except (TypeError, ValueError) as exc:
                    raise BadRequest(f"Invalid since value {since!r}") from exc
            order = "DESC" if descending else "ASC"
            # Read the tree only when rows need it (a main_only walk never does), and let SQLite
            # apply the limit when no doc_ids filter has to examine rows first (performance).
            need_tree = style == "all_docs" or (include_docs and conflicts)
            tree_column = "rev_tree, crc" if need_tree else "NULL, NULL"
            sql_limit = limit if (limit is not None and wanted_ids is None) else -1
            if descending:
                query = (
                    f"SELECT id, {tree_column}, winning_rev, deleted, seq FROM docs ORDER BY seq {order} LIMIT ?"
                )
                params: tuple[int, ...] = (sql_limit,)
            else:
                query = (
                    f"SELECT id, {tree_column}, winning_rev, deleted, seq FROM docs WHERE seq > ? "
                    f"ORDER BY seq {order} LIMIT ?"
                )
                params = (since_seq, sql_limit)
            results: list[dict[str, Any]] = []
            last_seq = since_seq
            rows: Iterator[Any] = snap.conn.execute(query, params)
            if not need_tree and not include_docs and wanted_ids is None:
                # The common walk (the replicator's and the benchmark's): rows only.
                for doc_id, _, _, winner, deleted, seq in rows:
                    row = {"seq": seq, "id": doc_id, "changes": [{"rev": winner}]}
                    if deleted:
                        row["deleted"] = True
                    results.append(row)
                if results:
                    last_seq = results[-1]["seq"]
                rows = iter(())
            for doc_id, tree_json, crc, winner, deleted, seq in rows:
                if limit is not None and len(results) >= limit:
                    break
                last_seq = seq
                if wanted_ids is not None and doc_id not in wanted_ids:
                    continue
                # Performance: every leaf's empty child list is the text "[]" in the stored tree
                # (and nothing else's but an odd hash), so one "[]" means one leaf, the winner,
                # and an all_docs row needs no decoding (list_conflicts walks every document).
                one_leaf = need_tree and not (include_docs and conflicts) and tree_json.count("[]") == 1
                if need_tree and not one_leaf:
                    tree = checked_tree(self.path, doc_id, tree_json, winner, deleted, seq, crc)
                else:
                    tree = []
                    if one_leaf:
                        verify_tree(self.path, doc_id, tree_json, winner, deleted, seq, crc)
                if style == "all_docs" and not one_leaf:
                    revs_listed = [winner] + [leaf.rev for leaf in revtree.leaves(tree) if leaf.rev != winner]
                else:
                    revs_listed = [winner]
                row = {"seq": seq, "id": doc_id, "changes": [{"rev": r} for r in revs_listed]}
                if deleted:
                    row["deleted"] = True
                if include_docs:
                    doc = self._materialize(snap, doc_id, tree, winner, False, attachments)
                    if conflicts and doc is not None:
                        live, _ = revtree.conflicts(tree)
                        if live:
                            doc["_conflicts"] = live
                    row["doc"] = doc
                results.append(row)
            if descending and not results:
                last_seq = since_seq
            return {"results": results, "last_seq": last_seq}

    # -- all_docs --------------------------------------------------------------------------------

    def all_docs(self, *, skip_damaged: bool = False, **options: Any) -> dict[str, Any]:
        """CouchDB ``_all_docs``: see docs/store.md for every option and the output shape.

        ``skip_damaged`` (not a CouchDB option): a damaged document's row becomes ``{"id", "key",
        "error": "damaged", "reason"}`` instead of failing the whole call, for readers that must
        go on around one damaged document (the app's search, problems and locks, the editor's
        checks). Without it, damage raises :class:`Damaged`."""
        if skip_damaged:
            try:
                return self.all_docs(**options)
            except Damaged:
                return all_docs_around_damage(self, options)
        opts = AllDocsOptions.parse(options)
        with self._read() as snap:
            header, rows = all_docs_rows(snap, opts)
            out = {"total_rows": header["total_rows"], "offset": header["offset"], "rows": list(rows)}
            if opts.update_seq:
                out["update_seq"] = header["update_seq"]
            return out

    def all_docs_stream(self, **options: Any) -> Iterator[str]:
        """The ``all_docs`` result as JSON text chunks, read from one snapshot, memory bounded.

        Options are validated before the first chunk is produced, so a bad option raises at call
        time and an HTTP layer can still answer 400.
        """
        opts = AllDocsOptions.parse(options)
        if self._closed:
            raise DatabaseClosed()
        if self._memory:
            # One shared connection: materialise under the lock rather than hold it while streaming.
            result = self.all_docs(**options)
            return iter([dumps(result)])
        try:
            conn = self._connect()
            conn.execute("BEGIN")
        except sqlite3.Error as exc:
            raise (translate(exc, self.path, writing=False) or exc) from None
        snap = Snapshot(conn, self.path)
        try:
            header, rows = all_docs_rows(snap, opts)
        except BaseException as exc:
            conn.close()
            if isinstance(exc, sqlite3.Error):
                raise (translate(exc, self.path, writing=False) or exc) from None
            raise
        return stream_chunks(conn, header, rows, opts, self.path)

    # -- _local documents ------------------------------------------------------------------

    def get_local(self, doc_id: str) -> dict[str, Any]:
        key = local_key(doc_id)
        with self._read() as snap:
            row = snap.conn.execute("SELECT rev, body, crc FROM local_docs WHERE id = ?", (key,)).fetchone()
        if row is None:
            raise NotFound("missing")
        doc = {"_id": LOCAL_PREFIX + key, "_rev": f"0-{row[0]}"}
        doc.update(checked_local(self.path, key, *row))
        return doc


    def local_docs(self, startkey: str | None = None, endkey: str | None = None,
                   include_docs: bool = False) -> dict[str, Any]:
        """CouchDB's ``_local_docs``: ``{"total_rows": None, "offset": None, "rows": [{"id",
        "key", "value": {"rev"}, "doc"?}]}`` in id order, keys with their ``_local/`` prefix,
        ``startkey`` and ``endkey`` inclusive."""
        low = (startkey or "").removeprefix(LOCAL_PREFIX)
        high = endkey.removeprefix(LOCAL_PREFIX) if endkey is not None else None
        sql = "SELECT id, rev, body, crc FROM local_docs WHERE id >= ?" + (" AND id <= ?" if high is not None else "")
        with self._read() as snap:
            found = snap.conn.execute(sql + " ORDER BY id", (low,) if high is None else (low, high)).fetchall()
        rows = []
        for key, rev, body, crc in found:
            row: dict[str, Any] = {"id": LOCAL_PREFIX + key, "key": LOCAL_PREFIX + key, "value": {"rev": f"0-{rev}"}}
            if include_docs:
                body = checked_local(self.path, key, rev, body, crc)
                row["doc"] = {"_id": LOCAL_PREFIX + key, "_rev": f"0-{rev}", **body}
            rows.append(row)
        return {"total_rows": None, "offset": None, "rows": rows}

    def put_local(self, doc: dict[str, Any]) -> dict[str, Any]:
        """Write a ``_local`` doc: never replicated, no history, revs ``0-N``, 409 on a stale rev."""
        if not isinstance(doc, dict) or not isinstance(doc.get("_id"), str):
            raise BadRequest("A _local document needs an _id")
        key = local_key(doc["_id"])
        if doc.get("_deleted"):
            self.remove_local(key, doc.get("_rev", ""))
            return {"ok": True, "id": LOCAL_PREFIX + key, "rev": "0-0"}
        body = {k: v for k, v in doc.items() if not k.startswith("_")}
        with self._transaction() as cur:
            row = cur.execute("SELECT rev FROM local_docs WHERE id = ?", (key,)).fetchone()
            given = doc.get("_rev")
            if row is None:
                if given not in (None, "", "0-0"):
                    raise Conflict()
                new_rev = 1
            else:
                if given != f"0-{row[0]}":
                    raise Conflict()
                new_rev = row[0] + 1
            text = dumps(body)
            cur.execute("INSERT OR REPLACE INTO local_docs (id, rev, body, crc) VALUES (?, ?, ?, ?)",
                        (key, new_rev, text, local_crc(key, new_rev, text)))
        return {"ok": True, "id": LOCAL_PREFIX + key, "rev": f"0-{new_rev}"}

    def remove_local(self, doc_id: str, rev: str) -> dict[str, Any]:
        key = local_key(doc_id)
        with self._transaction() as cur:
            row = cur.execute("SELECT rev FROM local_docs WHERE id = ?", (key,)).fetchone()
            if row is None:
                raise NotFound("missing")
            if rev != f"0-{row[0]}":
                raise Conflict()
            cur.execute("DELETE FROM local_docs WHERE id = ?", (key,))
        return {"ok": True, "id": LOCAL_PREFIX + key, "rev": "0-0"}

    # -- snapshots -------------------------------------------------------------------------------

    def snapshot(self) -> ReadContext:
        """``with db.snapshot():``: one consistent view for a block of reads.

        Every read this thread makes inside the block (``info``, ``get``, ``all_docs``,
        ``changes``, ``get_attachment``...) joins one read transaction, so together they see the
        committed state of the block's first read, whatever other threads or processes write
        meanwhile. Keep blocks short: an open snapshot holds the WAL from being checkpointed.
        """
        return self._read()
