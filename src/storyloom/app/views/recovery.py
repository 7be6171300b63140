"""The way back from a damaged project, as the app offers it: what it can do (salvage what
still reads, restore the newest automatic backup, join the team's server again) and the words
for what it did. The work itself is the project layer's (``storyloom.project.salvage_project``) and
:mod:`storyloom.app.auto_backups`'s; the desktop app runs it on a worker thread.
"""

from __future__ import annotations

from dataclasses import dataclass

from storyloom.app.auto_backups import AutoBackup, list_backups, restored_name
from storyloom.project import ProjectInfo, ProjectManager, SalvageReport
from storyloom.words import counted

#: Said in every offer: the third way back, which needs the team's server, not this machine.
SERVER_WAY = ("If the project syncs with a team server, joining it again from the server (Join a project "
              "from a server…) is the other way back.")


@dataclass(frozen=True)
class Recovery:
    """What the app offers for a damaged project."""

    project_id: str
    project_name: str
    damage: str
    salvage_name: str
    newest_backup: AutoBackup | None
    backup_name: str | None

    @property
    def text(self) -> str:
        """The offer in words: what is wrong, what each way back does."""
        lines = [f"“{self.project_name}” is damaged: {self.damage}.",
                 "Nothing has been changed. Salvage copies every document that still reads into a new "
                 "project and lists what it could not read."]
        if self.newest_backup is not None:
            lines.append(f"The newest automatic backup is from {self.newest_backup.local_time()} "
                         f"({self.newest_backup.size_text()}); restoring it makes a new project beside this one.")
        lines.append(SERVER_WAY)
        return "\n\n".join(lines)


def recovery_for(manager: ProjectManager, info: ProjectInfo, damage: str) -> Recovery:
    """The offer for ``info``, whose store is damaged as ``damage`` says."""
    backups = list_backups(info.id)
    newest = backups[0] if backups else None
    return Recovery(
        project_id=info.id,
        project_name=info.name,
        damage=damage,
        salvage_name=manager.unique_name(f"{info.name or 'Project'} (salvaged)"),
        newest_backup=newest,
        backup_name=None if newest is None else restored_name(manager, info.name, newest),
    )


def salvage_summary(name: str, report: SalvageReport) -> str:
    """One line for what a salvage did."""
    if report.complete:
        return f"Salvaged every document into “{name}”."
    parts = []
    if report.lost:
        parts.append(f"{counted(len(report.lost), 'item')} could not be read")
    if report.rewritten:
        parts.append(f"{len(report.rewritten):,} copied from damaged revisions: review them")
    return f"Salvaged {counted(report.copied, 'document')} into “{name}”; " + "; ".join(parts) + "."
