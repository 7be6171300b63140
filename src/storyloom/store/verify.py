"""The store's check of itself: ``verify(db)`` reads every row and lists what is damaged.

Run by ``storyloom check`` before the project's own problems. It looks at what ordinary reads
look at (checksums, decoding, attachment digests) and at what they trust: SQLite's page
structure (``PRAGMA integrity_check``), revision trees that agree with their winner and bodies,
attachment references, and the counters in ``meta``. One snapshot, one document at a time:
memory stays flat at any size.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from storyloom.store import revtree
from storyloom.store.errors import Damaged, damaged_item
from storyloom.store.integrity import (
    check_attachment,
    checked_body,
    checked_local,
    checked_tree,
    is_utf8,
    lenient_reading,
    translate,
)

if TYPE_CHECKING:
    from storyloom.store.database import Database

# integrity_check stops after this many messages: enough to say the file is damaged and where.
_SQLITE_MESSAGES = 20


@dataclass(frozen=True)
class Damage:
    """One damaged thing: a document (``doc_id``), one of its attachments (``attachment``), or the
    store file as a whole (neither)."""

    doc_id: str | None
    attachment: str | None
    detail: str

    @classmethod
    def of(cls, error: Damaged) -> Damage:
        return cls(error.doc_id, error.attachment, error.detail)

    def __str__(self) -> str:
        return f"{damaged_item(self.doc_id, self.attachment)}: {self.detail}"


def verify(db: Database, progress: Callable[[int, int], None] | None = None) -> list[Damage]:
    """Everything damaged in ``db``, in the order found (the store file, then documents by id,
    then attachments); an empty list when every row reads back as written. ``progress`` gets
    (documents done, documents in all)."""
    found: list[Damage] = []
    try:
        with db.snapshot() as snap, lenient_reading(snap.conn) as conn:  # broken text is named, not a stop
            found += _sqlite_structure(conn)
            found += _documents(db.path, conn, progress)
            found += _orphans(conn)
            found += _local_documents(db.path, conn)
    except Damaged as error:  # SQLite could not even walk a table: name what stopped it
        found.append(Damage.of(error))
    except sqlite3.DatabaseError as exc:
        named = translate(exc, db.path, writing=False)
        if not isinstance(named, Damaged):
            raise (named or exc) from None
        found.append(Damage.of(named))
    return list(dict.fromkeys(found))


def _sqlite_structure(conn: sqlite3.Connection) -> list[Damage]:
    rows = [row[0] for row in conn.execute(f"PRAGMA integrity_check({_SQLITE_MESSAGES})")]
    if rows == ["ok"]:
        return []
    return [Damage(None, None, f"SQLite: {message}") for message in rows]


def _documents(store: str, conn: sqlite3.Connection, progress: Callable[[int, int], None] | None) -> list[Damage]:
    found: list[Damage] = []
    total = conn.execute("SELECT COUNT(*) FROM docs").fetchone()[0]
    live = dead = top_seq = 0
    # digest -> the first (document, attachment name) that refers to it, to name damaged data
    users: dict[str, tuple[str, str]] = {}
    done = 0
    for doc_id, tree_json, winner, deleted, seq, crc in conn.execute(
            "SELECT id, rev_tree, winning_rev, deleted, seq, crc FROM docs ORDER BY id"):
        done += 1
        if progress is not None and done % 1000 == 0:
            progress(done, total)
        top_seq = max(top_seq, seq if isinstance(seq, int) else 0)
        if deleted:
            dead += 1
        else:
            live += 1
        if not is_utf8(doc_id):
            found.append(Damage(doc_id, None, "its id is not valid UTF-8"))
            continue
        try:
            tree = checked_tree(store, doc_id, tree_json, winner, deleted, seq, crc)
            _check_tree(store, doc_id, tree, winner, deleted)
            for detail in _check_revisions(store, conn, doc_id, tree, winner, users):
                found.append(Damage(doc_id, None, detail))
        except Damaged as error:
            found.append(Damage.of(error))
    if progress is not None:
        progress(done, total)
    found += _attachments(store, conn, users)
    found += _counters(conn, live, dead, top_seq)
    return found


def _orphans(conn: sqlite3.Connection) -> Iterator[Damage]:
    """Bodies whose document row is gone (their ``doc_id`` changed under a flipped bit)."""
    for doc_id, rev in conn.execute(
            "SELECT r.doc_id, r.rev FROM revs r LEFT JOIN docs d ON d.id = r.doc_id WHERE d.id IS NULL"):
        yield Damage(doc_id, None, f"revision {rev} belongs to no document")


def _check_tree(store: str, doc_id: str, tree: revtree.Tree, winner: str, deleted: int) -> None:
    try:
        leaf = revtree.winning_leaf(tree)
    except (ValueError, TypeError, IndexError, KeyError, AttributeError) as exc:
        raise Damaged(store, doc_id=doc_id, detail=f"its revision tree is malformed ({type(exc).__name__})") from None
    if leaf.rev != winner or bool(leaf.deleted) != bool(deleted):
        raise Damaged(store, doc_id=doc_id, detail="its revision tree disagrees with its recorded winner")


def _check_revisions(store: str, conn: sqlite3.Connection, doc_id: str, tree: revtree.Tree, winner: str,
                     users: dict[str, tuple[str, str]]) -> Iterator[str]:
    """What is wrong with the stored bodies of one document (decoding, checksums, the winner's
    body present, attachment references); records who uses each attachment in ``users``."""
    kept: set[str] = set()
    wanted_refs: set[tuple[str, str]] = set()
    for rev, rev_deleted, body, crc in conn.execute(
            "SELECT rev, deleted, body, crc FROM revs WHERE doc_id = ?", (doc_id,)):
        kept.add(rev)
        try:
            decoded = checked_body(store, doc_id, rev, rev_deleted, body, crc)
        except Damaged as error:
            yield error.detail
            continue
        attachments = decoded.get("_attachments") or {}
        if not isinstance(attachments, dict):
            yield f"revision {rev} has malformed attachment records"
            continue
        for name, meta in attachments.items():
            digest = meta.get("digest") if isinstance(meta, dict) else None
            if not isinstance(digest, str):
                yield f"attachment {name!r} of revision {rev} has no digest"
                continue
            wanted_refs.add((digest, rev))
            users.setdefault(digest, (doc_id, name))
    if winner not in kept:
        yield f"the body of its winning revision {winner} is missing"
    refs = set(conn.execute("SELECT digest, rev FROM att_refs WHERE doc_id = ?", (doc_id,)).fetchall())
    if wanted_refs - refs:
        yield "its attachments' references are missing (their data may be removed by a later write)"


def _attachments(store: str, conn: sqlite3.Connection, users: dict[str, tuple[str, str]]) -> Iterator[Damage]:
    present: set[str] = set()
    for digest, data, length in conn.execute("SELECT digest, data, length FROM attachments"):
        present.add(digest)
        doc_id, name = users.get(digest, (None, None))
        try:
            check_attachment(store, doc_id, name, str(digest), data, length)
        except Damaged as error:
            yield Damage(doc_id, name, error.detail if doc_id else f"attachment data {digest}: {error.detail}")
    for digest, (doc_id, name) in users.items():
        if digest not in present:
            yield Damage(doc_id, name, "its data is missing")


def _counters(conn: sqlite3.Connection, live: int, dead: int, top_seq: int) -> list[Damage]:
    meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    found: list[Damage] = []

    def number(key: str) -> int | None:
        try:
            return int(meta.get(key, ""))
        except ValueError:
            found.append(Damage(None, None, f"its {key} counter is not a number"))
            return None

    if number("doc_count") not in (None, live):
        found.append(Damage(None, None, f"its document count says {meta['doc_count']} where {live} are live"))
    if number("doc_del_count") not in (None, dead):
        found.append(Damage(None, None, f"its deleted count says {meta['doc_del_count']} where {dead} are deleted"))
    update_seq = number("update_seq")
    if update_seq is not None and update_seq < top_seq:
        found.append(Damage(None, None, f"its update sequence {update_seq} is behind its newest change {top_seq}"))
    for key in ("revs_limit", "kept_bodies"):
        if key in meta and (value := number(key)) is not None and value < 1:
            found.append(Damage(None, None, f"its {key} setting is {value}"))
    uuid = meta.get("instance_uuid", "")
    if len(uuid) != 32 or any(c not in "0123456789abcdef" for c in uuid):
        found.append(Damage(None, None, "its instance id is malformed"))
    return found


def _local_documents(store: str, conn: sqlite3.Connection) -> Iterator[Damage]:
    for key, rev, body, crc in conn.execute("SELECT id, rev, body, crc FROM local_docs"):
        try:
            checked_local(store, key, rev, body, crc)
        except Damaged as error:
            yield Damage.of(error)
