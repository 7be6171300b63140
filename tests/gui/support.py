"""Helpers the GUI tests share (the fixtures are in conftest.py)."""

from __future__ import annotations

from typing import Any

from tests.support.fixtures import DRAFFT_PROJECTS

#: The richest Drafft sample: every window test opens it.
GARDEN = DRAFFT_PROJECTS / "v2" / "the-garden-of-fading-memories.json"


def first_document(window, doc_type: str) -> str:  # type: ignore[no-untyped-def]
    """The id of the first document of ``doc_type`` (by id) in the window's project."""
    return sorted((s for s in window.session.index.summaries() if s.type == doc_type), key=lambda s: s.id)[0].id


def open_sample_window(qtbot, workspace: Any, settings: dict | None = None):  # type: ignore[no-untyped-def]
    """A new built-in sample project (its settings changed by ``settings`` first) in its project
    window at 1440x900, shown."""
    from storyloom.gui.main_window import open_project_window
    from storyloom.project.sample import create_sample_project

    project = create_sample_project(workspace.manager)
    if settings:
        project.editor.update_settings(settings)
    name = project.name
    project.close()
    win = open_project_window(workspace, name)
    qtbot.addWidget(win)
    win.resize(1440, 900)
    win.show()
    qtbot.waitExposed(win)
    return win
