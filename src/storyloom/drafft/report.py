"""What a Drafft import reports (created, skipped, repaired, notices) and its errors, plus the
small helpers every conversion step shares."""

from __future__ import annotations

import json
import uuid
from collections import Counter
from collections.abc import MutableMapping
from dataclasses import dataclass, field
from typing import Any

from storyloom.errors import Fix, StoryloomError
from storyloom.project import FOLDER_TYPE, SETTINGS_ID, DamagedAttachment, DamagedAttachmentsError

HOTKEYS_COLLECTION = "Hotkeys"


_NAMESPACE = uuid.UUID("6f0f7a52-3b9e-4c53-9d7e-2f1b8a0c5d11")


class DrafftImportError(StoryloomError):
    """The file cannot be imported (not a dump, nothing to import); no project was created."""

    code = "drafft_import_refused"
    fixes = ("other_name",)


class ImportWouldDropError(DrafftImportError):
    """Some documents (or attachments) of the backup cannot be imported, even after the repairs;
    importing the rest would lose them, so nothing was created. ``dropped`` lists each with its
    reason; ``import_backup(..., allow_skips=True)`` imports the rest and reports them."""

    code = "import_would_drop"
    fixes = ("allow_skips",)

    def __init__(self, source: str, dropped: list[Skipped]) -> None:
        self.dropped = list(dropped)
        count = len(self.dropped)
        lines = [
            f"{source}: {count} {'entry' if count == 1 else 'entries'} of the backup cannot be imported "
            "(importing the rest would lose them), so nothing was imported:"
        ]
        lines += [f"  {s.id} ({s.type}): {s.reason}" for s in self.dropped]
        super().__init__("\n".join(lines), fix=Fix("allow_skips"))


class DamagedDrafftBackupError(DamagedAttachmentsError, DrafftImportError):
    """The backup holds attachments whose bytes do not match their recorded digest; nothing was
    created (``import_backup(..., accept_damaged=True)`` imports them as they are)."""

    code = "damaged_drafft_backup"


def stable_id(*parts: str) -> str:
    """A deterministic UUID for a document the import creates (same input, same id)."""
    return str(uuid.uuid5(_NAMESPACE, "/".join(parts)))


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
    #: Attachments whose bytes do not match the digest the backup recorded with them.
    damaged_attachments: list[DamagedAttachment] = field(default_factory=list)
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

    _types: MutableMapping[str, str] = field(default_factory=dict, repr=False)

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
            "damagedAttachments": [
                {"docId": d.doc_id, "name": d.name, "recordedDigest": d.recorded, "digest": d.actual}
                for d in self.damaged_attachments
            ],
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


def without_rev(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k != "_rev"}


def free_key(obj: dict[str, Any], key: str) -> str:
    """``key``, or ``key2``, ``key3``... : the first name ``obj`` does not use (where an import
    keeps an original value, never overwriting a field of the source)."""
    candidate, n = key, 1
    while candidate in obj:
        n += 1
        candidate = f"{key}{n}"
    return candidate


def note(report: ImportReport, doc_id: str, change: str) -> None:
    """Record a change made after the document was counted (the tree and expression passes)."""
    notes = report.conversions.setdefault(doc_id, [])
    if not notes and doc_id in report._types:
        report.count(report._types[doc_id]).converted += 1
    if change not in notes:
        notes.append(change)


def describe(value: Any) -> str:
    kind = {dict: "an object", list: "an array", str: "text", bool: "a boolean", int: "a number",
            float: "a number", type(None): "null"}.get(type(value), type(value).__name__)
    text = json.dumps(value, ensure_ascii=False, default=str)
    if len(text) > 60:
        text = text[:57] + "..."
    return kind if value is None else f"{kind} ({text})"
