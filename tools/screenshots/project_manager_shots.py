"""The project manager's screenshots: with projects (a Drafft sample when the shared fixtures are
there, plus a few made here), empty, and a project's automatic backups (the dialog drawn over the
window, where the user sees it)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QWidget

from storyloom.app import Workspace
from storyloom.app.auto_backups import list_backups, restored_name, take_backup
from storyloom.app.recent import RecentProjects
from storyloom.app.views.recovery import recovery_for
from storyloom.gui.damaged_project import DamagedProjectDialog
from storyloom.gui.project_manager import ProjectManagerWindow
from storyloom.gui.project_manager_dialogs import AutoBackupsDialog
from tools.screenshots import register

# The Drafft samples beside the checkout (tests/support/fixtures.py names the same folder).
DRAFFT_SAMPLE = Path(__file__).resolve().parents[2].parent / "shared" / "fixtures" / "drafft" / "projects" / "v2" \
    / "the-garden-of-fading-memories.json"


def _no_opener(workspace: Workspace, project: str, parent: QWidget | None = None) -> QWidget:
    raise RuntimeError("screenshots never open a project")


@register("project-manager")
def project_manager(workspace: Workspace, out_dir: Path) -> QWidget:
    manager = workspace.manager
    recent = RecentProjects()
    if DRAFFT_SAMPLE.exists():
        from storyloom.drafft import import_backup

        project, _report = import_backup(manager, DRAFFT_SAMPLE)
        with project:
            recent.record(project.id, project.name)
    for name, description in (
        ("Ashes of Aurora", "Act II rewrite: the lighthouse keeper's choices and the storm chase"),
        ("Tavern Tales", "Bark and ambient dialogue for the harbour district"),
        ("Prototype — Sky Rails", ""),
    ):
        with manager.create(name, description) as project:
            for index in range(3):
                project.editor.create("Script", f"Scene {index + 1}")
            recent.record(project.id, project.name)
    window = ProjectManagerWindow(workspace, opener=_no_opener, recent=recent)
    return window


@register("project-manager-empty")
def project_manager_empty(workspace: Workspace, out_dir: Path) -> QWidget:
    return ProjectManagerWindow(workspace, opener=_no_opener)


@register("project-manager-backups")
def project_manager_backups(workspace: Workspace, out_dir: Path) -> QWidget:
    window = project_manager(workspace, out_dir)
    assert isinstance(window, ProjectManagerWindow)
    projects = workspace.manager.list()
    info = next((p for p in projects if p.name.startswith("The Garden")), projects[0])
    now = datetime.now(UTC).replace(second=0, microsecond=0)
    with workspace.manager.open(info.id) as project:
        # A working week of backups, the project growing between them.
        for number, age in enumerate((timedelta(days=4, hours=3), timedelta(days=2, hours=1),
                                      timedelta(days=1, hours=5), timedelta(hours=3, minutes=12),
                                      timedelta(minutes=8))):
            project.editor.create("Script", f"Draft {number + 1}", content={"script": "::Woman:: …\n" * 400})
            take_backup(project, 10, now=now - age)
    window.select(info.id)
    dialog = AutoBackupsDialog(info.name, list_backups(info.id), workspace.options.auto_backups_keep,
                               lambda backup: restored_name(workspace.manager, info.name, backup))
    dialog.setWindowFlags(Qt.WindowType.Widget)  # drawn inside the window: one picture shows both
    dialog.setParent(window)
    dialog.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
    dialog.setStyleSheet("#auto-backups { background: palette(window); border: 1px solid palette(mid); "
                         "border-radius: 8px; }")
    window.resize(1440, 900)
    dialog.move(QPoint((1440 - dialog.width()) // 2, (900 - dialog.height()) // 2))
    dialog.show()
    dialog.raise_()
    return window


@register("project-manager-damaged")
def project_manager_damaged(workspace: Workspace, out_dir: Path) -> QWidget:
    """The offer for a project that does not open as damaged, over the list."""
    window = project_manager(workspace, out_dir)
    assert isinstance(window, ProjectManagerWindow)
    projects = workspace.manager.list()
    info = next((p for p in projects if p.name.startswith("The Garden")), projects[0])
    with workspace.manager.open(info.id) as project:
        take_backup(project, 10)
    window.select(info.id)
    damage = "SQLite: database disk image is malformed"
    dialog = DamagedProjectDialog(recovery_for(workspace.manager, info, damage))
    dialog.setWindowFlags(Qt.WindowType.Widget)  # drawn inside the window: one picture shows both
    dialog.setParent(window)
    dialog.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
    dialog.setStyleSheet("#damaged-project { background: palette(window); border: 1px solid palette(mid); "
                         "border-radius: 8px; }")
    window.resize(1440, 900)
    dialog.adjustSize()
    dialog.move(QPoint((1440 - dialog.width()) // 2, (900 - dialog.height()) // 2))
    dialog.show()
    dialog.raise_()
    return window
