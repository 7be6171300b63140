"""A document's history as the info drawer shows it: who created and last changed it, its
revisions (the bodies the store still keeps), a field-level diff of any two revisions (text
fields line by line, with ``difflib``), and restoring an old revision through the editor gate.

The store keeps the bodies of the newest 20 revisions of every path of a document
(``Database.set_kept_bodies``); older revisions keep only their place in the history, and are
counted here as ``older`` rather than listed. Qt-free: the drawer in ``storyloom.gui.info_drawer``
only shows what these functions return.
"""

from __future__ import annotations

import copy
import difflib
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from storyloom.errors import StoryloomError
from storyloom.project.dates import DateFormatError, parse_date
from storyloom.project.editor import Editor, WriteResult
from storyloom.project.locks import LOCK_FIELDS
from storyloom.project.merge import STAMP_FIELDS, text_fields
from storyloom.store import NotFound

#: How many revisions with a body the drawer lists, newest first.
MAX_REVISIONS = 15
#: Fields a diff and a restore leave out: the stamps of the last edit, the lock (it changes
#: only by locking) and the creation stamps (they never change).
NOT_COMPARED: tuple[str, ...] = (*STAMP_FIELDS, *LOCK_FIELDS, "created", "createdBy")
#: A Script's line table (storyloom.project.line_ids), left out of diffs like the stamps.
LINE_TABLE = "content.lineIds"
#: Where a document sits in its tree: a restore keeps the current place.
PLACEMENT: tuple[str, ...] = ("parent", "sortKey")

#: Words for the fields writers see (dotted paths); anything else shows its path.
FIELD_LABELS: dict[str, str] = {
    "name": "Name", "projectName": "Project name", "color": "Colour", "comments": "Comments",
    "parent": "Folder", "sortKey": "Position", "tags": "Tags",
    "content.script": "Script", "content.gdd": "Text", "content.bio": "Bio",
    "content.properties": "Properties", "content.conditions": "Conditions", "content.notes": "Notes",
    "content.item": "Item", "content.variables": "Variables", "content.scenario": "Scenario",
    "content.language": "Language", "_attachments": "Files", "_deleted": "Deleted",
}


class RevisionNotKept(StoryloomError):
    """The revision's body is no longer kept (only its place in the history is)."""

    code = "revision_not_kept"


def field_label(path: str) -> str:
    """The words for a dotted field path (``content.script`` is "Script")."""
    return FIELD_LABELS.get(path, path)


# -- times and people ------------------------------------------------------------------------


def parse_time(value: Any) -> datetime | None:
    """A stored timestamp as an aware UTC datetime, ``None`` when it is missing or no date."""
    if value is None:
        return None
    try:
        return parse_date(value)
    except DateFormatError:
        return None


def when_text(value: Any, now: datetime | None = None) -> str:
    """A timestamp as people say it: "just now", "5 minutes ago", "today 14:02", "yesterday
    09:15", "Mar 3 14:02", "Mar 3, 2024"; "unknown time" when there is none."""
    moment = value if isinstance(value, datetime) else parse_time(value)
    if moment is None:
        return "unknown time"
    now = now or datetime.now(UTC)
    seconds = (now - moment).total_seconds()
    if -60 < seconds < 60:
        return "just now"
    if 0 < seconds < 3600:
        minutes = int(seconds // 60)
        return f"{minutes} minute{'s' if minutes != 1 else ''} ago"
    local, today = moment.astimezone(), now.astimezone()
    if local.date() == today.date():
        return f"today {local:%H:%M}"
    if (today.date() - local.date()).days == 1:
        return f"yesterday {local:%H:%M}"
    if local.year == today.year:
        return f"{local:%b} {local.day} {local:%H:%M}"
    return f"{local:%b} {local.day}, {local.year}"


def exact_time(value: Any) -> str:
    """A timestamp in full, local time (for tooltips); "" when there is none."""
    moment = parse_time(value)
    return "" if moment is None else f"{moment.astimezone():%Y-%m-%d %H:%M:%S}"


@dataclass(frozen=True)
class DocumentInfo:
    """Who created a document and when, who changed it last and when (``None`` when unknown)."""

    created: str | None
    created_by: str | None
    modified: str | None
    modified_by: str | None

    def created_text(self, now: datetime | None = None) -> str:
        return _stamp_text(self.created, self.created_by, now)

    def modified_text(self, now: datetime | None = None) -> str:
        return _stamp_text(self.modified, self.modified_by, now)


def _stamp_text(when: str | None, who: str | None, now: datetime | None) -> str:
    if when is None and who is None:
        return "not recorded"
    return f"{when_text(when, now)} by {who}" if who else when_text(when, now)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def document_info(doc: dict[str, Any]) -> DocumentInfo:
    """The creation and last-edit stamps of ``doc``."""
    return DocumentInfo(_text(doc.get("created")), _text(doc.get("createdBy")), _text(doc.get("modified")),
                        _text(doc.get("modifiedBy")))


# -- the revision list -----------------------------------------------------------------------


@dataclass(frozen=True)
class Revision:
    """One revision of the document's current path, newest first. ``doc`` is its body when
    the store keeps it (``None`` otherwise); ``summary`` says what it changed from the revision
    before it, in words ("Script, Name", "Locked by ann"), when both bodies are kept."""

    rev: str
    number: int
    current: bool
    deleted: bool
    author: str | None
    time: str | None
    doc: dict[str, Any] | None
    summary: str

    @property
    def kept(self) -> bool:
        return self.doc is not None


@dataclass(frozen=True)
class RevisionList:
    """The newest revisions with a body (at most :data:`MAX_REVISIONS`), newest first, and how
    many ``older`` ones the history still names (``without_body`` of them lost their body)."""

    doc_id: str
    revisions: list[Revision]
    older: int
    without_body: int


def list_revisions(db: Any, doc_id: str, limit: int = MAX_REVISIONS) -> RevisionList:
    """The revisions of ``doc_id``'s winning path whose bodies are kept, newest first (raises
    ``NotFound`` for a missing or deleted document)."""
    current = db.get(doc_id, revs_info=True)
    path = current.get("_revs_info") or [{"rev": current["_rev"], "status": "available"}]
    bodies: list[tuple[str, dict[str, Any] | None, str]] = []
    for entry in path:
        rev, status = entry["rev"], entry["status"]
        doc: dict[str, Any] | None = None
        if status == "available":
            try:
                doc = db.get(doc_id, rev=rev)
            except NotFound:  # dropped between the two reads
                doc = None
        bodies.append((rev, doc, status))
    kept = [(i, rev, doc, status) for i, (rev, doc, status) in enumerate(bodies)
            if doc is not None or status == "deleted"]
    shown = kept[:limit]
    revisions = []
    for position, rev, doc, status in shown:
        parent = bodies[position + 1][1] if position + 1 < len(bodies) else None
        parent_known = position + 1 >= len(bodies) or parent is not None
        revisions.append(Revision(
            rev, int(rev.split("-", 1)[0]), position == 0, status == "deleted",
            _text(doc.get("modifiedBy")) if doc else None, _text(doc.get("modified")) if doc else None,
            _strip(doc) if doc else None, _summary(parent, doc, parent_known)))
    last = shown[-1][0] if shown else -1
    older = len(bodies) - last - 1
    without_body = sum(1 for _rev, doc, status in bodies[last + 1:] if doc is None and status != "deleted")
    return RevisionList(doc_id, revisions, older, without_body)


def _strip(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k not in ("_revs_info", "_revisions")}


def _summary(parent: dict[str, Any] | None, doc: dict[str, Any] | None, parent_known: bool) -> str:
    if doc is None:
        return "Deleted"
    if parent is None:
        return "Created" if parent_known else "Changes not known (the revision before is no longer kept)"
    lock_before, lock_after = _lock_of(parent), _lock_of(doc)
    changed = [d.label for d in diff_documents(parent, doc, with_text=False)]
    words = []
    if lock_before != lock_after:
        holder = doc.get("lockedBy") if doc.get("locked") else None
        if holder:
            words.append(f"Locked by {holder}")
        elif isinstance(doc.get("lockBroken"), dict) and doc.get("lockBroken") != parent.get("lockBroken"):
            words.append(f"Lock broken by {doc['lockBroken'].get('by') or 'someone'}")
        else:
            words.append("Unlocked")
    if changed:
        more = f" and {len(changed) - 4} more" if len(changed) > 4 else ""
        words.append("Changed " + ", ".join(changed[:4]) + more)
    return "; ".join(words) if words else "No visible change"


def _lock_of(doc: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(json.dumps(doc.get(key), sort_keys=True) for key in LOCK_FIELDS)


# -- diffs -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DiffLine:
    """One line of a text diff: ``kind`` is ``" "`` (both), ``"-"`` (only the old text),
    ``"+"`` (only the new text) or ``"…"`` (unchanged lines left out)."""

    kind: str
    text: str


@dataclass(frozen=True)
class FieldDiff:
    """One field that differs: ``kind`` ``added``, ``removed`` or ``changed``; text fields carry
    ``lines`` (a line diff with three lines of context), other fields their two values."""

    path: str
    kind: str
    old: Any
    new: Any
    text: bool
    lines: list[DiffLine] = field(default_factory=list)

    @property
    def label(self) -> str:
        return field_label(self.path)


_ABSENT: Any = object()


def flatten_fields(value: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested objects as dotted paths (``content.script``); lists and ``_attachments`` stay values."""
    out: dict[str, Any] = {}
    for key, item in value.items():
        path = f"{prefix}{key}"
        if isinstance(item, dict) and item and key != "_attachments":
            out.update(flatten_fields(item, path + "."))
        else:
            out[path] = item
    return out


def _comparable(doc: dict[str, Any] | None) -> dict[str, Any]:
    if doc is None:
        return {}
    body = {k: v for k, v in doc.items()
            if (not k.startswith("_") or k in ("_attachments", "_deleted")) and k not in NOT_COMPARED}
    flat = flatten_fields(body)
    flat.pop(LINE_TABLE, None)  # a script's line ids follow its text: not a change of their own
    if "_attachments" in flat and isinstance(flat["_attachments"], dict):
        flat["_attachments"] = {name: meta.get("digest") if isinstance(meta, dict) else meta
                                for name, meta in sorted(flat["_attachments"].items())}
    return flat


def is_text_field(path: str, doc_type: Any, *values: Any) -> bool:
    """Whether ``path`` is diffed and merged line by line: a text field of the document type
    (script, GDD, property text...), or any text of more than one line."""
    if tuple(path.split(".")) in text_fields(doc_type):
        return all(isinstance(v, str) or v is None for v in values)
    texts = all(isinstance(v, str) or v is None for v in values)
    return texts and any(isinstance(v, str) and "\n" in v for v in values)


def diff_documents(old: dict[str, Any] | None, new: dict[str, Any] | None, *, with_text: bool = True,
                   context: int = 3) -> list[FieldDiff]:
    """The fields that differ from ``old`` to ``new`` (stamps, lock and creation fields left
    out; nested objects compared key by key), in ``new``'s field order then ``old``'s."""
    before, after = _comparable(old), _comparable(new)
    doc_type = (new or {}).get("type") or (old or {}).get("type")
    diffs = []
    for path in [*after, *(p for p in before if p not in after)]:
        a, b = before.get(path, _ABSENT), after.get(path, _ABSENT)
        if _equal(a, b):
            continue
        kind = "added" if a is _ABSENT else "removed" if b is _ABSENT else "changed"
        a_value, b_value = (None if a is _ABSENT else a), (None if b is _ABSENT else b)
        text = is_text_field(path, doc_type, a_value, b_value)
        lines = line_diff(a_value or "", b_value or "", context) if text and with_text else []
        diffs.append(FieldDiff(path, kind, copy.deepcopy(a_value), copy.deepcopy(b_value), text, lines))
    return diffs


def _equal(a: Any, b: Any) -> bool:
    if a is _ABSENT or b is _ABSENT:
        return a is b
    return type(a) is type(b) and json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def line_diff(old: str, new: str, context: int = 3) -> list[DiffLine]:
    """The changed lines of two texts with ``context`` unchanged lines around each change, an
    ``"…"`` line where unchanged lines are left out (``difflib``'s grouped opcodes)."""
    a, b = old.splitlines(), new.splitlines()
    out: list[DiffLine] = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    groups = list(matcher.get_grouped_opcodes(context))
    for index, group in enumerate(groups):
        if index or group[0][1] > 0:
            out.append(DiffLine("…", ""))
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out.extend(DiffLine(" ", line) for line in a[i1:i2])
                continue
            out.extend(DiffLine("-", line) for line in a[i1:i2])
            out.extend(DiffLine("+", line) for line in b[j1:j2])
    if groups and groups[-1][-1][2] < len(a):
        out.append(DiffLine("…", ""))
    return out


def value_text(value: Any, limit: int = 400) -> str:
    """A field's value in words: text as it is, nothing as "(empty)", anything else as JSON."""
    if value is None or value == "":
        return "(empty)"
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=isinstance(value, dict))
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True)
class FieldExcerpt:
    """A field that differs, in a line: its label and a short excerpt of each side (for a text,
    the first line that differs)."""

    path: str
    label: str
    old: str
    new: str


def field_excerpts(old: dict[str, Any] | None, new: dict[str, Any] | None, limit: int = 60) -> list[FieldExcerpt]:
    """The fields that differ from ``old`` to ``new`` (as :func:`diff_documents` compares them),
    each with an excerpt of both sides at most ``limit`` characters long."""
    out = []
    for diff in diff_documents(old, new, with_text=False):
        a, b = diff.old, diff.new
        if diff.text:
            removed = [line.text for line in line_diff(a or "", b or "", 0) if line.kind == "-"]
            added = [line.text for line in line_diff(a or "", b or "", 0) if line.kind == "+"]
            a = removed[0] if removed else ("" if a else None)
            b = added[0] if added else ("" if b else None)
        shown_a = "(absent)" if diff.kind == "added" else value_text(a, limit)
        shown_b = "(absent)" if diff.kind == "removed" else value_text(b, limit)
        out.append(FieldExcerpt(diff.path, diff.label, shown_a, shown_b))
    return out


# -- restoring -----------------------------------------------------------------------------------


def restored_document(current: dict[str, Any], old: dict[str, Any]) -> dict[str, Any]:
    """The document a restore writes: ``old``'s fields on top of the current revision, keeping
    what a restore never changes (the lock, the creation stamps, the place in the tree, the
    files of an attachment)."""
    doc = {k: copy.deepcopy(v) for k, v in old.items() if not k.startswith("_")}
    for key in (*LOCK_FIELDS, "created", "createdBy", *PLACEMENT):
        doc.pop(key, None)
        if key in current:
            doc[key] = copy.deepcopy(current[key])
    for key in ("type", "collection", "projectId"):
        if key in current:
            doc[key] = copy.deepcopy(current[key])
    doc["_id"] = current["_id"]
    doc["_rev"] = current["_rev"]
    if "_attachments" in current:
        doc["_attachments"] = copy.deepcopy(current["_attachments"])
    return doc


def restore_revision(editor: Editor, doc_id: str, rev: str, *, based_on: str | None = None) -> WriteResult:
    """Write revision ``rev``'s content as a new revision of ``doc_id``, through the editor's
    gate (so a lock held by someone else refuses it: ``LockRefused``; an old body that no
    longer validates: ``ValidationError``). ``based_on``: the revision the user was looking
    at; a newer current revision raises the store's ``Conflict``. ``RevisionNotKept`` when the
    body is gone."""
    current = editor.db.get(doc_id)
    try:
        old = editor.db.get(doc_id, rev=rev)
    except NotFound:
        raise RevisionNotKept(f"revision {rev} of {doc_id!r} is no longer kept: only the newest revisions "
                              "keep their content") from None
    if old.get("_deleted"):
        raise RevisionNotKept(f"revision {rev} of {doc_id!r} is a deletion: there is nothing to restore")
    doc = restored_document(current, old)
    if based_on is not None:
        doc["_rev"] = based_on
    return editor.update(doc)
