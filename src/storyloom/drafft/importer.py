"""The entry point: read a Drafft backup, convert it, and write it as a new project through the
editor gate (all or nothing)."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from storyloom.diagnostics import name_list
from storyloom.drafft.convert import Converter
from storyloom.drafft.report import (
    DamagedDrafftBackupError,
    DrafftImportError,
    ImportReport,
    ImportWouldDropError,
    Skipped,
)
from storyloom.errors import Fix
from storyloom.progress import ProgressCallback, reporter
from storyloom.project import (
    SETTINGS_ID,
    BulkContext,
    DumpError,
    FileSpool,
    Project,
    ProjectError,
    ProjectManager,
    WriteIntent,
    batches,
    damaged_warnings,
    name_problem,
    read_dump_rows,
)


def import_backup(
    manager: ProjectManager, file: Path | str, name: str | None = None, *, allow_skips: bool = False,
    progress: ProgressCallback | None = None, accept_damaged: bool = False,
) -> tuple[Project, ImportReport]:
    """Import the Drafft backup ``file`` as a new project (a fresh project id every time).

    ``name`` overrides the project name of the backup; without it the backup's name is used,
    made unique among this machine's projects. Raises :class:`DrafftImportError` (and creates
    nothing) when the file is not a dump or holds nothing to import, and
    :class:`ImportWouldDropError` (creating nothing) when some documents or attachments cannot be
    imported even after the repairs, unless ``allow_skips`` is true: the rest is then imported
    and the report lists what was left out (``Skipped.lost``).

    Memory stays bounded whatever the backup's size: the file is parsed as a stream, converted
    documents wait in a temporary file, and they are written in batches, each checked against
    the whole backup. ``progress`` hears phase ``"import"``: rows read, then documents written
    out of the total.

    An attachment whose bytes do not match the digest the backup recorded with it
    (:mod:`storyloom.project.attachment_digests`) makes the import fail, creating nothing
    (:class:`DamagedDrafftBackupError`, naming each), unless ``accept_damaged``: it is then
    imported as it is (the store keeps the digest of its bytes), with a warning in the report
    for each (and ``report.damaged_attachments``).
    """
    path = Path(file)
    if name is not None:
        try:
            name = manager.check_new_name(name)
        except ProjectError as exc:
            raise DrafftImportError(str(exc)) from None
    project_id = str(uuid.uuid4())
    converter = Converter(source=path.name, project_id=project_id, name=name, spool=FileSpool())
    try:
        return _import(manager, path, converter, name, allow_skips, accept_damaged, progress)
    finally:
        converter.spool.close()


def _import(manager: ProjectManager, path: Path, converter: Converter, name: str | None, allow_skips: bool,
            accept_damaged: bool, progress: ProgressCallback | None) -> tuple[Project, ImportReport]:
    reading = reporter(progress, "import")
    reading.set_detail(f"reading {path.name}")
    try:
        for row in read_dump_rows(path):
            converter.add(row)
            reading.advance()
    except DumpError as exc:
        raise DrafftImportError(str(exc)) from None
    reading.finish()
    converter.finish()
    report = converter.report
    spool = converter.spool
    if report.damaged_attachments:
        if not accept_damaged:
            raise DamagedDrafftBackupError(str(path), report.damaged_attachments, verb="import")
        report.warnings.extend(damaged_warnings(report.damaged_attachments))
    if not any(doc_id != SETTINGS_ID for doc_id in converter.summaries):
        lost = [s for s in report.skipped if s.lost]
        if lost and not allow_skips:
            raise ImportWouldDropError(str(path), lost)
        raise DrafftImportError(f"{path}: the backup holds no project documents to import")
    settings = spool.get(SETTINGS_ID)
    if name is None:
        backup_name = str(settings["projectName"]).strip()
        problem = name_problem(backup_name)
        if problem:
            raise DrafftImportError(f"{path}: the backup's project name cannot be used ({problem})",
                                    fix=Fix("other_name", verb="import"))
        settings["projectName"] = manager.unique_name(backup_name)
        spool.put(settings)
    report.project_name = settings["projectName"]
    context = BulkContext(converter.final_doc)
    for doc_id in converter.variables:
        context.add_variable(spool.get(doc_id))
    labels = converter.labels
    writing = reporter(progress, "import", len(spool))
    writing.set_detail("writing")
    # Inside staging: any exception removes the new project's directory (nothing is created).
    with manager.staging(report.project_id, settings["projectName"]) as project:
        warnings: list[str] = []
        imported_any = False
        for batch in batches(converter.docs()):
            written, refused = project.editor.write_batch_of_many(batch, context, WriteIntent.IMPORT)
            for doc, error in refused:
                _refused(path, report, labels, doc, error)
            for result in written:
                imported_any = imported_any or (result.id in labels and result.id != SETTINGS_ID)
                warnings.extend(str(warning) for warning in result.warnings)
            writing.advance(len(batch))
        lost = [s for s in report.skipped if s.lost]
        if lost and not allow_skips:
            raise ImportWouldDropError(str(path), lost)
        if not imported_any:
            raise DrafftImportError(
                f"{path}: none of the backup's documents could be imported, so nothing was imported"
                + name_list((f"\n  {s.id} ({s.type}): {s.reason}" for s in lost), separator="", empty="")
            )
        report.warnings.extend(warnings)
        for local in converter.local_docs:
            project.editor.write_local(local, WriteIntent.IMPORT)
        # The staging's end builds the project index: the conversion's memory goes first.
        del context
        converter.release()
        writing.set_detail("indexing")
    writing.finish()
    return project, report


def _refused(path: Path, report: ImportReport, labels: Mapping[str, str], doc: dict[str, Any], exc: Exception) -> None:
    """A document the gate refused: reported as left out (or the import fails: the settings)."""
    doc_id = doc.get("_id", "?")
    if doc_id == SETTINGS_ID:
        raise DrafftImportError(f"{path}: the settings document cannot be imported: {exc}")
    label = labels.get(doc_id)
    if label is None:  # a document the import created (an expression image, the Hotkeys folder)
        report.created = [c for c in report.created if c.id != doc_id]
        report.skipped.append(
            Skipped(doc_id, str(doc.get("type")), f"created by the import but refused: {exc}", lost=True)
        )
        return
    report.skipped.append(Skipped(doc_id, label, f"refused by validation: {exc}", lost=True))
    counts = report.count(label)
    counts.imported -= 1
    counts.skipped += 1
    if doc_id in report.conversions:
        counts.converted -= 1
