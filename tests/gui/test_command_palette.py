"""The command palette: Ctrl+Shift+P, every menu command by name with its keys, fuzzy filter,
Enter runs, Esc closes, commands that cannot run now greyed and inert."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QMenu

from storyloom.gui.command_palette import CommandPalette
from storyloom.gui.options_dialog import OptionsDialog


def _palette(window, qtbot) -> CommandPalette:  # type: ignore[no-untyped-def]
    window.activateWindow()
    window.setFocus()
    qtbot.keyClick(window, Qt.Key.Key_P, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: window.findChild(CommandPalette) is not None and
                    window.findChild(CommandPalette).isVisible())
    return window.findChild(CommandPalette)


def _menu_labels(window) -> set[str]:  # type: ignore[no-untyped-def]
    labels: set[str] = set()

    def walk(menu: QMenu) -> None:
        for action in menu.actions():
            if action.menu() is not None:
                walk(action.menu())
            elif action.text() and not action.isSeparator() and action.isVisible():
                labels.add(action.text().replace("&", "").rstrip(".…").strip())

    for top in window.menuBar().actions():
        if top.menu() is not None:
            walk(top.menu())
    return labels


def test_ctrl_shift_p_lists_every_menu_command_with_its_shortcut(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    palette = _palette(sample_window, qtbot)
    assert palette.focusWidget() is palette.query  # typing goes to the query at once
    listed = {m.command.label for m in palette.shown()}
    assert _menu_labels(sample_window) <= listed
    by_label = {m.command.label: m.command for m in palette.shown()}
    assert by_label["Save"].keys == "Ctrl+S" and by_label["Save"].where == "File"
    assert by_label["Command Palette"].keys == "Ctrl+Shift+P"
    assert by_label["New Document"].keys == "Ctrl+N"  # the tree's commands too


def test_typing_filters_and_enter_runs_the_best_match(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    palette = _palette(sample_window, qtbot)
    qtbot.keyClicks(palette.query, "optio")
    assert palette.shown()[0].command.label == "Options"
    qtbot.keyClick(palette.query, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: any(d.isVisible() for d in sample_window.findChildren(OptionsDialog)))
    assert not any(p.isVisible() for p in sample_window.findChildren(CommandPalette))  # closed first
    for dialog in sample_window.findChildren(OptionsDialog):
        dialog.reject()


def test_arrows_choose_and_escape_closes_without_running(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    palette = _palette(sample_window, qtbot)
    qtbot.keyClicks(palette.query, "tab")
    first = palette.current()
    qtbot.keyClick(palette.query, Qt.Key.Key_Down)
    assert palette.current() != first
    qtbot.keyClick(palette.query, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not any(p.isVisible() for p in sample_window.findChildren(CommandPalette)))
    assert not any(d.isVisible() for d in sample_window.findChildren(OptionsDialog))


def test_a_disabled_command_is_listed_last_and_enter_does_not_run_it(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    ran: list[bool] = []
    action = QAction("Zebra Stripes", sample_window)
    action.setEnabled(False)
    action.triggered.connect(lambda: ran.append(True))
    sample_window.menu("&View").addAction(action)
    palette = _palette(sample_window, qtbot)
    assert palette.shown()[-1].command.label == "Zebra Stripes"
    qtbot.keyClicks(palette.query, "zebra")
    assert [m.command.label for m in palette.shown()] == ["Zebra Stripes"]
    assert not palette.shown()[0].command.enabled
    qtbot.keyClick(palette.query, Qt.Key.Key_Return)
    QApplication.processEvents()
    assert palette.isVisible() and ran == []
    palette.reject()


def test_the_palette_is_in_the_shortcuts_list(sample_window) -> None:  # type: ignore[no-untyped-def]
    from storyloom.gui.shortcuts_dialog import shortcut_groups

    rows = [row for _group, rows in shortcut_groups(sample_window) for row in rows]
    assert ("Command Palette", "Ctrl+Shift+P") in rows
