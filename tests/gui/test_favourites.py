"""Favourites: star from the tree's menu, a tab's menu and Ctrl+Alt+F; the sidebar's section
opens them, follows renames, drops deleted documents, and survives closing the project."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QMenu

from storyloom.app.views.favourites import load_favourites
from storyloom.gui.main_window import open_project_window


def _first_script(window) -> str:  # type: ignore[no-untyped-def]
    return next(s.id for s in window.session.index.summaries() if s.type == "Script")


def _pick_from_menu(qtbot, text: str) -> list[str]:  # type: ignore[no-untyped-def]
    """Answer the next context menu by triggering its entry starting with ``text``."""
    seen: list[str] = []

    def answer() -> None:
        menu = QApplication.activePopupWidget()
        if not isinstance(menu, QMenu):
            QTimer.singleShot(20, answer)
            return
        seen.extend(a.text() for a in menu.actions())
        for action in menu.actions():
            if action.text().startswith(text):
                menu.close()
                action.trigger()
                return
        menu.close()

    QTimer.singleShot(20, answer)
    return seen


def test_the_tree_menu_stars_a_document_and_the_sidebar_lists_and_opens_it(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    sidebar, explorer = window.sidebar, window.explorer
    assert sidebar.favourite_ids() == [] and sidebar.favourites_hint.isVisible()
    doc_id = _first_script(window)
    window.sidebar.select("Script")
    explorer.reveal(doc_id)
    seen = _pick_from_menu(qtbot, "Add to Favourites")
    rect = explorer.view.visualRect(explorer.model.index_of(doc_id))
    explorer._context_menu(rect.center())
    assert any(t.startswith("Add to Favourites") and t.endswith("Ctrl+Alt+F") for t in seen)
    assert sidebar.favourite_ids() == [doc_id]
    assert sidebar.favourites.isVisible() and not sidebar.favourites_hint.isVisible()
    assert load_favourites(window.session.db) == [doc_id]
    # Opening it from the sidebar: a click on its row.
    window.sidebar.select("Actor")
    item = sidebar.favourites.item(0)
    qtbot.mouseClick(sidebar.favourites.viewport(), Qt.MouseButton.LeftButton,
                     pos=sidebar.favourites.visualItemRect(item).center())
    assert window.tabs.current_editor().doc_id == doc_id
    assert window.sidebar.current() == "Script"
    # The same menu now offers to remove it.
    explorer.reveal(doc_id)
    seen = _pick_from_menu(qtbot, "Remove from Favourites")
    explorer._context_menu(rect.center())
    assert sidebar.favourite_ids() == []


def test_ctrl_alt_f_stars_the_document_in_front_and_again_unstars_it(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    doc_id = _first_script(window)
    window.open_document(doc_id)
    editor = window.tabs.current_editor()
    editor.text.setFocus() if hasattr(editor, "text") else editor.setFocus()
    target = QApplication.focusWidget() or window
    qtbot.keyClick(target, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier)
    assert window.sidebar.favourite_ids() == [doc_id]
    qtbot.keyClick(target, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier)
    assert window.sidebar.favourite_ids() == []


def test_ctrl_alt_f_in_the_tree_stars_the_selection(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    window.sidebar.select("Script")
    doc_id = _first_script(window)
    window.explorer.reveal(doc_id)
    window.explorer.view.setFocus()
    qtbot.waitUntil(window.explorer.view.hasFocus)
    qtbot.keyClick(window.explorer.view, Qt.Key.Key_F,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier)
    assert window.sidebar.favourite_ids() == [doc_id]


def test_a_tabs_menu_stars_its_document(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    doc_id = _first_script(window)
    window.open_document(doc_id)
    favourites = window.favourites
    menu = favourites.tab_menu(window.tabs.currentIndex())
    entry = next(a for a in menu.actions() if a.objectName() == "favouriteEntry")
    assert entry.text().startswith("Add to Favourites")
    entry.trigger()
    assert window.sidebar.favourite_ids() == [doc_id]
    menu = favourites.tab_menu(window.tabs.currentIndex())
    assert next(a for a in menu.actions() if a.objectName() == "favouriteEntry").text().startswith("Remove")


def test_favourites_follow_renames_and_drop_deleted_documents(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    scripts = [s.id for s in window.session.index.summaries() if s.type == "Script"][:2]
    window.favourites.toggle(scripts)
    assert window.sidebar.favourite_ids() == scripts
    window.session.editor.patch(scripts[0], {"name": "Renamed Elsewhere"})
    qtbot.waitUntil(lambda: window.sidebar.favourites.item(0).text() == "Renamed Elsewhere")
    window.session.editor.delete(scripts[1])
    qtbot.waitUntil(lambda: window.sidebar.favourite_ids() == [scripts[0]])


def test_favourites_are_kept_per_project_when_it_opens_again(workspace, garden, qtbot) -> None:  # type: ignore[no-untyped-def]
    first = open_project_window(workspace, garden)
    doc_id = _first_script(first)
    first.favourites.toggle([doc_id])
    first.close()
    second = open_project_window(workspace, garden)
    qtbot.addWidget(second)
    assert second.sidebar.favourite_ids() == [doc_id]
    second.close()


def test_the_sidebar_menu_removes_a_favourite(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    doc_id = _first_script(window)
    window.favourites.toggle([doc_id])
    sidebar = window.sidebar
    _pick_from_menu(qtbot, "Remove from Favourites")
    sidebar._favourite_menu(sidebar.favourites.visualItemRect(sidebar.favourites.item(0)).center())
    assert sidebar.favourite_ids() == [] and load_favourites(window.session.db) == []


def test_the_star_beside_the_title_stars_the_document(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = sample_window
    doc_id = _first_script(window)
    window.open_document(doc_id)
    editor = window.tabs.current_editor()
    star = window.favourites.star_of(editor)
    assert star is not None
    qtbot.waitUntil(star.isVisible)
    assert not star.isChecked()
    assert "Add to Favourites" in star.toolTip()
    qtbot.mouseClick(star, Qt.MouseButton.LeftButton)
    assert window.sidebar.favourite_ids() == [doc_id] and star.isChecked()
    assert "Remove from Favourites" in star.toolTip()
    # Starring by the shortcut elsewhere shows on the star too.
    qtbot.mouseClick(star, Qt.MouseButton.LeftButton)
    assert window.sidebar.favourite_ids() == [] and not star.isChecked()
    window.favourites.toggle([doc_id])
    assert star.isChecked()
