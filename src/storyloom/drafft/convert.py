"""The conversion of a Drafft backup's rows into Storyloom documents (pure: rows in, documents
out): settings, dates, locks, and the steps of :mod:`shapes`, :mod:`assets` and :mod:`folders`."""

from __future__ import annotations

import copy
import hashlib
import json
import math
import sys
from collections.abc import Iterator, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from storyloom.drafft.assets import convert_attachments, extract_expressions, group_hotkeys, image_key
from storyloom.drafft.folders import build_tree
from storyloom.drafft.report import (
    HOTKEYS_COLLECTION,
    Created,
    ImportReport,
    Skipped,
    free_key,
    type_label,
    without_rev,
)
from storyloom.drafft.shapes import convert_hotkey, convert_v1_shapes, repair_document
from storyloom.project import (
    ATTACHMENT_TYPE,
    DATE_FIELDS,
    KNOWN_TYPES,
    LEGACY_REMOTE_FIELDS,
    SETTINGS_ID,
    UNLOCKED_BY,
    DateFormatError,
    DiskMapping,
    MemorySpool,
    Spool,
    default_settings,
    fill_defaults,
    normalise_date,
)

# Where the v1 replication settings go: a _local document (never replicated, never exported).
LEGACY_REMOTE_LOCAL_ID = "_local/drafft-remote"


# Never kept: stores are files on disk and backups get copied around; the user types it again.
LEGACY_REMOTE_PASSWORD = "remoteDbPassword"


PASSWORD_NOT_KEPT = (
    "the backup's remote database password (remoteDbPassword) was not kept: enter it again when "
    "you sync (it is asked for then)"
)


@dataclass
class Conversion:
    """The documents to write, the ``_local`` documents, and the report (counts filled)."""

    docs: list[dict[str, Any]]
    local_docs: list[dict[str, Any]]
    report: ImportReport
    labels: dict[str, str]


def convert_rows(rows: list[dict[str, Any]], *, source: str, project_id: str, name: str | None = None) -> Conversion:
    """Convert the rows of a Drafft dump into Storyloom documents for a project ``project_id``."""
    converter = Converter(source=source, project_id=project_id, name=name)
    for row in rows:
        converter.add(row)
    converter.finish()
    docs, labels = list(converter.docs()), dict(converter.labels)
    local_docs = list(converter.local_docs)
    converter.release()
    converter.report._types = labels
    return Conversion(docs, local_docs, converter.report, labels)


# What the passes over the whole backup (folders, Hotkeys) read and write of a document: its
# summary keeps these keys (and any ``originalParent…`` a repair may add), in the document's order.
SUMMARY_KEYS = frozenset({"_id", "type", "collection", "parent", "name", "sortKey", "originalCollection"})
# The keys those passes write, copied from a summary into its document when it is written.
TREE_KEYS = frozenset({"parent", "sortKey"})
KEPT_PARENT = "originalParent"


# Summary values that repeat from document to document (a type, a collection, a folder's id) are
# kept once each (interned), not once per document.
_SHARED_VALUES = frozenset({"type", "collection", "parent", "originalCollection"})


def _summary(doc: dict[str, Any]) -> dict[str, Any]:
    return {
        k: sys.intern(v) if k in _SHARED_VALUES and type(v) is str else v
        for k, v in doc.items()
        if k in SUMMARY_KEYS or k.startswith(KEPT_PARENT)
    }


class Converter:
    """The conversion, one row at a time (:meth:`add`), then the passes over the whole backup
    (:meth:`finish`), then the documents to write (:meth:`docs`).

    Converted documents wait in ``spool`` (a :class:`~storyloom.project.spool.MemorySpool` by
    default; a :class:`~storyloom.project.spool.FileSpool` keeps memory bounded); what the later
    passes need stays in memory as small summaries (``summaries``, id to the keys of
    :data:`SUMMARY_KEYS`): the tree pass runs on them, and :meth:`docs` copies the keys it wrote
    into each document. A row repeating an id is compared by a digest of its document.
    """

    def __init__(self, *, source: str, project_id: str, name: str | None = None, spool: Spool | None = None) -> None:
        self.report = ImportReport(source=source, rows=0, project_id=project_id)
        self.spool: Spool = spool if spool is not None else MemorySpool()
        # What is kept per document waits in one temporary SQLite database, not in dicts (issue
        # 28: memory flat at any size; 1.1 KB a document in dicts).
        self.summaries: DiskMapping = DiskMapping()
        #: Each imported document's type label (the report keeps the same, so it is shared).
        self.labels: MutableMapping[str, str] = DiskMapping(like=self.summaries)
        self.report._types = self.labels
        self.local_docs: list[dict[str, Any]] = []
        #: Ids of the Variable documents, in the backup's order.
        self.variables: list[str] = []
        self._source = source
        self._project_id = project_id
        self._name = name
        self._digests: MutableMapping[str, bytes] = DiskMapping(like=self.summaries)
        self._children_of: MutableMapping[str, list[str]] = DiskMapping(like=self.summaries)
        self._images: dict[tuple[str, str], str] = {}
        self._actors: list[str] = []
        self._saw_v1 = self._saw_v2 = False

    def add(self, row: dict[str, Any]) -> None:
        """Convert one row of the dump (the next one)."""
        report = self.report
        index = report.rows
        report.rows += 1
        source_doc = row.get("doc")
        row_id = str(row.get("id") or row.get("key") or (source_doc or {}).get("_id") or f"row {index}")
        if not isinstance(source_doc, dict):
            value = raw if isinstance(raw := row.get("value"), dict) else {}
            reason = (
                "deleted document"
                if value.get("deleted")
                else f"row without a document ({row.get('error') or 'no doc'})"
            )
            report.skipped.append(Skipped(row_id, "(none)", reason))
            report.count("(none)").skipped += 1
            return
        label = sys.intern(type_label(source_doc))
        doc_id = source_doc.get("_id")
        if not isinstance(doc_id, str) or not doc_id:
            report.skipped.append(Skipped(row_id, label, "document without an _id", lost=True))
            report.count(label).skipped += 1
            return
        if doc_id.startswith("_design/"):
            report.skipped.append(Skipped(doc_id, label, "design document (a PouchDB index), not project data"))
            report.count(label).skipped += 1
            return
        if doc_id.startswith("_local/"):
            report.skipped.append(Skipped(doc_id, label, "local document (never replicated), not project data"))
            report.count(label).skipped += 1
            return
        if source_doc.get("_deleted"):
            report.skipped.append(Skipped(doc_id, label, "deleted document"))
            report.count(label).skipped += 1
            return
        digest = _digest(source_doc)
        if doc_id in self._digests:
            if digest == self._digests[doc_id]:
                report.skipped.append(Skipped(doc_id, label, "a second row repeating the same document"))
            else:
                report.skipped.append(
                    Skipped(doc_id, label, "a second row with the same id but other content (the first is kept)",
                            lost=True)
                )
            report.count(label).skipped += 1
            return
        doc = {
            k: copy.deepcopy(v) for k, v in source_doc.items() if not k.startswith("_") or k in ("_id", "_attachments")
        }
        notes: list[str] = []
        if "children" in doc:
            children = doc.pop("children")
            found = [
                c if isinstance(c, str) else c.get("_id") if isinstance(c, dict) else None
                for c in (children if isinstance(children, list) else [])
            ]
            ids = [i for i in found if isinstance(i, str)]
            if ids:
                self._children_of[doc_id] = ids
                report.folders_converted += 1
        doc.pop("path", None)
        _normalise_dates(doc, report)
        _release_lock(doc, report)
        if doc_id == SETTINGS_ID:
            local = _convert_settings(doc, notes, self._project_id, self._name, self._source, report)
            if local:
                self.local_docs.append(local)
                report.local_documents.append(local["_id"])
        elif doc.get("type") is None and doc.get("collection") == HOTKEYS_COLLECTION:
            doc = convert_hotkey(doc, notes)
            self._saw_v1 = True
        elif doc.get("type") not in KNOWN_TYPES:
            report.skipped.append(
                Skipped(doc_id, label, f"unknown document type {doc.get('type')!r}: not a Drafft project document",
                        lost=True)
            )
            report.count(label).skipped += 1
            return
        else:
            v1 = convert_v1_shapes(doc, notes, report)
            self._saw_v1 = self._saw_v1 or v1
            self._saw_v2 = self._saw_v2 or isinstance(source_doc.get("content"), dict)
        convert_attachments(doc, notes, report)
        if doc_id != SETTINGS_ID:
            repair_document(doc, notes, report)
        self._digests[doc_id] = digest
        self.labels[doc_id] = label
        if notes:
            report.conversions[doc_id] = notes
            report.count(label).converted += 1
        report.count(label).imported += 1
        self._keep(doc)

    def _keep(self, doc: dict[str, Any]) -> None:
        doc_id = doc["_id"]
        self.spool.put(doc)
        self.summaries[doc_id] = _summary(doc)
        doc_type = doc.get("type")
        if doc_type == ATTACHMENT_TYPE:
            key = image_key((doc.get("_attachments") or {}).get("blob"))
            if key is not None:
                self._images.setdefault(key, doc_id)
        elif doc_type == "Actor":
            if any(str(a).startswith("expression_") for a in doc.get("_attachments") or ()):
                self._actors.append(doc_id)
        elif doc_type == "Variable":
            self.variables.append(doc_id)

    def finish(self) -> None:
        """The passes over the whole backup: expression images, Hotkeys, settings, folders."""
        report = self.report
        extract_expressions(self.spool, report, self._images, self._actors, self._keep)
        group_hotkeys(self.summaries, report, self._keep)
        if SETTINGS_ID not in self.spool:
            name = self._name or Path(self._source).stem or "Imported project"
            settings = default_settings(name, project_id=self._project_id)
            self._keep(settings)
            report.created.append(Created(SETTINGS_ID, "ProjectSettings", "the backup had no settings document"))
        build_tree(self.summaries, self._children_of, report)
        report.project_name = self.spool.get(SETTINGS_ID)["projectName"]
        report.format = "v1 and v2 (partially migrated)" if self._saw_v1 and self._saw_v2 else (
            "v1" if self._saw_v1 else "v2")
        self._digests.clear()
        self._children_of.clear()

    def release(self) -> None:
        """Let go of what the conversion holds per document (the report stays, with the labels
        of the documents it lists conversions of): once every document is written, before the
        project index is built."""
        labels = self.labels
        self.labels = self.report._types = {d: labels[d] for d in self.report.conversions if d in labels}
        self.summaries.close()
        self.variables.clear()
        self.local_docs.clear()
        self._images.clear()
        self._actors.clear()
        self.spool.close()

    def docs(self) -> Iterator[dict[str, Any]]:
        """The documents to write, in the backup's order (created ones last), with what the
        folder and Hotkeys passes wrote into their summaries."""
        for doc in self.spool.values():
            yield self._finished(doc)

    def final_doc(self, doc_id: str) -> dict[str, Any] | None:
        """The document ``doc_id`` as :meth:`docs` gives it (``None``: the import has none)."""
        return self._finished(self.spool.get(doc_id)) if doc_id in self.spool else None

    def _finished(self, doc: dict[str, Any]) -> dict[str, Any]:
        for key, value in self.summaries[doc["_id"]].items():
            if key in TREE_KEYS or key.startswith(KEPT_PARENT):
                doc[key] = value
        return doc


def _digest(doc: dict[str, Any]) -> bytes:
    """What two rows with the same id are compared by: their documents without ``_rev``
    (key order aside, as dicts compare)."""
    text = json.dumps(without_rev(doc), sort_keys=True, ensure_ascii=False, default=repr)
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


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
            kept = free_key(doc, f"{key}Original")
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
