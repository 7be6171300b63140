"""Screenshots of the dialogue player and the Scene editor, on the built-in sample
("The Lighthouse Keeper"): the interview played through one question, waiting on the next
choice; the scene "Night one" with its three items."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QWidget

from storyloom.app import Workspace
from storyloom.gui.main_window import MainWindow, open_project_window
from storyloom.project.sample import SAMPLE_NAME, create_sample_project
from tools.screenshots import SIZE, register


def sample_window(workspace: Workspace) -> MainWindow:
    """The built-in sample's project window."""
    create_sample_project(workspace.manager).close()
    window = open_project_window(workspace, SAMPLE_NAME)
    window.resize(SIZE)
    return window


def _doc_id(window: MainWindow, doc_type: str, name: str) -> str:
    return next(s.id for s in window.session.index.summaries() if s.type == doc_type and s.name == name)


@register("dialogue-player")
def dialogue_player(workspace: Workspace, out_dir: Path) -> QWidget:
    from storyloom.gui.player import open_player

    window = sample_window(workspace)
    window.navigate_to("", _doc_id(window, "Dialogue", "The Interview"))
    player = open_player(window, _doc_id(window, "Dialogue", "The Interview"))
    assert player is not None
    player.play_on()
    labels = [choice.label for choice in player.play.player.choices()]
    player.choose(labels.index("Ask about the logbook"))
    player.play_on()
    return player


@register("scene")
def scene(workspace: Workspace, out_dir: Path) -> QWidget:
    window = sample_window(workspace)
    window.navigate_to("", _doc_id(window, "Scene", "Night one"))
    editor = window.tabs.current_editor()
    if editor is not None and hasattr(editor, "playlist"):
        editor.playlist.setCurrentRow(2)
    return window
