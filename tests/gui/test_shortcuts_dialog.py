"""Help > Keyboard Shortcuts (F1): read from the window's own actions, so none is ever missing."""

from __future__ import annotations

from PySide6.QtGui import QAction, QKeySequence


def _keys(action: QAction) -> str:
    return " / ".join(k.toString(QKeySequence.SequenceFormat.NativeText) for k in action.shortcuts() if not k.isEmpty())


def test_every_action_with_a_shortcut_in_the_window_is_listed(window) -> None:  # type: ignore[no-untyped-def]
    from storyloom.gui.shortcuts_dialog import ShortcutsDialog, action_text

    dialog = window.show_shortcuts()
    assert isinstance(dialog, ShortcutsDialog) and dialog.isVisible()
    shown = {(text, keys) for _group, text, keys in dialog.entries()}
    expected = {(action_text(a), _keys(a)) for a in window.findChildren(QAction) if _keys(a)}
    assert len(expected) > 20  # the menus and the tree's actions
    assert expected <= shown
    assert len(dialog.entries()) == len(shown)  # each action once
    dialog.close()


def test_actions_are_grouped_by_menu_in_menu_bar_order(window) -> None:  # type: ignore[no-untyped-def]
    from storyloom.gui.shortcuts_dialog import ShortcutsDialog, shortcut_groups

    groups = shortcut_groups(window)
    names = [name for name, _rows in groups]
    menus = [a.text().replace("&", "") for a in window.menuBar().actions()]
    assert names[: len(menus)] == menus  # File, Edit, Go, Help, then the panels
    rows = dict(groups)
    assert ("Quick Open", "Ctrl+P") in rows["File"]
    assert ("Options", "Ctrl+,") in rows["File"]
    assert ("Keyboard Shortcuts", "F1") in rows["Help"]
    assert ("Rename", "F2") in rows["Explorer"]
    entries = ShortcutsDialog(groups).entries()
    assert ("Go", "Next Tab", "Ctrl+Tab") in entries


def test_f1_opens_the_dialog_from_the_help_menu(window) -> None:  # type: ignore[no-untyped-def]
    from storyloom.gui.shortcuts_dialog import ShortcutsDialog

    help_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Help")
    action = next(a for a in help_menu.actions() if a.text() == "Keyboard Shortcuts")
    assert action.shortcut() == QKeySequence("F1")
    action.trigger()
    dialogs = [d for d in window.findChildren(ShortcutsDialog) if d.isVisible()]
    assert len(dialogs) == 1 and dialogs[0].windowTitle() == "Keyboard Shortcuts"
    dialogs[0].close()


def test_submenus_are_their_own_group_and_labels_lose_mnemonics(qtbot) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtWidgets import QMainWindow

    from storyloom.gui.shortcuts_dialog import shortcut_groups

    win = QMainWindow()
    qtbot.addWidget(win)
    file = win.menuBar().addMenu("&File")
    open_action = file.addAction("&Open…")
    open_action.setShortcuts([QKeySequence("Ctrl+O"), QKeySequence("Ctrl+Shift+O")])
    file.addAction("No shortcut")
    recent = file.addMenu("&Recent")
    recent.addAction("Last project").setShortcut(QKeySequence("Ctrl+R"))
    win.menuBar().addMenu("&Empty").addAction("Nothing")
    assert shortcut_groups(win) == [
        ("File", [("Open", "Ctrl+O / Ctrl+Shift+O")]),
        ("File › Recent", [("Last project", "Ctrl+R")]),
    ]
