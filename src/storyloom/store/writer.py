"""The write path: one transaction per ``bulk_docs`` call, batched row inserts, revision
trees merged, stemmed and stored."""

from __future__ import annotations

import base64
import hashlib
import sqlite3
import uuid
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from storyloom.store import revtree
from storyloom.store.codec import (
    NEW_TREE_DELETED,
    NEW_TREE_HEAD,
    NEW_TREE_LIVE,
    NEW_TREE_TAIL,
    dumps,
    encode,
    encode_tree,
)
from storyloom.store.documents import (
    LOCAL_PREFIX,
    attachment_digest,
    body_of,
    checked_body,
    replicated_revision,
    validate_doc_id,
)
from storyloom.store.errors import (
    BadRequest,
    Conflict,
    MissingStub,
    StoreError,
)
from storyloom.store.integrity import checked_tree, docs_crc, revs_crc
from storyloom.store.readers import DocRow, Snapshot

_ABSENT = object()  # "no entry" in a dict that may hold None
_HEX_DIGITS = "0123456789abcdef"


# Revision hashes: the first 128 bits of a SHA-1, as 32 lowercase hex digits (see _write_one).
# write_all_interactive computes the same hash for new documents: change both together.
_sha1 = hashlib.sha1


# Rows per multi-row INSERT in ``_insert_rows``: at most 128 (768 parameters for the widest table,
# under the 999 of SQLite builds before 3.32).
_ROWS_PER_INSERT = (128, 64, 32, 16, 8, 4, 2, 1)


_INSERT_SQL: dict[tuple[str, int, int], str] = {}


def _insert_rows(cur: sqlite3.Cursor, insert: str, width: int, values: list[Any]) -> None:
    """Insert rows of ``width`` columns given one after the other in ``values``, in order.

    The same as ``cur.executemany(f"{insert} VALUES (?, ...)", rows)``, in a few multi-row
    statements. Performance (bench/store_bench.py): executemany runs one statement per row, and its
    per-row cost was about a third of the SQLite time of a bulk write. The rows go in the same
    order, so the outcome (OR REPLACE / OR IGNORE included) is the same; the statement for each
    size is built once and stays in the connection's statement cache.
    """
    start, total = 0, len(values) // width
    while start < total:
        left = total - start
        size = next(n for n in _ROWS_PER_INSERT if n <= left)
        key = (insert, width, size)
        sql = _INSERT_SQL.get(key)
        if sql is None:
            row_marks = "(" + ",".join("?" * width) + ")"
            sql = _INSERT_SQL[key] = f"{insert} VALUES " + ",".join([row_marks] * size)
        cur.execute(sql, values[start * width:(start + size) * width])
        start += size


def _stored_opts(tree: revtree.Tree, rev: str) -> dict[str, Any] | None:
    """The opts of ``rev`` if the tree holds its body (an "available" copy of it), else None.

    Every copy is looked at: stemming merges its cut paths back without grafting, so a revision
    can be kept twice, once with its body under its parent and once as a bodiless ("missing")
    root of a stale copy. Judged from the first copy found (``revtree.find_node``), such a
    revision looked new: a replicated path re-sending it went through the validator and replaced
    the stored body (``test_rule_1_5_a_revision_kept_twice_keeps_its_body``).
    """
    pos, rev_hash = revtree.parse_rev(rev)
    for node_pos, node, _ in revtree.iter_nodes(tree):
        if node_pos == pos and node[0] == rev_hash and node[1].get("status") == revtree.AVAILABLE:
            return dict(node[1])
    return None


class WriteTarget(Protocol):
    """What the write path needs of its database: its revision limit, how many revisions of
    each path keep their bodies, and its validator."""

    path: str
    revs_limit: int
    kept_bodies: int
    validator: Callable[[dict[str, Any], dict[str, Any] | None], None] | None


class Writer:
    """The writes of one transaction: tree merges, bodies, attachments, seqs and counters.

    Performance (bench/store_bench.py): the rows of every id in the call are fetched with one
    query and kept in ``rows``; ``revs``, ``att_refs`` and ``docs`` rows are collected and written
    with ``executemany`` in ``flush``. Before a document touched earlier in the same call is
    handled again, the pending rows are flushed, so every read a write makes sees the writes
    before it. Every check that can refuse one document (conflict, validation, stub) runs before
    anything of that document is written, so a refused document leaves nothing behind and needs
    no savepoint; any other exception aborts the whole transaction.
    """

    def __init__(self, db: WriteTarget, cur: sqlite3.Cursor) -> None:
        self.db = db
        self.cur = cur
        self.seq = int(cur.execute("SELECT value FROM meta WHERE key = 'update_seq'").fetchone()[0])
        self.doc_count_delta = 0
        self.del_count_delta = 0
        # (id, rev, seq, deleted) of each change; Database._notify makes the listeners' dicts.
        self.changes: list[tuple[str, str, int, bool]] = []
        self.dirty_digests: set[str] = set()
        self.rows: dict[str, DocRow | None] = {}
        self.touched: set[str] = set()
        # Rows to insert, flattened (``_insert_rows``): revs (doc_id, rev, deleted, body, crc), att_refs
        # (digest, doc_id, rev) and docs (id, rev_tree, winning_rev, deleted, seq). A document is in
        # docs at most once: one written again in the same call flushes first (``_begin_doc``).
        self.pending_revs: list[Any] = []
        self.pending_refs: list[Any] = []
        self.pending_docs: list[Any] = []
        # (doc_id, rev) of bodies to drop (stemmed, or past ``kept_bodies``), after the inserts.
        self.pending_drops: list[tuple[str, str]] = []

    def prefetch(self, doc_ids: Iterable[Any]) -> None:
        """Load the rows of these ids in a few queries (missing ids are remembered as None)."""
        # Ids in their given order, once each: SQLite looks them up faster in order than scattered.
        rows = self.rows
        wanted = [i for i in dict.fromkeys([i for i in doc_ids if isinstance(i, str)]) if i not in rows]
        for start in range(0, len(wanted), 500):
            chunk = wanted[start:start + 500]
            self.rows.update(dict.fromkeys(chunk))
            marks = ",".join("?" * len(chunk))
            for doc_id, tree_json, winner, deleted, seq, crc in self.cur.execute(
                f"SELECT id, rev_tree, winning_rev, deleted, seq, crc FROM docs WHERE id IN ({marks})", chunk
            ):
                self.rows[doc_id] = (checked_tree(self.db.path, doc_id, tree_json, winner, deleted, seq, crc),
                                     winner, bool(deleted), seq)

    def _begin_doc(self, doc_id: str) -> None:
        # A document written earlier in this call: make its pending rows visible to the reads below.
        if doc_id in self.touched:
            self.flush()

    # Interactive edits -------------------------------------------------------------------------

    def write_all_interactive(self, docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``write_interactive`` of each document, in order, with a fast path for new documents.

        Performance (bench/store_bench.py): most documents of a bulk write are new ones with a
        plain id and no ``_rev``, ``_deleted``, ``_attachments`` or other ``_`` field. For them,
        once the prefetch found no row and when there is no validator, every check of
        ``write_interactive`` is known to pass and the outcome is known: generation 1, a one-node
        tree, the same hash and rows. They are written here without the generic code; every other
        document goes through ``write_interactive``, exactly as before.
        """
        if self.db.validator is not None:
            return [self.write_interactive(doc) for doc in docs]
        results: list[dict[str, Any]] = []
        rows = self.rows
        touched = self.touched
        changes = self.changes
        pending_revs = self.pending_revs
        pending_docs = self.pending_docs
        seq = self.seq
        written = 0
        plain_names: dict[tuple[str, ...], bool] = {}
        for doc in docs:
            doc_id = doc.get("_id")
            # ``rows`` holds None only for an id the prefetch did not find and this call did not
            # write yet (a written id leaves ``rows``, to be read back from the table if it comes
            # again). Then the fields: "_id" must be the only one that starts with "_".
            if type(doc_id) is str and doc_id and doc_id[0] != "_" and rows.get(doc_id, _ABSENT) is None:
                # The documents of one call mostly share their field names: each tuple of names is
                # checked once.
                names = tuple(doc)
                plain = plain_names.get(names)
                if plain is None:
                    try:
                        plain = plain_names[names] = [n[:1] == "_" for n in names].count(True) == 1
                    except TypeError:  # a name that is not a string: write_interactive raises as before
                        plain = False
                if plain:
                    body = doc.copy()
                    del body["_id"]
                    body_json, raw = encode(body)
                    if raw is None:
                        raw = body_json.encode()
                    # _write_one's hash for a new live document without attachments.
                    new_hash = _sha1(b"\n0\n\n" + raw).hexdigest()[:32]
                    new_rev = "1-" + new_hash
                    seq += 1
                    written += 1
                    tree_json = NEW_TREE_HEAD + new_hash + NEW_TREE_TAIL
                    pending_revs += (doc_id, new_rev, 0, body_json, revs_crc(doc_id, new_rev, 0, raw))
                    pending_docs += (doc_id, tree_json, new_rev, 0, seq, docs_crc(doc_id, tree_json, new_rev, 0, seq))
                    del rows[doc_id]
                    touched.add(doc_id)
                    changes.append((doc_id, new_rev, seq, False))
                    results.append({"ok": True, "id": doc_id, "rev": new_rev})
                    continue
            self.seq = seq
            results.append(self.write_interactive(doc))
            seq = self.seq
        self.seq = seq
        self.doc_count_delta += written
        return results

    def write_interactive(self, doc: dict[str, Any]) -> dict[str, Any]:
        doc_id = doc.get("_id")
        if doc_id is None:
            doc_id = uuid.uuid4().hex
        try:
            body = checked_body(doc)
            validate_doc_id(doc_id)
            if doc_id.startswith(LOCAL_PREFIX):
                raise BadRequest("Use put_local for _local documents")
            if doc_id in self.touched:
                self.flush()  # see _begin_doc
            return self._write_one(doc_id, doc, body)
        except MissingStub:
            raise
        except StoreError as exc:
            return {"id": doc_id, "error": exc.error, "reason": exc.reason}

    def _write_one(self, doc_id: str, doc: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
        row = self.rows[doc_id] if doc_id in self.rows else self._doc_row(doc_id)
        given_rev = doc.get("_rev")
        deleted = bool(doc.get("_deleted"))
        if given_rev is not None:
            try:
                revtree.parse_rev(given_rev)
            except ValueError as exc:
                raise BadRequest("Invalid rev format") from exc
        if row is None:
            if given_rev is not None:
                raise Conflict()
            tree: revtree.Tree = []
            parent_rev = None
            old_doc = None
            new_pos = 1
        else:
            tree, winner, winner_deleted, _ = row
            if given_rev is None:
                if not winner_deleted:
                    raise Conflict()
                parent_rev = winner  # recreate on top of the winning tombstone
            else:
                found = revtree.find_node(tree, given_rev)
                if found is None or not found[1]:
                    raise Conflict()
                parent_rev = given_rev
            old_doc = self._old_doc(doc_id, parent_rev)
            new_pos = revtree.parse_rev(parent_rev)[0] + 1
        att_digests: list[str] = []
        blobs: list[tuple[str, bytes]] = []
        if "_attachments" in body:
            body, att_digests, blobs = self._resolve_attachments(body, old_doc, new_pos=None)
            if deleted and "_attachments" in body and not body["_attachments"]:
                del body["_attachments"]
            # revpos of attachments that came with data is the new generation, set before the
            # validator runs so that it sees revpos, not the internal ``_new`` marker.
            for meta in (body.get("_attachments") or {}).values():
                if meta.pop("_new", False):
                    meta["revpos"] = new_pos
        if self.db.validator is not None:
            new_doc = {"_id": doc_id, **body}
            if deleted:
                new_doc["_deleted"] = True
            self.db.validator(new_doc, None if (old_doc is None or old_doc.get("_deleted")) else old_doc)
        body_json, raw = encode(body)
        # The hash covers the parent rev, the deleted flag, the body and the attachment digests
        # (docs/protocol.md 1.2). Hashing the stored body text instead of a second, key-sorted
        # encoding saves one JSON encoding per write; identical edits still get identical revs.
        # SHA-1 cut to 128 bits rather than md5: the same 32 hex digits, at about 60% of the
        # cost of md5 for a 1 KB body (bench/store_bench.py). Revs are never recomputed, so revs
        # written with md5 by earlier versions stay valid.
        digests_text = " ".join(sorted(att_digests)) if att_digests else ""
        head = f"{parent_rev or ''}\n{int(deleted)}\n{digests_text}\n".encode()
        new_hash = _sha1(head + (raw if raw is not None else body_json.encode())).hexdigest()[:32]
        new_rev = f"{new_pos}-{new_hash}"
        if parent_rev is None:
            # A new document: its tree is this one revision (no merge, nothing to stem).
            self._apply_new(doc_id, new_hash, deleted, body_json, att_digests, blobs)
            return {"ok": True, "id": doc_id, "rev": new_rev}
        leaf_opts: dict[str, Any] = {"status": revtree.AVAILABLE}
        if deleted:
            leaf_opts["deleted"] = True
        ancestry = revtree.ancestry(tree, parent_rev)
        ids = [new_hash] + [node[0] for _, node in ancestry]
        path = revtree.path_to_branch(new_pos - len(ids) + 1, ids, leaf_opts)
        self._apply(doc_id, row, tree, path, new_rev, deleted, body_json, att_digests, blobs)
        return {"ok": True, "id": doc_id, "rev": new_rev}

    # Replicated writes -------------------------------------------------------------------------

    def write_replicated(self, doc: dict[str, Any],
                         revision: tuple[str, int, list[str]] | None = None) -> dict[str, Any] | None:
        """Merge one ``new_edits=False`` revision; ``revision`` is ``replicated_revision(doc)``
        when the caller has it already."""
        doc_id = doc["_id"]
        deleted = bool(doc.get("_deleted"))
        rev, start, ids = revision if revision is not None else replicated_revision(doc)
        if (start == 1 and self.db.validator is None and self.rows.get(doc_id, _ABSENT) is None
                and "_attachments" not in doc and ids[0] and not ids[0].strip(_HEX_DIGITS)):
            # Performance (bench/sync_bench.py): most revisions of a first pull are the first
            # of a document the store does not have. Then the merge result is the one-node
            # tree, nothing is validated or resolved, and the rows are those ``_apply_new``
            # writes for a new interactive document (its tree text needs a hex hash). ``rows``
            # holds None only for an id the prefetch did not find and this call did not write.
            body = {k: v for k, v in doc.items() if k[:1] != "_"}
            self._apply_new(doc_id, ids[0], deleted, dumps(body), [], [])
            return None
        pos_root = start - len(ids) + 1
        self._begin_doc(doc_id)
        row = self._doc_row(doc_id)
        tree = row[0] if row else []
        known_opts = _stored_opts(tree, rev) if tree else None
        if known_opts is not None:
            # The revision and its body are already here: the content is neither validated nor
            # written again, but the path still merges (couch_key_tree:merge, pouchdb-merge),
            # which grafts the ancestors it brings onto a shorter stored history. A revision the
            # tree knows only as an ancestor, without a body, is written below like a new one.
            self._graft_known(doc_id, row, tree, revtree.path_to_branch(pos_root, ids, known_opts))
            return None
        leaf_opts: dict[str, Any] = {"status": revtree.AVAILABLE}
        if deleted:
            leaf_opts["deleted"] = True
        path = revtree.path_to_branch(pos_root, ids, leaf_opts)
        # Nearest ancestor that still has a body: stubs resolve against it, validation sees it.
        ancestor_body = None
        for offset, ancestor_hash in enumerate(ids[1:], start=1):
            stored = self._body(doc_id, f"{start - offset}-{ancestor_hash}")
            if stored is not None:
                ancestor_body = stored
                break
        body = body_of(doc)
        body, att_digests, blobs = self._resolve_attachments(body, ancestor_body, new_pos=start, replicated=True)
        if self.db.validator is not None:
            new_doc = {"_id": doc_id, **body}
            if deleted:
                new_doc["_deleted"] = True
            try:
                self.db.validator(new_doc, ancestor_body)
            except StoreError as exc:
                return {"id": doc_id, "rev": rev, "error": exc.error, "reason": exc.reason}
        self._apply(doc_id, row, tree, path, rev, deleted, dumps(body), att_digests, blobs)
        return None

    # Shared --------------------------------------------------------------------------------

    def _doc_row(self, doc_id: str) -> DocRow | None:
        if doc_id not in self.rows:
            self.rows[doc_id] = Snapshot(self.cur.connection, self.db.path).doc_row(doc_id)
        return self.rows[doc_id]

    def _body(self, doc_id: str, rev: str) -> dict[str, Any] | None:
        stored = Snapshot(self.cur.connection, self.db.path).body(doc_id, rev)
        return None if stored is None else stored[0]

    def _old_doc(self, doc_id: str, rev: str) -> dict[str, Any] | None:
        stored = Snapshot(self.cur.connection, self.db.path).body(doc_id, rev)
        if stored is None:
            return None
        body, deleted = stored
        doc = {"_id": doc_id, "_rev": rev, **body}
        if deleted:
            doc["_deleted"] = True
        return doc

    def _resolve_attachments(
        self,
        body: dict[str, Any],
        parent: dict[str, Any] | None,
        new_pos: int | None,
        replicated: bool = False,
    ) -> tuple[dict[str, Any], list[str], list[tuple[str, bytes]]]:
        """Check and describe the attachments; return (body, digests, new blobs to store).

        Nothing is written here: the blobs are stored by ``_apply`` once the document passed every
        check, so a refused document leaves no attachment data behind, unreferenced.
        """
        atts = body.get("_attachments")
        if not atts:
            body.pop("_attachments", None)
            return body, [], []
        if not isinstance(atts, dict):
            raise BadRequest("_attachments must be an object")
        parent_atts = (parent or {}).get("_attachments") or {}
        stored: dict[str, Any] = {}
        digests: list[str] = []
        blobs: list[tuple[str, bytes]] = []
        for name, meta in atts.items():
            if not isinstance(meta, dict):
                raise BadRequest(f"Attachment {name!r} must be an object")
            if meta.get("stub"):
                known = parent_atts.get(name)
                # A replicated stub that carries revpos must match the ancestor's attachment of that
                # name (couch_att merge_stubs): a different revpos names other content, which the
                # ancestor's bytes must not silently replace.
                if known is not None and replicated and "revpos" in meta and known.get("revpos") != meta["revpos"]:
                    known = None
                by_digest = False
                if known is None and replicated:
                    known = self._stub_by_digest(meta.get("digest"), blobs)
                    by_digest = known is not None
                if known is None:
                    raise MissingStub(f"Attachment {name!r} is a stub but no earlier revision has it")
                entry = {k: v for k, v in known.items() if k not in ("stub", "data")}
                # Content found by digest has no metadata of its own: the stub's content_type stands
                # (not application/octet-stream).
                if by_digest and isinstance(meta.get("content_type"), str):
                    entry["content_type"] = meta["content_type"]
                if replicated and "revpos" in meta:
                    entry["revpos"] = meta["revpos"]
                stored[name] = entry
                digests.append(entry["digest"])
                continue
            data_b64 = meta.get("data")
            if not isinstance(data_b64, str):
                raise BadRequest(f"Attachment {name!r} needs base64 `data` or `stub: true`")
            try:
                data = base64.b64decode(data_b64, validate=True)
            except (ValueError, TypeError) as exc:
                raise BadRequest(f"Attachment {name!r} data is not valid base64") from exc
            digest = attachment_digest(data)
            blobs.append((digest, data))
            entry = {
                "content_type": meta.get("content_type") or "application/octet-stream",
                "digest": digest,
                "length": len(data),
            }
            if replicated:
                entry["revpos"] = meta.get("revpos") or new_pos or 1
            else:
                entry["_new"] = True
            stored[name] = entry
            digests.append(digest)
        body["_attachments"] = stored
        return body, digests, blobs

    def _stub_by_digest(self, digest: Any, blobs: list[tuple[str, bytes]]) -> dict[str, Any] | None:
        if not isinstance(digest, str):
            return None
        for known_digest, data in blobs:  # data that came with this same document
            if known_digest == digest:
                return {"digest": digest, "length": len(data), "content_type": "application/octet-stream"}
        row = self.cur.execute("SELECT length FROM attachments WHERE digest = ?", (digest,)).fetchone()
        if row is None:
            return None
        return {"digest": digest, "length": row[0], "content_type": "application/octet-stream"}

    def _apply(  # noqa: PLR0917 - one write's merge state, handed down from _write_one
        self,
        doc_id: str,
        row: DocRow | None,
        tree: revtree.Tree,
        path: revtree.Branch,
        new_rev: str,
        deleted: bool,
        body_json: str,
        att_digests: list[str],
        blobs: list[tuple[str, bytes]],
    ) -> None:
        if not tree and not path["ids"][2]:
            # A new document with a one-revision path: the merge result is the path itself.
            new_tree: revtree.Tree = [path]
            stemmed: list[str] = []
            winner = revtree.Leaf(path["pos"], path["ids"][0], deleted)
        else:
            new_tree, _, stemmed = revtree.merge(tree, path, self.db.revs_limit)
            stemmed += revtree.prune_bodies(new_tree, self.db.kept_bodies)
            winner = revtree.winning_leaf(new_tree)
        for digest, data in blobs:
            self.cur.execute("INSERT OR IGNORE INTO attachments VALUES (?, ?, ?)", (digest, data, len(data)))
        self.pending_revs += (doc_id, new_rev, int(deleted), body_json,
                              revs_crc(doc_id, new_rev, int(deleted), body_json))
        for digest in set(att_digests):
            self.pending_refs += (digest, doc_id, new_rev)
        self._store_tree(doc_id, row, new_tree, stemmed, winner)

    def _graft_known(self, doc_id: str, row: DocRow | None, tree: revtree.Tree, path: revtree.Branch) -> None:
        """Merge the path of a revision whose body is stored; a no-op unless the tree changes.

        The path's leaf carries the stored node's opts, so the merge writes no body: it adds the
        ancestors and links the tree lacked, and stemming then drops what the longer paths push
        past the limit (revisions that still had a body among them).
        """
        new_tree, _, stemmed = revtree.merge(tree, path, self.db.revs_limit)
        if revtree.same_tree(new_tree, tree):
            return  # nothing new: no seq, no change row, no notification
        stemmed += revtree.prune_bodies(new_tree, self.db.kept_bodies)
        self._store_tree(doc_id, row, new_tree, stemmed, revtree.winning_leaf(new_tree))

    def _store_tree(
        self, doc_id: str, row: DocRow | None, new_tree: revtree.Tree, stemmed: list[str], winner: revtree.Leaf
    ) -> None:
        """Write a document's new tree with a new seq, and drop the bodies stemming cut from it
        or that are no longer among the newest revisions kept with a body (``kept_bodies``)."""
        if stemmed:
            self.pending_drops += ((doc_id, gone) for gone in stemmed)
        self.seq += 1
        was_live = row is not None and not row[2]
        is_live = not winner.deleted
        if row is None:
            self.doc_count_delta += int(is_live)
            self.del_count_delta += int(not is_live)
        elif was_live != is_live:
            self.doc_count_delta += 1 if is_live else -1
            self.del_count_delta += -1 if is_live else 1
        self.rows[doc_id] = (new_tree, winner.rev, winner.deleted, self.seq)
        self.touched.add(doc_id)
        tree_json = encode_tree(new_tree)
        self.pending_docs += (doc_id, tree_json, winner.rev, int(winner.deleted), self.seq,
                              docs_crc(doc_id, tree_json, winner.rev, int(winner.deleted), self.seq))
        self.changes.append((doc_id, winner.rev, self.seq, winner.deleted))

    def _drop_bodies(self, pairs: list[tuple[str, str]]) -> None:
        """Delete the bodies and attachment references of these ``(doc_id, rev)`` (data nobody
        references any more goes in ``finish``). Performance: a document edited past
        ``kept_bodies`` drops one body per write, so the drops of a call go together; each
        DELETE is a primary-key lookup (a row-value ``IN (VALUES ...)`` would scan the table)."""
        self.cur.executemany("DELETE FROM revs WHERE doc_id = ? AND rev = ?", pairs)
        wanted = set(pairs)
        doc_ids = list({doc_id for doc_id, _ in pairs})
        for start in range(0, len(doc_ids), 500):
            chunk = doc_ids[start:start + 500]
            marks = ",".join("?" * len(chunk))
            for digest, doc_id, rev in self.cur.execute(
                f"SELECT digest, doc_id, rev FROM att_refs WHERE doc_id IN ({marks})", chunk
            ).fetchall():
                if (doc_id, rev) in wanted:
                    self.dirty_digests.add(digest)
        self.cur.executemany("DELETE FROM att_refs WHERE doc_id = ? AND rev = ?", pairs)

    def compact(self, doc_ids: list[str]) -> int:
        """Apply ``kept_bodies`` to these documents' trees; returns the bodies dropped.

        Only the bodies and the trees' statuses change: no seq, no change row (as CouchDB's
        compaction), so replication and the session's feed see nothing.
        """
        dropped = 0
        marks = ",".join("?" * len(doc_ids))
        rows = self.cur.execute(f"SELECT id, rev_tree, winning_rev, deleted, seq, crc FROM docs WHERE id IN ({marks})",
                                doc_ids).fetchall()
        for doc_id, tree_json, winner, deleted, seq, crc in rows:
            tree = checked_tree(self.db.path, doc_id, tree_json, winner, deleted, seq, crc)
            gone = revtree.prune_bodies(tree, self.db.kept_bodies)
            if gone:
                tree_json = encode_tree(tree)
                self.cur.execute("UPDATE docs SET rev_tree = ?, crc = ? WHERE id = ?",
                                 (tree_json, docs_crc(doc_id, tree_json, winner, deleted, seq), doc_id))
                self.pending_drops += ((doc_id, rev) for rev in gone)
                dropped += len(gone)
        return dropped

    def _apply_new(
        self,
        doc_id: str,
        new_hash: str,
        deleted: bool,
        body_json: str,
        att_digests: list[str],
        blobs: list[tuple[str, bytes]],
    ) -> None:
        """``_apply`` for a document that did not exist: a one-node tree, written without a merge."""
        opts: dict[str, Any] = {"status": revtree.AVAILABLE}
        if deleted:
            opts["deleted"] = True
        new_rev = f"1-{new_hash}"
        for digest, data in blobs:
            self.cur.execute("INSERT OR IGNORE INTO attachments VALUES (?, ?, ?)", (digest, data, len(data)))
        self.pending_revs += (doc_id, new_rev, int(deleted), body_json,
                              revs_crc(doc_id, new_rev, int(deleted), body_json))
        for digest in set(att_digests):
            self.pending_refs += (digest, doc_id, new_rev)
        self.seq += 1
        if deleted:
            self.del_count_delta += 1
        else:
            self.doc_count_delta += 1
        # new_hash is 32 hex characters, so the tree's JSON can be written directly.
        tree_json = NEW_TREE_DELETED if deleted else NEW_TREE_LIVE
        self.rows[doc_id] = ([{"pos": 1, "ids": [new_hash, opts, []]}], new_rev, deleted, self.seq)
        self.touched.add(doc_id)
        tree_json = tree_json % new_hash
        self.pending_docs += (doc_id, tree_json, new_rev, int(deleted), self.seq,
                              docs_crc(doc_id, tree_json, new_rev, int(deleted), self.seq))
        self.changes.append((doc_id, new_rev, self.seq, deleted))

    def flush(self) -> None:
        """Write the collected rows."""
        # The lists are emptied in place: write_all_interactive holds on to them.
        if self.pending_revs:
            _insert_rows(self.cur, "INSERT OR REPLACE INTO revs (doc_id, rev, deleted, body, crc)", 5,
                         self.pending_revs)
            self.pending_revs.clear()
        if self.pending_refs:
            _insert_rows(self.cur, "INSERT OR IGNORE INTO att_refs", 3, self.pending_refs)
            self.pending_refs.clear()
        if self.pending_docs:
            _insert_rows(self.cur, "INSERT OR REPLACE INTO docs (id, rev_tree, winning_rev, deleted, seq, crc)", 6,
                         self.pending_docs)
            self.pending_docs.clear()
        if self.pending_drops:
            self._drop_bodies(self.pending_drops)
            self.pending_drops.clear()
        self.touched.clear()

    def finish(self) -> None:
        self.flush()
        for digest in self.dirty_digests:
            still = self.cur.execute("SELECT 1 FROM att_refs WHERE digest = ? LIMIT 1", (digest,)).fetchone()
            if still is None:
                self.cur.execute("DELETE FROM attachments WHERE digest = ?", (digest,))
        if not self.changes:
            return
        self.cur.execute("UPDATE meta SET value = ? WHERE key = 'update_seq'", (str(self.seq),))
        if self.doc_count_delta:
            self.cur.execute(
                "UPDATE meta SET value = CAST(value AS INTEGER) + ? WHERE key = 'doc_count'", (self.doc_count_delta,)
            )
        if self.del_count_delta:
            self.cur.execute(
                "UPDATE meta SET value = CAST(value AS INTEGER) + ? WHERE key = 'doc_del_count'",
                (self.del_count_delta,),
            )
