"""Import a Drafft backup (an ``allDocs`` dump of a v1 or v2 project) as a new Storyloom project.

Nothing is lost: every document is imported (converted to the v2 shapes where it still has a
v1 one), unknown fields are kept, attachments are kept byte for byte; only rows that are not
project data are skipped (PouchDB design documents, deleted rows), each with its reason in the
:class:`ImportReport`. The mapping is written down in ``docs/data-model.md`` ("Drafft import").

Documents validation would refuse are repaired where the intent is clear (a missing
``collection``, a null ``name``, a parent that is not a folder of the same collection, map
entries outside the map, non-text content text), each repair reported as a warning, with the
original value kept beside it. What still cannot be imported (an unknown document type, a
document validation refuses after the repairs, an attachment without data) makes the import
fail with :class:`ImportWouldDropError`, listing each, and nothing is created, unless
``allow_skips=True`` (``storyloom import --allow-skips``) asks to import the rest; the report
then lists what was left out. An attachment whose base64 ``data`` does not decode fails the
import too (it would be lost).

In short, for every document: ``_rev`` dropped (imported documents are fresh documents in the
new project), the three date formats normalised to ISO-8601 UTC, locks released, ``path``
dropped and folders' ``children`` arrays turned into each child's ``parent`` + ``sortKey``.
v1 shapes: string ``content`` moves into the v2 content field of its type, dialogue ``graph``
becomes ``content.tree`` (as Drafft's own migration does; the graph is kept), ``prefix``
becomes ``alias``, actor ``bio``/``properties`` move into ``content`` and ``expression_<name>``
attachments become Attachment documents listed in ``content.expressions``, Hotkeys become
Misc documents holding their data as JSON. Drafft v1's replication settings (URL, user) leave
the replicated settings document for a ``_local`` document; the remote password is not kept
anywhere (the report says it must be entered again when syncing).
"""

from __future__ import annotations

import base64
import binascii
import copy
import hashlib
import json
import math
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from storyloom.project.collections import ATTACHMENT_TYPE, FOLDER_TYPE, SETTINGS_ID
from storyloom.project.content import check_map_content
from storyloom.project.dates import DateFormatError, normalise_date
from storyloom.project.documents import (
    DATE_FIELDS,
    KNOWN_TYPES,
    NODE_TYPES,
    TREE_COLLECTIONS,
    UNLOCKED_BY,
    new_document,
    permalink,
    permalink_target,
)
from storyloom.project.editor import WriteIntent
from storyloom.project.manager import DumpError, Project, ProjectError, ProjectManager, read_dump
from storyloom.project.names import name_problem
from storyloom.project.settings import LEGACY_REMOTE_FIELDS, default_settings, fill_defaults
from storyloom.project.tree import order_key, spread_keys

# Where the v1 replication settings go: a _local document (never replicated, never exported).
LEGACY_REMOTE_LOCAL_ID = "_local/drafft-remote"
# Never kept: stores are files on disk and backups get copied around; the user types it again.
LEGACY_REMOTE_PASSWORD = "remoteDbPassword"
PASSWORD_NOT_KEPT = (
    "the backup's remote database password (remoteDbPassword) was not kept: enter it again when "
    "you sync (`storyloom sync` asks for it, or reads STORYLOOM_REMOTE_PASSWORD)"
)
HOTKEYS_COLLECTION = "Hotkeys"
_NAMESPACE = uuid.UUID("6f0f7a52-3b9e-4c53-9d7e-2f1b8a0c5d11")


class DrafftImportError(Exception):
    """The file cannot be imported (not a dump, nothing to import); no project was created."""


class ImportWouldDropError(DrafftImportError):
    """Some documents (or attachments) of the backup cannot be imported, even after the repairs;
    importing the rest would lose them, so nothing was created. ``dropped`` lists each with its
    reason; ``import_backup(..., allow_skips=True)`` imports the rest and reports them."""

    def __init__(self, source: str, dropped: list[Skipped]) -> None:
        self.dropped = list(dropped)
        count = len(self.dropped)
        lines = [
            f"{source}: {count} {'entry' if count == 1 else 'entries'} of the backup cannot be imported "
            "(importing the rest would lose them), so nothing was imported:"
        ]
        lines += [f"  {s.id} ({s.type}): {s.reason}" for s in self.dropped]
        lines.append(
            "Fix them in the backup, or import everything else with --allow-skips "
            "(the report then lists what was left out)."
        )
        super().__init__("\n".join(lines))


def _stable_id(*parts: str) -> str:
    """A deterministic UUID for a document the import creates (same input, same id)."""
    return str(uuid.uuid5(_NAMESPACE, "/".join(parts)))


# ---------------------------------------------------------------------------------------------
# Report


@dataclass
class TypeCounts:
    imported: int = 0
    converted: int = 0
    skipped: int = 0


@dataclass(frozen=True)
class Skipped:
    """A row (or an attachment) that is not in the new project. ``lost`` is True when it held
    project data (an import without ``allow_skips`` then fails); False for what is not project
    data (design documents, deleted rows, a row repeating a document)."""

    id: str
    type: str
    reason: str
    lost: bool = False


@dataclass(frozen=True)
class Created:
    id: str
    type: str
    reason: str


@dataclass
class ImportReport:
    """What the import did. ``counts`` is keyed by the source document's type (folders as
    ``"Folder (Script)"``, Hotkeys as ``"Hotkeys"``); created documents are listed apart."""

    source: str
    rows: int = 0
    format: str = "v2"
    project_id: str = ""
    project_name: str = ""
    counts: dict[str, TypeCounts] = field(default_factory=dict)
    skipped: list[Skipped] = field(default_factory=list)
    created: list[Created] = field(default_factory=list)
    conversions: dict[str, list[str]] = field(default_factory=dict)
    attachments: int = 0
    attachment_bytes: int = 0
    attachment_moves: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)
    shared_images: list[str] = field(default_factory=list)
    dates_normalised: int = 0
    locks_released: int = 0
    folders_converted: int = 0
    local_documents: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # Things the user has to do after the import (a password to enter again).
    notices: list[str] = field(default_factory=list)

    def count(self, label: str) -> TypeCounts:
        return self.counts.setdefault(label, TypeCounts())

    @property
    def imported(self) -> int:
        return sum(c.imported for c in self.counts.values())

    @property
    def converted(self) -> int:
        return sum(c.converted for c in self.counts.values())

    @property
    def skipped_count(self) -> int:
        return sum(c.skipped for c in self.counts.values())

    def conversion_summary(self) -> list[tuple[str, str, int]]:
        """``(type, change, number of documents)``, grouped."""
        counter: Counter[tuple[str, str]] = Counter()
        types = self._types
        for doc_id, changes in self.conversions.items():
            for change in changes:
                counter[(types.get(doc_id, "?"), change)] += 1
        return [(t, change, n) for (t, change), n in sorted(counter.items())]

    _types: dict[str, str] = field(default_factory=dict, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "rows": self.rows,
            "format": self.format,
            "projectId": self.project_id,
            "projectName": self.project_name,
            "counts": {k: vars(v) for k, v in sorted(self.counts.items())},
            "totals": {"imported": self.imported, "converted": self.converted, "skipped": self.skipped_count},
            "skipped": [vars(s) for s in self.skipped],
            "created": [vars(c) for c in self.created],
            "conversions": [{"type": t, "change": c, "documents": n} for t, c, n in self.conversion_summary()],
            "attachments": self.attachments,
            "attachmentBytes": self.attachment_bytes,
            "attachmentMoves": [
                {"from": {"id": a, "name": b}, "to": {"id": c, "name": d}}
                for (a, b), (c, d) in sorted(self.attachment_moves.items())
            ],
            "sharedImages": list(self.shared_images),
            "datesNormalised": self.dates_normalised,
            "locksReleased": self.locks_released,
            "foldersConverted": self.folders_converted,
            "localDocuments": list(self.local_documents),
            "warnings": list(self.warnings),
            "notices": list(self.notices),
        }

    def to_text(self) -> str:
        lines = [
            f"Imported {self.source} (Drafft {self.format} backup, {self.rows} rows) as project "
            f"{self.project_name!r} (id {self.project_id})",
            "",
        ]
        width = max([len("Type"), len("Total"), *(len(k) for k in self.counts)])
        lines.append(f"{'Type':<{width}}  {'Imported':>8}  {'Converted':>9}  {'Skipped':>7}")
        for label in sorted(self.counts):
            c = self.counts[label]
            lines.append(f"{label:<{width}}  {c.imported:>8}  {c.converted:>9}  {c.skipped:>7}")
        lines.append(f"{'Total':<{width}}  {self.imported:>8}  {self.converted:>9}  {self.skipped_count:>7}")
        if self.skipped:
            lines += ["", "Skipped:"]
            lines += [
                f"  {s.id} ({s.type}): {s.reason}" + (" [left out: --allow-skips]" if s.lost else "")
                for s in self.skipped
            ]
        if self.created:
            lines += ["", "Created by the import:"]
            lines += [f"  {c.id} ({c.type}): {c.reason}" for c in self.created]
        if self.shared_images:
            lines += ["", "Expression images stored once (the same bytes as an image already imported):"]
            lines += [f"  {line}" for line in self.shared_images]
        summary = self.conversion_summary()
        if summary:
            lines += ["", "Conversions (documents):"]
            lines += [f"  {t}: {change} ({n})" for t, change, n in summary]
        lines += [
            "",
            f"Attachments kept: {self.attachments} ({self.attachment_bytes} bytes); "
            f"dates normalised to ISO-8601 UTC: {self.dates_normalised}; locks released: {self.locks_released}; "
            f"folders' children turned into parent + sortKey: {self.folders_converted}",
        ]
        if self.local_documents:
            lines.append(f"Kept on this machine only (not replicated): {', '.join(self.local_documents)}")
        if self.warnings:
            lines += ["", f"Warnings ({len(self.warnings)}):"]
            lines += [f"  {w}" for w in self.warnings]
        if self.notices:
            lines += ["", "To do:"]
            lines += [f"  {n[0].upper()}{n[1:]}." for n in self.notices]
        return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Conversion (pure: rows in, documents out)


def type_label(doc: dict[str, Any]) -> str:
    """The per-type row of the report a source document counts in."""
    doc_id = str(doc.get("_id", ""))
    if doc_id.startswith("_design/"):
        return "_design"
    if doc_id == SETTINGS_ID:
        return "ProjectSettings"
    doc_type = doc.get("type")
    if doc_type == FOLDER_TYPE:
        return f"Folder ({doc.get('collection')})"
    if isinstance(doc_type, str) and doc_type:
        return doc_type
    collection = doc.get("collection")
    if isinstance(collection, str) and collection:
        return collection
    return "(no type)"


@dataclass
class Conversion:
    """The documents to write, the ``_local`` documents, and the report (counts filled)."""

    docs: list[dict[str, Any]]
    local_docs: list[dict[str, Any]]
    report: ImportReport
    labels: dict[str, str]


def convert_rows(rows: list[dict[str, Any]], *, source: str, project_id: str, name: str | None = None) -> Conversion:
    """Convert the rows of a Drafft dump into Storyloom documents for a project ``project_id``."""
    report = ImportReport(source=source, rows=len(rows), project_id=project_id)
    docs: dict[str, dict[str, Any]] = {}
    sources: dict[str, dict[str, Any]] = {}
    labels: dict[str, str] = {}
    children_of: dict[str, list[str]] = {}
    local_docs: list[dict[str, Any]] = []
    saw_v1 = saw_v2 = False

    for index, row in enumerate(rows):
        source_doc = row.get("doc")
        row_id = str(row.get("id") or row.get("key") or (source_doc or {}).get("_id") or f"row {index}")
        if not isinstance(source_doc, dict):
            value = row.get("value") if isinstance(row.get("value"), dict) else {}
            reason = (
                "deleted document"
                if value.get("deleted")
                else f"row without a document ({row.get('error') or 'no doc'})"
            )
            report.skipped.append(Skipped(row_id, "(none)", reason))
            report.count("(none)").skipped += 1
            continue
        label = type_label(source_doc)
        doc_id = source_doc.get("_id")
        if not isinstance(doc_id, str) or not doc_id:
            report.skipped.append(Skipped(row_id, label, "document without an _id", lost=True))
            report.count(label).skipped += 1
            continue
        if doc_id.startswith("_design/"):
            report.skipped.append(Skipped(doc_id, label, "design document (a PouchDB index), not project data"))
            report.count(label).skipped += 1
            continue
        if doc_id.startswith("_local/"):
            report.skipped.append(Skipped(doc_id, label, "local document (never replicated), not project data"))
            report.count(label).skipped += 1
            continue
        if source_doc.get("_deleted"):
            report.skipped.append(Skipped(doc_id, label, "deleted document"))
            report.count(label).skipped += 1
            continue
        if doc_id in sources:
            if _without_rev(source_doc) == _without_rev(sources[doc_id]):
                report.skipped.append(Skipped(doc_id, label, "a second row repeating the same document"))
            else:
                report.skipped.append(
                    Skipped(doc_id, label, "a second row with the same id but other content (the first is kept)",
                            lost=True)
                )
            report.count(label).skipped += 1
            continue
        doc = {
            k: copy.deepcopy(v) for k, v in source_doc.items() if not k.startswith("_") or k in ("_id", "_attachments")
        }
        notes: list[str] = []
        if "children" in doc:
            children = doc.pop("children")
            ids = [
                c if isinstance(c, str) else c.get("_id") if isinstance(c, dict) else None
                for c in (children if isinstance(children, list) else [])
            ]
            ids = [i for i in ids if isinstance(i, str)]
            if ids:
                children_of[doc_id] = ids
                report.folders_converted += 1
        doc.pop("path", None)
        _normalise_dates(doc, report)
        _release_lock(doc, report)
        if doc_id == SETTINGS_ID:
            local = _convert_settings(doc, notes, project_id, name, source, report)
            if local:
                local_docs.append(local)
                report.local_documents.append(local["_id"])
        elif doc.get("type") is None and doc.get("collection") == HOTKEYS_COLLECTION:
            doc = _convert_hotkey(doc, notes)
            saw_v1 = True
        elif doc.get("type") not in KNOWN_TYPES:
            report.skipped.append(
                Skipped(doc_id, label, f"unknown document type {doc.get('type')!r}: not a Drafft project document",
                        lost=True)
            )
            report.count(label).skipped += 1
            continue
        else:
            v1 = _convert_v1_shapes(doc, notes, report)
            saw_v1 = saw_v1 or v1
            saw_v2 = saw_v2 or isinstance(source_doc.get("content"), dict)
        _convert_attachments(doc, notes, report)
        if doc_id != SETTINGS_ID:
            _repair_document(doc, notes, report)
        docs[doc_id] = doc
        sources[doc_id] = source_doc
        labels[doc_id] = label
        report._types[doc_id] = label
        if notes:
            report.conversions[doc_id] = notes
            report.count(label).converted += 1
        report.count(label).imported += 1

    _extract_expressions(docs, report)
    _group_hotkeys(docs, report)
    if SETTINGS_ID not in docs:
        settings = default_settings(name or Path(source).stem or "Imported project", project_id=project_id)
        docs[SETTINGS_ID] = settings
        report.created.append(Created(SETTINGS_ID, "ProjectSettings", "the backup had no settings document"))
    _build_tree(docs, children_of, report)
    report.project_name = docs[SETTINGS_ID]["projectName"]
    report.format = "v1 and v2 (partially migrated)" if saw_v1 and saw_v2 else ("v1" if saw_v1 else "v2")
    return Conversion(list(docs.values()), local_docs, report, labels)


def _without_rev(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k != "_rev"}


def _free_key(obj: dict[str, Any], key: str) -> str:
    """``key``, or ``key2``, ``key3``... : the first name ``obj`` does not use (where an import
    keeps an original value, never overwriting a field of the source)."""
    candidate, n = key, 1
    while candidate in obj:
        n += 1
        candidate = f"{key}{n}"
    return candidate


def _note(report: ImportReport, doc_id: str, change: str) -> None:
    """Record a change made after the document was counted (the tree and expression passes)."""
    notes = report.conversions.setdefault(doc_id, [])
    if not notes and doc_id in report._types:
        report.count(report._types[doc_id]).converted += 1
    if change not in notes:
        notes.append(change)


def _normalise_dates(doc: dict[str, Any], report: ImportReport) -> None:
    for key in DATE_FIELDS:
        if key not in doc or doc[key] is None or doc[key] == "":
            if key in doc and doc[key] == "":
                doc[key] = None
            continue
        try:
            value = normalise_date(doc[key])
        except DateFormatError as exc:
            original = doc.pop(key)
            if isinstance(original, float) and not math.isfinite(original):
                # NaN and the infinities are not JSON: kept as the text the backup spelled them with.
                original = json.dumps(original)
            kept = _free_key(doc, f"{key}Original")
            doc[kept] = original
            report.warnings.append(f"{doc.get('_id')}: {key}: {exc}; the value is kept as {kept}")
            continue
        if value != doc[key]:
            report.dates_normalised += 1
        doc[key] = value


def _release_lock(doc: dict[str, Any], report: ImportReport) -> None:
    if "locked" not in doc and "lockedBy" not in doc:
        return
    if doc.get("locked") is True:
        report.locks_released += 1
    doc["locked"] = False
    doc["lockedBy"] = UNLOCKED_BY
    if "lockedAt" in doc:
        doc["lockedAt"] = None


def _convert_settings(
    doc: dict[str, Any], notes: list[str], project_id: str, name: str | None, source: str, report: ImportReport
) -> dict[str, Any] | None:
    doc["projectId"] = project_id
    if name:
        doc["projectName"] = name
    elif not isinstance(doc.get("projectName"), str) or not doc["projectName"].strip():
        doc["projectName"] = Path(source).stem or "Imported project"
        notes.append("projectName missing: named after the file")
    for key in ("language", "views"):  # design-document fields never belong here
        doc.pop(key, None)
    remote = {key: doc.pop(key) for key in LEGACY_REMOTE_FIELDS if key in doc}
    if remote.pop(LEGACY_REMOTE_PASSWORD, None) not in (None, ""):
        report.notices.append(PASSWORD_NOT_KEPT)
    added = fill_defaults(doc)
    if added:
        top = sorted({a.split(".")[0] + ("" if "." not in a else "." + a.split(".")[1]) for a in added})
        notes.append("missing settings added at their defaults: " + ", ".join(top))
    if remote:
        notes.append(f"replication settings (remoteDb*) moved to the local-only {LEGACY_REMOTE_LOCAL_ID}, "
                     "without the password")
        return {"_id": LEGACY_REMOTE_LOCAL_ID, **remote}
    return None


def _convert_hotkey(doc: dict[str, Any], notes: list[str]) -> dict[str, Any]:
    data = {k: v for k, v in doc.items() if k not in ("_id", "collection")}
    misc = new_document(
        "Misc",
        str(doc.get("name") or doc.get("label") or "Hotkey"),
        doc_id=doc["_id"],
        content={"properties": json.dumps(data, indent=2, ensure_ascii=False) + "\n"},
        editorLanguage="json",
        originalCollection=HOTKEYS_COLLECTION,
    )
    notes.append("Hotkeys document -> Misc document (its data as JSON in content.properties)")
    return misc


def _html_or_markdown(text: str) -> str:
    return "richText" if text.lstrip().startswith("<") else "markdown"


def _move_text(doc: dict[str, Any], content: dict[str, Any], top: str, key: str, notes: list[str]) -> None:
    """Move top-level v1 text ``top`` into ``content[key]`` unless the v2 field already exists."""
    if key in content:
        return
    value = doc.get(top)
    if top in doc and (isinstance(value, str) or value is None):
        content[key] = value or ""
        del doc[top]
        notes.append(f"{top} -> content.{key}")
    else:
        content[key] = ""


def _keep_odd_content(doc: dict[str, Any], notes: list[str], report: ImportReport) -> None:
    """A ``content`` that is neither an object (v2) nor text (v1) nor null moves to
    ``contentOriginal`` (the type's content object is built in its place)."""
    raw = doc.get("content")
    if raw is None or isinstance(raw, dict | str):
        return
    kept = _free_key(doc, "contentOriginal")
    doc[kept] = doc.pop("content")
    report.warnings.append(
        f"{doc['_id']}: content is {_describe(raw)}, neither an object nor text; kept as {kept}"
    )
    notes.append("repair: content of another kind kept as contentOriginal")


def _describe(value: Any) -> str:
    kind = {dict: "an object", list: "an array", str: "text", bool: "a boolean", int: "a number",
            float: "a number", type(None): "null"}.get(type(value), type(value).__name__)
    text = json.dumps(value, ensure_ascii=False, default=str)
    if len(text) > 60:
        text = text[:57] + "..."
    return kind if value is None else f"{kind} ({text})"


def _convert_v1_shapes(doc: dict[str, Any], notes: list[str], report: ImportReport) -> bool:
    """Convert a document still in a v1 shape, in place. Returns True if anything was v1."""
    doc_type = doc.get("type")
    before = len(notes)
    if "prefix" in doc and ("alias" not in doc or not doc.get("alias")):
        doc["alias"] = doc.pop("prefix")
        notes.append("prefix -> alias")
    if doc_type not in TREE_COLLECTIONS:
        if doc_type == ATTACHMENT_TYPE and not isinstance(doc.get("content"), dict):
            _keep_odd_content(doc, notes, report)
            text = doc.get("content")
            doc["content"] = {"notes": text if isinstance(text, str) else ""}
            if text:
                notes.append("content text -> content.notes")
        return len(notes) > before
    _keep_odd_content(doc, notes, report)
    raw = doc.get("content")
    legacy_text = raw if isinstance(raw, str) else None
    if isinstance(raw, dict):
        content = raw
    else:
        content = {}
        doc["content"] = content
    text_note = "content text -> content.{}"
    if doc_type == "Script":
        if "script" not in content:
            content["script"] = legacy_text or ""
            notes.append(text_note.format("script"))
            legacy_text = None
        if "editorMode" not in doc and isinstance(doc.get("scriptEditorMode"), str):
            doc["editorMode"] = doc.pop("scriptEditorMode")
            notes.append("scriptEditorMode -> editorMode")
    elif doc_type == "Gdd":
        if "gdd" not in content:
            content["gdd"] = legacy_text or ""
            notes.append(text_note.format("gdd"))
            if "editor" not in doc:
                doc["editor"] = _html_or_markdown(content["gdd"])
            legacy_text = None
    elif doc_type == "Item":
        _move_text(doc, content, "properties", "item", notes)
    elif doc_type == "Quest":
        _move_text(doc, content, "properties", "properties", notes)
        _move_text(doc, content, "conditions", "conditions", notes)
    elif doc_type == "Misc":
        _move_text(doc, content, "properties", "properties", notes)
    elif doc_type == "Actor":
        _move_text(doc, content, "bio", "bio", notes)
        _move_text(doc, content, "properties", "properties", notes)
        if "expressions" not in content:
            content["expressions"] = []
    elif doc_type == "Dialogue":
        graph = doc.get("graph")
        if "tree" not in content:
            if isinstance(graph, dict):
                content["tree"] = convert_graph(graph, report, doc.get("_id", ""))
                notes.append("graph -> content.tree (nodes and edges; the v1 graph is kept)")
            else:
                content["tree"] = {"nodes": [], "edges": []}
    elif doc_type == "Kanban":
        data = doc.get("data")
        if "columns" not in content:
            lanes = data.get("lanes") if isinstance(data, dict) else None
            content["columns"] = _convert_lanes(lanes if isinstance(lanes, list) else [], report, doc.get("_id", ""))
            content.setdefault("template", None)
            content.setdefault("settings", {})
            if lanes is not None:
                notes.append("data.lanes -> content.columns (cards kept; the v1 data is kept)")
    elif doc_type == "Grid":
        for key, default in (("columns", []), ("data", [])):
            content.setdefault(key, default)
    elif doc_type == "Variable":
        content.setdefault("variables", "")
    elif doc_type == "Scenario":
        content.setdefault("scenario", "")
    elif doc_type == "Scene":
        content.setdefault("items", [])
    elif doc_type == "Canvas":
        content.setdefault("nodes", [])
        content.setdefault("edges", [])
    if legacy_text:
        content["notes"] = legacy_text
        notes.append("content text -> content.notes")
    elif legacy_text is not None and not notes[before:]:
        notes.append("empty content text -> content object")
    return len(notes) > before or not isinstance(raw, dict)


def convert_graph(graph: dict[str, Any], report: ImportReport | None = None, doc_id: str = "") -> dict[str, Any]:
    """A v1 dialogue ``graph`` (nodes with ports, links) as a v2 ``content.tree``.

    The same mapping as Drafft's own v1->v2 migration (positions doubled, ports become handles:
    ``in`` ports are targets, the others sources; links become edges between (node, handle)).
    """
    nodes = []
    for node in graph.get("nodes") or []:
        if not isinstance(node, dict):
            continue
        extras = node.get("extras") if isinstance(node.get("extras"), dict) else {}
        v1_type = str(extras.get("type") or "")
        node_type = v1_type.lower()
        data: dict[str, Any] = {
            "label": node.get("name", ""),
            "handles": [
                {"id": port.get("id"), "type": "target" if port.get("in") else "source", "label": port.get("label", "")}
                for port in node.get("ports") or []
                if isinstance(port, dict)
            ],
            "nodeType": node_type,
        }
        if node_type not in NODE_TYPES:
            data["nodeType"] = "note"
            data["v1Type"] = v1_type
            if report is not None:
                report.warnings.append(
                    f"{doc_id}: node {node.get('id')!r} has v1 type {v1_type!r}, "
                    "imported as a note node (v1Type keeps the original)"
                )
        if "scriptID" in extras:
            data["scriptId"] = extras["scriptID"]
        nodes.append(
            {
                "id": node.get("id"),
                "position": {"x": (node.get("x") or 0) * 2, "y": (node.get("y") or 0) * 2},
                "sourcePosition": "left",
                "targetPosition": "right",
                "type": "base",
                "dragHandle": ".drag-handle__header",
                "data": data,
            }
        )
    edges = []
    for link in graph.get("links") or []:
        if not isinstance(link, dict):
            continue
        edges.append(
            {
                "edgeId": link.get("id"),
                "id": link.get("id"),
                "key": link.get("id"),
                "source": link.get("source"),
                "target": link.get("target"),
                "sourceHandle": link.get("sourcePort"),
                "targetHandle": link.get("targetPort"),
                "animated": False,
            }
        )
    return {"nodes": nodes, "edges": edges}


def _convert_lanes(lanes: list[Any], report: ImportReport, doc_id: str) -> list[dict[str, Any]]:
    columns = []
    for lane in lanes:
        if not isinstance(lane, dict):
            continue
        cards = []
        for card in lane.get("cards") or []:
            if not isinstance(card, dict):
                continue
            converted = copy.deepcopy(card)
            tags = card.get("tags") or []
            converted["tags"] = [t.get("title", "") if isinstance(t, dict) else str(t) for t in tags]
            converted.setdefault("type", "card")
            converted.setdefault("description", "")
            converted.setdefault("related", [])
            converted.setdefault("completed", False)
            converted.setdefault("dueDate", "")
            converted.setdefault("assigned", "")
            if converted.get("modified"):
                try:
                    converted["modified"] = normalise_date(converted["modified"])
                    report.dates_normalised += 1
                except DateFormatError:
                    pass
            cards.append(converted)
        columns.append(
            {"id": str(lane.get("id", "")), "title": lane.get("title", ""), "type": "column", "cards": cards}
        )
    return columns


# The text fields of ``content`` per type (validation wants strings there).
_CONTENT_TEXT_FIELDS: dict[str, tuple[str, ...]] = {
    "Script": ("script",),
    "Gdd": ("gdd",),
    "Actor": ("bio", "properties"),
    "Quest": ("properties", "conditions", "notes"),
    "Item": ("item", "notes"),
    "Misc": ("properties", "notes"),
    "Variable": ("variables", "json"),
    "Scenario": ("scenario", "json"),
    ATTACHMENT_TYPE: ("notes",),
}


def _repair_document(doc: dict[str, Any], notes: list[str], report: ImportReport) -> None:
    """Repair, in place, what validation would refuse where the intent is clear; each repair is
    a warning of the report and a note of the document, and an original value is kept beside it.
    Parents are repaired later, with the tree (they need every document)."""
    doc_id = doc["_id"]
    doc_type = doc.get("type")
    if doc_type != FOLDER_TYPE:
        collection = doc.get("collection")
        if collection != doc_type:
            what = _describe(collection) if "collection" in doc else "missing"
            message = f"{doc_id}: collection is {what}; set to {doc_type!r} (the document's type)"
            if collection is not None:
                kept = _free_key(doc, "collectionOriginal")
                doc[kept] = collection
                message += f"; the value is kept as {kept}"
            doc["collection"] = doc_type
            report.warnings.append(message)
            notes.append("repair: collection set from type")
    name = doc.get("name")
    if not isinstance(name, str):
        if name is None:
            doc["name"] = ""
            report.warnings.append(f"{doc_id}: name is {'null' if 'name' in doc else 'missing'}; set to \"\"")
        else:
            kept = _free_key(doc, "nameOriginal")
            doc[kept] = name
            doc["name"] = json.dumps(name, ensure_ascii=False)
            report.warnings.append(f"{doc_id}: name is {_describe(name)}, not text; written as text, "
                                   f"the value is kept as {kept}")
        notes.append("repair: name set to text")
    content = doc.get("content")
    if isinstance(content, dict):
        for key in _CONTENT_TEXT_FIELDS.get(str(doc_type), ()):
            value = content.get(key)
            if key not in content or isinstance(value, str):
                continue
            content[key] = "" if value is None else json.dumps(value, ensure_ascii=False, indent=2)
            report.warnings.append(
                f"{doc_id}: content.{key} is {_describe(value)}, not text; kept as the text {content[key][:40]!r}"
            )
            notes.append(f"repair: content.{key} written as text")
        if doc_type == "Actor" and not isinstance(content.get("expressions"), list):
            value = content.get("expressions")
            if value is not None:
                kept = _free_key(content, "expressionsOriginal")
                content[kept] = value
                report.warnings.append(f"{doc_id}: content.expressions is {_describe(value)}, not a list; "
                                       f"kept as content.{kept}")
            content["expressions"] = []
            notes.append("repair: content.expressions set to a list")
        if doc_type == "Map":
            _repair_map(doc, content, notes, report)
    if doc_type == ATTACHMENT_TYPE and not (isinstance(doc.get("mimeType"), str) and doc["mimeType"]):
        blob = (doc.get("_attachments") or {}).get("blob") or {}
        mime = blob.get("content_type") or "application/octet-stream"
        if doc.get("mimeType") is not None:
            doc[_free_key(doc, "mimeTypeOriginal")] = doc["mimeType"]
        doc["mimeType"] = mime
        report.warnings.append(f"{doc_id}: mimeType missing; set to {mime!r} (its blob's content type)")
        notes.append("repair: mimeType set from the blob")


def _repair_map(doc: dict[str, Any], content: dict[str, Any], notes: list[str], report: ImportReport) -> None:
    """Map cells, edges and markers that validation would refuse (outside the map, malformed
    keys, without a type, a second copy of an edge) move to ``content.invalid``, where they are
    kept (and not exported). Unusable width or height cannot be repaired (no bounds)."""
    exported, problems = check_map_content(content, doc["_id"])
    if exported is None or not problems:
        return
    invalid: dict[str, Any] = {}
    for kind in ("cells", "edges", "markers"):
        value = content.get(kind)
        if value is None:
            continue
        if isinstance(value, dict):
            bad = {k: v for k, v in value.items() if k not in exported[kind]}
            if bad:
                invalid[kind] = bad
                content[kind] = {k: v for k, v in value.items() if k in exported[kind]}
        elif kind == "markers" and isinstance(value, list):
            keep: list[Any] = []
            bad_items: list[Any] = []
            seen: set[str] = set()
            for marker in value:
                marker_name = marker.get("name") if isinstance(marker, dict) else None
                if isinstance(marker_name, str) and marker_name in exported["markers"] and marker_name not in seen:
                    seen.add(marker_name)
                    keep.append(marker)
                else:
                    bad_items.append(marker)
            if bad_items:
                invalid[kind] = bad_items
                content[kind] = keep
        else:
            invalid[kind] = value
            content[kind] = {}
    properties = content.get("properties")
    if properties is not None and not isinstance(properties, dict):
        invalid["properties"] = content.pop("properties")
    if not invalid:
        return
    kept = _free_key(content, "invalid")
    content[kept] = invalid
    report.warnings.append(
        f"{doc['_id']}: map entries validation refuses were moved to content.{kept} (kept, not exported): "
        + "; ".join(p.message for p in problems)
    )
    notes.append("repair: invalid map entries moved to content.invalid")


def _convert_attachments(doc: dict[str, Any], notes: list[str], report: ImportReport) -> None:
    attachments = doc.get("_attachments")
    if attachments is None:
        return
    if not isinstance(attachments, dict):
        report.warnings.append(f"{doc['_id']}: _attachments is not an object; dropped")
        del doc["_attachments"]
        return
    kept: dict[str, Any] = {}
    for att_name, att in attachments.items():
        if not isinstance(att, dict) or not isinstance(att.get("data"), str):
            report.warnings.append(
                f"{doc['_id']}: attachment {att_name!r} has no data in the backup (a dump made without "
                "attachments); it cannot be imported"
            )
            report.skipped.append(
                Skipped(f"{doc['_id']}/{att_name}", "attachment",
                        "no data in the backup (a dump made without attachments)", lost=True)
            )
            continue
        try:
            raw = base64.b64decode(att["data"], validate=True)
        except (binascii.Error, ValueError) as exc:
            # Kept as it is, the store would refuse it; dropped, the image would be lost.
            raise DrafftImportError(
                f"{report.source}: document {doc['_id']!r} ({type_label(doc)}): attachment {att_name!r} "
                f"is not valid base64 ({exc}); the attachment cannot be imported, so nothing was imported"
            ) from None
        report.attachments += 1
        report.attachment_bytes += len(raw)
        content_type = att.get("content_type")
        if not isinstance(content_type, str) or not content_type:
            content_type = doc.get("mimeType") if isinstance(doc.get("mimeType"), str) else "application/octet-stream"
            notes.append("attachment content_type filled from mimeType")
        kept[att_name] = {"content_type": content_type, "data": att["data"]}
    if kept:
        doc["_attachments"] = kept
    else:
        del doc["_attachments"]


def _image_key(att: dict[str, Any]) -> tuple[str, str] | None:
    """What makes two images the same: the SHA-256 of the bytes and the content type."""
    data = att.get("data") if isinstance(att, dict) else None
    if not isinstance(data, str):
        return None
    return hashlib.sha256(base64.b64decode(data)).hexdigest(), str(att.get("content_type") or "")


def _extract_expressions(docs: dict[str, dict[str, Any]], report: ImportReport) -> None:
    """v1 actor expression images (``_attachments.expression_<name>``) -> Attachment documents
    listed in ``content.expressions`` (unless the actor already lists that expression).

    An image is stored once: when its bytes (and content type) are those of an Attachment
    document of the backup, or of one this import already created, the expression points at
    that document instead of a copy (``report.shared_images`` says which)."""
    images: dict[tuple[str, str], str] = {}
    for doc in docs.values():
        if doc.get("type") == ATTACHMENT_TYPE:
            key = _image_key((doc.get("_attachments") or {}).get("blob"))
            if key is not None:
                images.setdefault(key, doc["_id"])
    for actor in [d for d in docs.values() if d.get("type") == "Actor"]:
        attachments = actor.get("_attachments") or {}
        content = actor["content"]
        listed = {e.get("name") for e in content.get("expressions", []) if isinstance(e, dict)}
        moved = 0
        for att_name in list(attachments):
            if not att_name.startswith("expression_"):
                continue
            expression = att_name[len("expression_") :]
            if expression in listed:
                continue
            att = attachments.pop(att_name)
            actor_name = str(actor.get("name") or "actor")
            key = _image_key(att)
            existing = images.get(key) if key is not None else None
            if existing is not None:
                image = docs[existing]
                link = image.get("permalink") if permalink_target(image.get("permalink", "")) == existing else None
                content["expressions"].append(
                    {"name": expression, "permalink": link or permalink(existing), "_id": existing}
                )
                report.attachment_moves[(actor["_id"], att_name)] = (existing, "blob")
                report.shared_images.append(
                    f"expression {expression!r} of actor {actor_name!r} (its attachment {att_name}) uses "
                    f"{existing} ({image.get('name')!r}), which holds the same image"
                )
            else:
                att_id = _stable_id("expression", actor["_id"], att_name)
                image = new_document(
                    ATTACHMENT_TYPE,
                    f"{actor_name.lower()}_expression_{expression}",
                    doc_id=att_id,
                    mimeType=att["content_type"],
                    permalink=permalink(att_id),
                    _attachments={"blob": att},
                )
                for date_key in ("created", "modified"):
                    if actor.get(date_key):
                        image[date_key] = actor[date_key]
                docs[att_id] = image
                if key is not None:
                    images[key] = att_id
                content["expressions"].append({"name": expression, "permalink": image["permalink"], "_id": att_id})
                report.attachment_moves[(actor["_id"], att_name)] = (att_id, "blob")
                report.created.append(
                    Created(
                        att_id,
                        ATTACHMENT_TYPE,
                        f"expression {expression!r} of actor {actor_name!r} (was its attachment {att_name})",
                    )
                )
            listed.add(expression)
            moved += 1
        if moved:
            if not attachments:
                actor.pop("_attachments", None)
            _note(report, actor["_id"], "expression attachments -> Attachment documents in content.expressions")


def _group_hotkeys(docs: dict[str, dict[str, Any]], report: ImportReport) -> None:
    hotkeys = [
        d for d in docs.values() if d.get("originalCollection") == HOTKEYS_COLLECTION and d.get("type") == "Misc"
    ]
    if not hotkeys:
        return
    folder_id = _stable_id("hotkeys-folder")
    folder = new_document(FOLDER_TYPE, "Hotkeys", collection="Misc", doc_id=folder_id)
    docs[folder_id] = folder
    for doc in hotkeys:
        doc["parent"] = folder_id
    report.created.append(
        Created(folder_id, FOLDER_TYPE, f"Misc folder 'Hotkeys' holding the {len(hotkeys)} converted Hotkeys documents")
    )


def _build_tree(docs: dict[str, dict[str, Any]], children_of: dict[str, list[str]], report: ImportReport) -> None:
    """Each tree document gets ``parent`` (kept, or adopted from a folder's children array when
    it had none) and a ``sortKey`` giving the order of the folder's children array; documents
    a folder does not list, and the top level, are ordered by name.

    A parent validation would refuse or that does not exist (not a folder, a folder of another
    collection, a missing document, a parent cycle) is replaced by the folder listing the
    document in its children array when that one fits, else by the top level; the value is kept
    as ``originalParent``, with a warning."""
    tree_docs = {i: d for i, d in docs.items() if d.get("type") == FOLDER_TYPE or d.get("type") in TREE_COLLECTIONS}
    for folder_id, child_ids in children_of.items():
        for child_id in child_ids:
            child = tree_docs.get(child_id)
            if child is None:
                if child_id not in docs:
                    report.warnings.append(f"{folder_id}: children lists {child_id!r}, which is not in the backup")
                continue
            parent = child.get("parent")
            problem = None if parent in (None, "") else _parent_problem(child, parent, docs)
            if (parent in (None, "") or problem) and _parent_problem(child, folder_id, docs) is None:
                if problem:
                    _replace_parent(child, folder_id, problem, f"placed in folder {folder_id!r}, which lists it",
                                    report)
                else:
                    child["parent"] = folder_id
    for doc in tree_docs.values():
        parent = doc.get("parent")
        if parent in (None, ""):
            doc["parent"] = None  # top level ("" is how some documents say it)
            continue
        problem = _parent_problem(doc, parent, docs)
        if problem:
            _replace_parent(doc, None, problem, "moved to the top level", report)
    for doc in tree_docs.values():
        chain = [doc["_id"]]
        current = doc.get("parent")
        while isinstance(current, str) and current not in chain[1:]:
            chain.append(current)
            if current == doc["_id"]:
                _replace_parent(doc, None, f"puts it inside itself ({' > '.join(chain)})", "moved to the top level",
                                report)
                break
            current = docs[current].get("parent") if current in docs else None
    groups: dict[tuple[str | None, str | None], list[dict[str, Any]]] = {}
    for doc in tree_docs.values():
        doc.setdefault("parent", None)
        parent = doc["parent"] if isinstance(doc["parent"], str) and doc["parent"] in docs else None
        key = (parent, None if parent else doc.get("collection"))
        groups.setdefault(key, []).append(doc)
    for (parent, _), members in groups.items():
        listed = children_of.get(parent, []) if parent else []
        position = {child_id: i for i, child_id in enumerate(dict.fromkeys(listed))}
        members.sort(
            key=lambda d: (
                position.get(d["_id"], len(position)),
                str(d.get("name", "")).casefold(),
                order_key(d),
            )
        )
        for doc, key in zip(members, spread_keys(len(members)), strict=True):
            doc["sortKey"] = key


def _parent_problem(doc: dict[str, Any], parent: Any, docs: dict[str, dict[str, Any]]) -> str | None:
    """Why ``parent`` cannot be ``doc``'s parent (``None``: it can)."""
    if not isinstance(parent, str):
        return f"is {_describe(parent)}, not a document id"
    if parent == doc.get("_id"):
        return "is the document itself"
    folder = docs.get(parent)
    if folder is None:
        return "does not exist in the backup"
    if folder.get("type") != FOLDER_TYPE:
        return f"is a {folder.get('type') or 'document without a type'}, not a folder"
    if folder.get("collection") != doc.get("collection"):
        return f"is a folder of {folder.get('collection')!r}, not of {doc.get('collection')!r}"
    return None


def _replace_parent(doc: dict[str, Any], new_parent: str | None, problem: str, outcome: str,
                    report: ImportReport) -> None:
    original = doc.get("parent")
    kept = _free_key(doc, "originalParent")
    doc[kept] = original
    doc["parent"] = new_parent
    report.warnings.append(f"{doc['_id']}: parent {original!r} {problem}; {outcome} (the value is kept as {kept})")
    _note(report, doc["_id"], "repair: parent replaced, the old one kept as originalParent")


# ---------------------------------------------------------------------------------------------
# Entry point


def import_backup(
    manager: ProjectManager, file: Path | str, name: str | None = None, *, allow_skips: bool = False
) -> tuple[Project, ImportReport]:
    """Import the Drafft backup ``file`` as a new project (a fresh project id every time).

    ``name`` overrides the project name of the backup; without it the backup's name is used,
    made unique among this machine's projects. Raises :class:`DrafftImportError` (and creates
    nothing) when the file is not a dump or holds nothing to import, and
    :class:`ImportWouldDropError` (creating nothing) when some documents or attachments cannot be
    imported even after the repairs, unless ``allow_skips`` is true: the rest is then imported
    and the report lists what was left out (``Skipped.lost``).
    """
    path = Path(file)
    try:
        rows = read_dump(path)
    except DumpError as exc:
        raise DrafftImportError(str(exc)) from None
    if name is not None:
        try:
            name = manager.check_new_name(name)
        except ProjectError as exc:
            raise DrafftImportError(str(exc)) from None
    project_id = str(uuid.uuid4())
    conversion = convert_rows(rows, source=path.name, project_id=project_id, name=name)
    report = conversion.report
    if not any(d.get("_id") != SETTINGS_ID for d in conversion.docs):
        lost = [s for s in report.skipped if s.lost]
        if lost and not allow_skips:
            raise ImportWouldDropError(str(path), lost)
        raise DrafftImportError(f"{path}: the backup holds no project documents to import")
    settings = next(d for d in conversion.docs if d["_id"] == SETTINGS_ID)
    if name is None:
        backup_name = str(settings["projectName"]).strip()
        problem = name_problem(backup_name)
        if problem:
            raise DrafftImportError(
                f"{path}: the backup's project name cannot be used ({problem}); "
                "import it under another name (--name NAME)"
            )
        settings["projectName"] = manager.unique_name(backup_name)
    report.project_name = settings["projectName"]
    # Inside staging: any exception removes the new project's directory (nothing is created).
    with manager.staging(project_id, settings["projectName"]) as project:
        written, refused = project.editor.write_many(conversion.docs, WriteIntent.IMPORT)
        for doc, exc in refused:
            doc_id = doc.get("_id", "?")
            if doc_id == SETTINGS_ID:
                raise DrafftImportError(f"{path}: the settings document cannot be imported: {exc}")
            label = conversion.labels.get(doc_id)
            if label is None:  # a document the import created (an expression image, the Hotkeys folder)
                report.created = [c for c in report.created if c.id != doc_id]
                report.skipped.append(
                    Skipped(doc_id, str(doc.get("type")), f"created by the import but refused: {exc}", lost=True)
                )
                continue
            report.skipped.append(Skipped(doc_id, label, f"refused by validation: {exc}", lost=True))
            counts = report.count(label)
            counts.imported -= 1
            counts.skipped += 1
            if doc_id in report.conversions:
                counts.converted -= 1
        lost = [s for s in report.skipped if s.lost]
        if lost and not allow_skips:
            raise ImportWouldDropError(str(path), lost)
        if not any(r.id in conversion.labels and r.id != SETTINGS_ID for r in written):
            raise DrafftImportError(
                f"{path}: none of the backup's documents could be imported, so nothing was imported"
                + "".join(f"\n  {s.id} ({s.type}): {s.reason}" for s in lost)
            )
        for result in written:
            for warning in result.warnings:
                report.warnings.append(str(warning))
        for local in conversion.local_docs:
            project.db.put_local(local)
    return project, report
