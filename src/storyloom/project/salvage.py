"""The way back from a damaged store: everything that still reads, copied into a new project.

``salvage(manager, project, new_name)`` walks the damaged store one document at a time. A
document whose every leaf reads is copied with its revision history as it is (``new_edits``
false, as replication copies), so a later sync with the team's server sees the same revisions.
A leaf that does not read is left out and named; a document whose attachment does not match its
digest is copied without that attachment as a new revision (its revision id must not claim
bytes it lacks). Replication checkpoints are not copied: the salvaged project's first sync reads
the server's whole history, which refills what the damage took.
"""

from __future__ import annotations

import base64
import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from storyloom.progress import ProgressCallback, reporter
from storyloom.project.editor import WriteIntent
from storyloom.project.settings import default_settings
from storyloom.store import Damaged, Database, NotFound, StoreError
from storyloom.store.integrity import is_utf8, lenient_reading

if TYPE_CHECKING:
    from storyloom.project.manager import Project, ProjectInfo, ProjectManager

# Local documents that hold a person's own state on this machine (copied); the others are
# replication checkpoints (left behind on purpose, see the module's docstring).
_KEPT_LOCAL_PREFIXES = ("storyloom-", "live-state")
_BATCH = 200


@dataclass
class SalvageReport:
    """What a salvage copied and what it could not read (one line per loss, naming it)."""

    copied: int = 0
    lost: list[str] = field(default_factory=list)
    rewritten: list[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return not self.lost and not self.rewritten


def salvage_project(manager: ProjectManager, name_or_id: str, new_name: str, *,
                    progress: ProgressCallback | None = None) -> tuple[Project, SalvageReport]:
    """A new project with every readable document of the damaged project ``name_or_id`` of
    ``manager``; the damaged project is left as it is."""
    return salvage(manager, manager.find(name_or_id), new_name, progress)


def salvage(manager: ProjectManager, info: ProjectInfo, new_name: str,
            progress: ProgressCallback | None = None) -> tuple[Project, SalvageReport]:
    """A new project named ``new_name`` (a new project id) holding every readable document of
    the project ``info``, and the report of what was left out."""
    new_name = manager.check_new_name(new_name)
    report = SalvageReport()
    try:
        source = Database(str(info.path / "store.sqlite3"), create=False)
    except Damaged as exc:
        report.lost.append(f"the whole store: {exc.detail or exc}")
        source = None
    ids = [] if source is None else list(_document_ids(source, report))
    step = reporter(progress, "salvage", len(ids))
    step.set_detail("copying what reads")
    try:
        with manager.staging(name=new_name) as project:
            pending: list[dict[str, Any]] = []
            for doc_id in ids:
                assert source is not None
                pending += _readable_revisions(source, project, doc_id, report)
                if len(pending) >= _BATCH:
                    _write(project, pending)
                    pending.clear()
                step.advance()
            _write(project, pending)
            if source is not None:
                _copy_local_documents(source, project, report)
            _settle_settings(project, new_name, report)
            step.set_detail("indexing")
    finally:
        if source is not None:
            source.close()
    step.finish()
    return project, report


def _document_ids(db: Database, report: SalvageReport) -> Iterator[str]:
    """Every document id the ``docs`` table still yields, in rowid slices; a slice SQLite cannot
    read is stepped over row by row, so one damaged page loses only its own rows."""
    with db.snapshot() as snap, lenient_reading(snap.conn) as conn:
        top = _scalar(conn, "SELECT max(rowid) FROM docs") or 0
        rowid = 0
        while rowid < top:
            try:
                rows = conn.execute("SELECT rowid, id FROM docs WHERE rowid > ? ORDER BY rowid LIMIT 500",
                                    (rowid,)).fetchall()
            except sqlite3.DatabaseError:
                rows = _one_by_one(conn, rowid, min(top, rowid + 500), report)
                rowid = min(top, rowid + 500)
            else:
                if not rows:
                    break
                rowid = rows[-1][0]
            for _, doc_id in rows:
                if is_utf8(doc_id):
                    yield doc_id
                else:
                    report.lost.append(f"a document whose id is damaged ({doc_id!r})")


def _one_by_one(conn: sqlite3.Connection, after: int, until: int, report: SalvageReport) -> list[tuple[int, str]]:
    rows: list[tuple[int, str]] = []
    unread = 0
    for rowid in range(after + 1, until + 1):
        try:
            row = conn.execute("SELECT rowid, id FROM docs WHERE rowid = ?", (rowid,)).fetchone()
        except sqlite3.DatabaseError:
            unread += 1
            continue
        if row is not None:
            rows.append(row)
    if unread:
        report.lost.append(f"{unread} document row(s) on a damaged page of the store (ids unknown)")
    return rows


def _scalar(conn: sqlite3.Connection, sql: str) -> Any:
    try:
        row = conn.execute(sql).fetchone()
    except sqlite3.DatabaseError:
        return None
    return None if row is None else row[0]


def _readable_revisions(source: Database, project: Project, doc_id: str, report: SalvageReport) -> list[dict[str, Any]]:
    """The leaves of ``doc_id`` that read whole, with their history, ready for a
    ``new_edits=False`` write; what does not read goes into ``report``."""
    try:
        leaves = source.get(doc_id, open_revs="all", revs=True, attachments=True)
    except NotFound:
        return []
    except Damaged as exc:
        return _leaves_one_by_one(source, project, doc_id, exc, report)
    docs = [entry["ok"] for entry in leaves if "ok" in entry]
    for entry in leaves:
        if "missing" in entry:
            report.lost.append(f"document {doc_id!r}: revision {entry['missing']} has no body")
    report.copied += bool(docs)
    return docs


def _leaves_one_by_one(source: Database, project: Project, doc_id: str, first: Damaged,
                       report: SalvageReport) -> list[dict[str, Any]]:
    """A damaged document: each leaf on its own; a leaf whose attachment is damaged is copied
    without it, as a new revision."""
    try:
        tree_leaves = source.get(doc_id, open_revs="all", revs=False, attachments=False)
    except (Damaged, StoreError):
        return _unchecked_copy(source, project, doc_id, first, report)
    out: list[dict[str, Any]] = []
    for entry in tree_leaves:
        if "ok" not in entry:
            continue
        rev = entry["ok"]["_rev"]
        try:
            out.append(source.get(doc_id, rev=rev, revs=True, attachments=True))
            continue
        except Damaged as exc:
            if exc.attachment is None:
                return _unchecked_copy(source, project, doc_id, exc, report)
        rebuilt = _without_damaged_attachments(source, entry["ok"], report)
        if rebuilt is not None:
            project.store.bulk_docs([rebuilt])
            report.rewritten.append(f"document {doc_id!r}: copied as a new revision without its damaged "
                                    "attachment(s)")
    if out or any("ok" in e for e in tree_leaves):
        report.copied += 1
    return out


def _unchecked_copy(source: Database, project: Project, doc_id: str, damage: Damaged,
                    report: SalvageReport) -> list[dict[str, Any]]:
    """A document whose winning body fails its checksum but still decodes: one flipped bit
    in a long script should not cost the writer the whole script. Its text is copied as a new
    document revision and named for review; one that does not decode is lost and named."""
    body = _unchecked_body(source, doc_id)
    if body is None:
        report.lost.append(f"document {doc_id!r}: {damage.detail or damage}")
        return []
    body.pop("_attachments", None)  # their records are part of what may be damaged
    project.store.bulk_docs([{**body, "_id": doc_id}])
    report.copied += 1
    report.rewritten.append(f"document {doc_id!r}: copied from a damaged revision ({damage.detail}); "
                            "its text may hold a damaged character: review it")
    return []


def _unchecked_body(source: Database, doc_id: str) -> dict[str, Any] | None:
    """The winning body of ``doc_id`` as stored, without its checksum (None when it does not
    decode to an object, or the rows cannot be read)."""
    try:
        with source.snapshot() as snap, lenient_reading(snap.conn) as conn:
            row = conn.execute("SELECT r.body FROM docs d JOIN revs r ON r.doc_id = d.id AND "
                               "r.rev = d.winning_rev WHERE d.id = ?", (doc_id,)).fetchone()
            if row is None:  # the tree's winner is what is damaged: the longest kept body
                row = conn.execute("SELECT body FROM revs WHERE doc_id = ? AND deleted = 0 "
                                   "ORDER BY CAST(rev AS INTEGER) DESC LIMIT 1", (doc_id,)).fetchone()
    except (sqlite3.DatabaseError, StoreError):
        return None
    if row is None:
        return None
    try:
        body = json.loads(row[0])
    except (ValueError, RecursionError):
        return None
    return body if isinstance(body, dict) else None


def _without_damaged_attachments(source: Database, doc: dict[str, Any], report: SalvageReport) -> dict[str, Any] | None:
    kept: dict[str, Any] = {}
    for name, meta in (doc.get("_attachments") or {}).items():
        try:
            data = source.get_attachment(doc["_id"], name, rev=doc["_rev"])
        except Damaged as exc:
            report.lost.append(f"attachment {name!r} of document {doc['_id']!r}: {exc.detail}")
            continue
        kept[name] = {"content_type": meta.get("content_type", "application/octet-stream"),
                      "data": base64.b64encode(data).decode()}
    fresh = {k: v for k, v in doc.items() if k not in ("_rev", "_attachments", "_revisions")}
    if kept:
        fresh["_attachments"] = kept
    return fresh


def _write(project: Project, docs: list[dict[str, Any]]) -> None:
    if docs:
        project.store.bulk_docs(docs, new_edits=False)


def _copy_local_documents(source: Database, project: Project, report: SalvageReport) -> None:
    try:
        rows = source.local_docs(include_docs=False)["rows"]
    except (Damaged, sqlite3.DatabaseError):
        report.lost.append("this machine's local state (open tabs, live state, notices)")
        return
    for row in rows:
        key = row["id"].removeprefix("_local/")
        if not key.startswith(_KEPT_LOCAL_PREFIXES):
            continue
        try:
            doc = source.get_local(row["id"])
        except Damaged as exc:
            report.lost.append(f"{row['id']}: {exc.detail}")
            continue
        doc.pop("_rev", None)
        project.store.put_local(doc)


def _settle_settings(project: Project, name: str, report: SalvageReport) -> None:
    """The copy's own identity: a new project id and its name; default settings when the old
    ones did not read."""
    try:
        current = project.settings()
    except NotFound:
        report.lost.append("the project settings (the copy starts from default settings)")
        project.editor.create_settings(default_settings(name, "", project_id=project.id))
        return
    changes = {key: value for key, value in (("projectName", name), ("projectId", project.id))
               if current.get(key) != value}
    if changes:
        project.editor.update_settings(changes, intent=WriteIntent.RESTORE)
