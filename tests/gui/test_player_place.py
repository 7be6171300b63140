"""The player window opens whole on the screen, centred on its project window, and opens again
where the writer left it (remembered per machine)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRect
from PySide6.QtWidgets import QApplication

from storyloom.app.views.window_place import WindowPlaces
from storyloom.gui.player import open_player
from storyloom.project.sample import SAMPLE_NAME, create_sample_project


@pytest.fixture
def sample(qtbot, workspace):  # type: ignore[no-untyped-def]
    from storyloom.gui.main_window import open_project_window

    create_sample_project(workspace.manager).close()
    win = open_project_window(workspace, SAMPLE_NAME)
    qtbot.addWidget(win)
    yield win
    if not win.session.closed:
        win.close()


def _script(window) -> str:  # type: ignore[no-untyped-def]
    return next(s.id for s in window.session.index.summaries() if s.type == "Script")


def _available(window) -> QRect:  # type: ignore[no-untyped-def]
    screen = window.screen() or QApplication.primaryScreen()
    return screen.availableGeometry()


def test_the_player_opens_whole_on_the_screen_centred_on_its_window(qtbot, sample) -> None:  # type: ignore[no-untyped-def]
    available = _available(sample)
    sample.setGeometry(available.x() + available.width() // 2, available.y() + 40,
                       available.width() // 2, available.height() - 80)  # the project window on the right half
    player = open_player(sample, _script(sample))
    assert player is not None
    qtbot.waitExposed(player)
    frame = player.frameGeometry()
    assert available.contains(frame), f"the player at {frame} is partly off the screen {available}"
    main = sample.frameGeometry()
    if frame.width() < available.width():  # centred on the project window, as far as the screen allows
        wanted = main.center().x() - frame.width() // 2
        expected = min(max(wanted, available.x()), available.right() - frame.width() + 1)
        assert abs(frame.x() - expected) <= 1
    player.close()


def test_the_player_opens_where_it_was_left(qtbot, sample) -> None:  # type: ignore[no-untyped-def]
    available = _available(sample)
    player = open_player(sample, _script(sample))
    qtbot.waitExposed(player)
    player.setGeometry(available.x() + 30, available.y() + 50, 520, 400)
    QApplication.processEvents()
    left = player.frameGeometry()
    player.close()
    QApplication.processEvents()
    assert WindowPlaces().get("player") is not None  # in this machine's config folder
    again = open_player(sample, _script(sample))
    qtbot.waitExposed(again)
    assert again.frameGeometry() == left
    again.close()
