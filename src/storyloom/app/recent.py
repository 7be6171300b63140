"""Recently opened projects, per user and machine (``<config dir>/recent.json``), newest first.

The project manager lists them and offers to reopen the last one. Entries name projects by id
(a rename keeps them) and carry the name seen last, for a project that has since gone: readers
pass the projects that exist (:meth:`RecentProjects.existing`), so a deleted project simply drops
out. The file is small, rewritten atomically, and a broken file reads as empty: losing the
recent list must never stop the app from starting.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from storyloom import paths
from storyloom.output_files import atomic_write

RECENT_FILE = "recent.json"
MAX_RECENT = 10


@dataclass(frozen=True)
class RecentProject:
    id: str
    name: str
    opened: str  # ISO 8601, UTC


class RecentProjects:
    """The recent list stored at ``file`` (default: the config directory's ``recent.json``)."""

    def __init__(self, file: Path | str | None = None, limit: int = MAX_RECENT) -> None:
        self._file = Path(file) if file is not None else None
        self.limit = limit

    @property
    def file(self) -> Path:
        return self._file or paths.config_dir() / RECENT_FILE

    # -- reading -----------------------------------------------------------------------------

    def entries(self) -> list[RecentProject]:
        """Every entry, newest first (an unreadable file gives none)."""
        try:
            data = json.loads(self.file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return []
        rows = data.get("projects") if isinstance(data, dict) else None
        found: list[RecentProject] = []
        seen: set[str] = set()
        for row in rows if isinstance(rows, list) else []:
            entry = _entry(row)
            if entry is not None and entry.id not in seen:
                seen.add(entry.id)
                found.append(entry)
        return found[: self.limit]

    def existing(self, project_ids: Iterable[str]) -> list[RecentProject]:
        """The entries whose project is among ``project_ids`` (the projects that exist now)."""
        known = set(project_ids)
        return [entry for entry in self.entries() if entry.id in known]

    def last(self, project_ids: Iterable[str]) -> RecentProject | None:
        """The project opened last that still exists, if any: what "reopen last" opens."""
        found = self.existing(project_ids)
        return found[0] if found else None

    # -- writing -----------------------------------------------------------------------------

    def record(self, project_id: str, name: str, *, when: datetime | None = None) -> None:
        """Put a project at the top of the list (opened now, or ``when``)."""
        stamp = (when or datetime.now(UTC)).astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
        rest = [entry for entry in self.entries() if entry.id != project_id]
        self._write([RecentProject(project_id, name, stamp), *rest][: self.limit])

    def rename(self, project_id: str, name: str) -> None:
        """Follow a rename, keeping the entry's place."""
        entries = self.entries()
        if any(entry.id == project_id for entry in entries):
            self._write([RecentProject(e.id, name, e.opened) if e.id == project_id else e for e in entries])

    def forget(self, project_id: str) -> None:
        """Drop a project from the list (it was deleted)."""
        entries = self.entries()
        kept = [entry for entry in entries if entry.id != project_id]
        if len(kept) != len(entries):
            self._write(kept)

    def _write(self, entries: list[RecentProject]) -> None:
        file = self.file
        text = json.dumps({"projects": [asdict(entry) for entry in entries]}, indent=2) + "\n"
        atomic_write(file, text)


def _entry(row: Any) -> RecentProject | None:
    if not isinstance(row, dict):
        return None
    project_id, name, opened = row.get("id"), row.get("name"), row.get("opened")
    if not isinstance(project_id, str) or not project_id:
        return None
    return RecentProject(project_id, name if isinstance(name, str) else "", opened if isinstance(opened, str) else "")
