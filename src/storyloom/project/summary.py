"""What a project list shows beside a name: description, document count, last change.

:meth:`ProjectManager.list` reads only metadata files, so it stays cheap for commands that need
names. A list that also shows counts asks :func:`project_summary` for each project it shows:
one short read of the store's counters and its settings document, no index, no changes feed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import UTC, datetime

from storyloom.project.collections import SETTINGS_ID
from storyloom.project.manager import STORE_FILE, ProjectInfo
from storyloom.store import Database, NotFound, StoreError


@dataclass(frozen=True)
class ProjectSummary:
    """``documents`` counts the project's documents (folders included, the settings document
    not); ``modified`` is the last write to the store file (UTC); ``problem`` says why the
    store could not be read (the other fields are then empty)."""

    info: ProjectInfo
    description: str = ""
    documents: int | None = None
    modified: datetime | None = None
    problem: str = ""


def _last_write(info: ProjectInfo) -> datetime | None:
    # SQLite in WAL mode writes the -wal file first: the newest of the two is the last change.
    times = []
    for suffix in ("", "-wal"):
        try:
            times.append(os.stat(info.path / (STORE_FILE + suffix)).st_mtime)
        except OSError:
            continue
    return datetime.fromtimestamp(max(times), UTC) if times else None


def project_summary(info: ProjectInfo) -> ProjectSummary:
    """The summary of one listed project; a store that cannot be read gives ``problem``."""
    modified = _last_write(info)
    try:
        db = Database(info.path / STORE_FILE, create=False)
    except (StoreError, OSError) as exc:
        return ProjectSummary(info, modified=modified, problem=f"cannot read the project's store: {exc}")
    try:
        count = int(db.info()["doc_count"])
        try:
            settings = db.get(SETTINGS_ID)
        except NotFound:
            settings = {}
        else:
            count -= 1
    finally:
        db.close()
    description = settings.get("projectDescription")
    return ProjectSummary(
        info,
        description=description if isinstance(description, str) else "",
        documents=max(count, 0),
        modified=modified,
    )
