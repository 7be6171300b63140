"""The project manager's screenshots: with projects (a Drafft sample when the shared fixtures are
there, plus a few made here) and empty."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QWidget

from storyloom.app import Workspace
from storyloom.app.recent import RecentProjects
from storyloom.gui.project_manager import ProjectManagerWindow
from storyloom.gui.screenshots import register

# The Drafft samples beside the checkout (tests/support/fixtures.py names the same folder).
DRAFFT_SAMPLE = Path(__file__).resolve().parents[3].parent / "shared" / "fixtures" / "drafft" / "projects" / "v2" \
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
