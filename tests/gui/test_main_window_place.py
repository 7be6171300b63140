"""The project window opens where the writer left the last one (its size, position, maximized),
remembered per machine under one name for every project window; a place no longer on any
screen is not restored (the window opens whole on a screen)."""

from __future__ import annotations

from PySide6.QtCore import QRect
from PySide6.QtWidgets import QApplication

from storyloom.app.views.window_place import Rect, WindowPlaces
from storyloom.gui.main_window import PLACE, open_project_window


def _open(qtbot, workspace, garden):  # type: ignore[no-untyped-def]
    window = open_project_window(workspace, garden)
    qtbot.addWidget(window)
    qtbot.waitExposed(window)
    return window


def _available() -> QRect:
    return QApplication.primaryScreen().availableGeometry()


def test_the_window_reopens_where_and_as_big_as_it_was_left(qtbot, workspace, garden) -> None:  # type: ignore[no-untyped-def]
    window = _open(qtbot, workspace, garden)
    available = _available()
    window.setGeometry(available.x() + 40, available.y() + 60, 700, 520)
    QApplication.processEvents()
    left = window.geometry()
    window.close()
    assert WindowPlaces().get(PLACE) == Rect(left.x(), left.y(), left.width(), left.height())
    again = _open(qtbot, workspace, garden)
    assert again.geometry() == left and not again.isMaximized()
    again.close()


def test_a_maximized_window_reopens_maximized_with_its_normal_size_kept(qtbot, workspace, garden) -> None:  # type: ignore[no-untyped-def]
    window = _open(qtbot, workspace, garden)
    available = _available()
    window.setGeometry(available.x() + 20, available.y() + 30, 600, 500)
    QApplication.processEvents()
    normal = window.geometry()
    window.showMaximized()
    qtbot.waitUntil(window.isMaximized)
    window.close()
    assert WindowPlaces().maximized(PLACE)
    assert WindowPlaces().get(PLACE) == Rect(normal.x(), normal.y(), normal.width(), normal.height())
    again = _open(qtbot, workspace, garden)
    assert again.isMaximized()
    again.showNormal()
    qtbot.waitUntil(lambda: not again.isMaximized())
    assert again.geometry().size() == normal.size()
    again.close()
    assert not WindowPlaces().maximized(PLACE)


def test_a_place_off_every_screen_opens_the_window_on_a_screen(qtbot, workspace, garden) -> None:  # type: ignore[no-untyped-def]
    available = _available()
    WindowPlaces().remember(PLACE, Rect(available.right() + 3000, available.bottom() + 2000, 640, 480))
    window = _open(qtbot, workspace, garden)
    assert available.contains(window.geometry()), f"{window.geometry()} is not on the screen {available}"
    window.close()


def test_a_place_bigger_than_the_screen_is_fitted_to_it(qtbot, workspace, garden) -> None:  # type: ignore[no-untyped-def]
    available = _available()
    WindowPlaces().remember(PLACE, Rect(available.x(), available.y(), available.width() * 3, available.height() * 2))
    window = _open(qtbot, workspace, garden)
    assert available.contains(window.geometry())
    window.close()
