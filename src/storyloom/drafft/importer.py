"""The entry point: read a Drafft backup, convert it, and write it as a new project through the
editor gate (all or nothing)."""

from __future__ import annotations

import uuid
from pathlib import Path

from storyloom.diagnostics import name_list
from storyloom.drafft.convert import convert_rows
from storyloom.drafft.report import DrafftImportError, ImportReport, ImportWouldDropError, Skipped
from storyloom.project.collections import SETTINGS_ID
from storyloom.project.editor import WriteIntent
from storyloom.project.manager import DumpError, Project, ProjectError, ProjectManager, read_dump
from storyloom.project.names import name_problem


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
                + name_list((f"\n  {s.id} ({s.type}): {s.reason}" for s in lost), separator="", empty="")
            )
        for result in written:
            for warning in result.warnings:
                report.warnings.append(str(warning))
        for local in conversion.local_docs:
            project.editor.write_local(local, WriteIntent.IMPORT)
    return project, report
