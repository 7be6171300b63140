"""The main window's layout belongs to the writer: opening documents of every kind, a long
problem message, a long status and the Problems and Search docks never change the splitter's
sizes or the window's width (content elides, wraps or scrolls instead of pushing them)."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication, QSplitter

WIDTH, HEIGHT = 1380, 900
#: Every kind of document the sample holds, each with its own editor (and toolbar).
KINDS = ("Script", "Gdd", "Grid", "Dialogue", "Kanban", "Variable", "Scenario", "Actor", "Scene",
         "Map", "Canvas", "Attachment", "Item", "Quest", "Misc")


def _settle() -> None:
    for _ in range(5):
        QApplication.processEvents()


def _first(window, doc_type: str) -> str:  # type: ignore[no-untyped-def]
    return sorted(s.id for s in window.session.index.summaries() if s.type == doc_type)[0]


@pytest.fixture
def laid_out(sample_window):  # type: ignore[no-untyped-def]
    """The sample's window at 1380x900, its splitter as the writer left it."""
    sample_window.resize(WIDTH, HEIGHT)
    _settle()
    splitter = sample_window.centralWidget()
    assert isinstance(splitter, QSplitter)
    splitter.setSizes([200, 280, WIDTH - 200 - 280 - 2 * splitter.handleWidth()])
    _settle()
    return sample_window, splitter, splitter.sizes()


def _assert_unchanged(window, splitter, sizes, what: str) -> None:  # type: ignore[no-untyped-def]
    _settle()
    assert window.width() == WIDTH, f"the window resized itself after {what}"
    assert splitter.sizes() == sizes, f"the panels moved after {what}"


def test_opening_every_kind_of_document_keeps_the_panels_and_the_window(laid_out) -> None:  # type: ignore[no-untyped-def]
    window, splitter, sizes = laid_out
    for kind in KINDS:
        assert window.open_document(_first(window, kind))
        _assert_unchanged(window, splitter, sizes, f"opening a {kind}")
    window.open_document("ProjectSettings")
    _assert_unchanged(window, splitter, sizes, "opening the project settings")
    for index in range(window.tabs.count()):  # and switching back through them
        window.tabs.setCurrentIndex(index)
        _assert_unchanged(window, splitter, sizes, f"switching to tab {index}")


def test_the_documents_area_never_asks_for_more_than_its_share(laid_out) -> None:  # type: ignore[no-untyped-def]
    """However wide an editor's content, the window's minimum stays that of its own parts."""
    window, _splitter, _sizes = laid_out
    before = window.minimumSizeHint().width()
    for kind in KINDS:
        window.open_document(_first(window, kind))
    _settle()
    assert window.minimumSizeHint().width() == before
    assert window.minimumSizeHint().width() < 1000


def test_a_long_problem_message_and_open_panels_keep_the_layout(laid_out) -> None:  # type: ignore[no-untyped-def]
    window, splitter, sizes = laid_out
    editor = window.tabs.open(_first(window, "Script"))
    long_name = "a_variable_whose_name_goes_on_" * 12
    editor.text.setPlainText(f"::Mara:: Hello.\n@set variables.{long_name}.x = 3\n")
    editor.check_problems()
    assert long_name[:40] in editor.problems_button.text()
    _assert_unchanged(window, splitter, sizes, "a long problem message")
    window.problems_panel.show()
    _assert_unchanged(window, splitter, sizes, "showing the Problems panel")
    window.search_panel.show()
    window.search_panel.query.setText("lighthouse")
    window.search_panel.ensure_built(wait=True)
    window.search_panel.run_search()
    _assert_unchanged(window, splitter, sizes, "searching")
    window.show_message("A status that goes on: " + "and on, " * 80)
    window.status.sync.set_text("Sync failed: the server refused the request " * 6)
    window.status.project.set_text("A project whose name goes on " * 6)
    window.explorer.show_message("A message over the tree that goes on: " + "and on, " * 60)
    _assert_unchanged(window, splitter, sizes, "long messages")
    for kind in KINDS:
        window.open_document(_first(window, kind))
        _assert_unchanged(window, splitter, sizes, f"opening a {kind} with the panels open")


def test_every_editor_fits_a_laptop_window(sample_window) -> None:  # type: ignore[no-untyped-def]
    """In a 1280 px window with the sidebars as they open, no editor asks for more width than
    its area has: its toolbar overflows into a menu and its captions elide instead."""
    window = sample_window
    window.resize(1280, 800)
    _settle()
    for kind in KINDS:
        editor = window.tabs.open(_first(window, kind))
        _settle()
        assert editor.minimumSizeHint().width() <= window.documents.width(), kind


@pytest.mark.parametrize(("kind", "name"), [("Grid", "gridToolbar"), ("Kanban", "kanbanToolbar")])
def test_a_narrow_editor_keeps_its_tools_in_the_overflow_menu(sample_window, kind: str, name: str) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtWidgets import QToolBar, QToolButton

    window = sample_window
    window.resize(1000, 800)
    _settle()
    editor = window.tabs.open(_first(window, kind))
    _settle()
    assert editor.minimumSizeHint().width() <= window.documents.width()
    toolbar = editor.findChild(QToolBar, name)
    assert toolbar.width() <= window.documents.width()
    more = toolbar.findChild(QToolButton, "qt_toolbar_ext_button")
    assert more is not None and more.isVisible()  # the tools that do not fit are one click away


@pytest.mark.parametrize("dark", [False, True])
@pytest.mark.parametrize("panel", ["problems_panel", "search_panel"])
def test_the_rail_scrollbar_is_drawn_in_the_theme(qtbot, workspace, dark: bool, panel: str) -> None:  # type: ignore[no-untyped-def]
    """With a bottom panel open the collections rail scrolls: its scrollbar is the theme's
    (no solid black handle or track), in light and dark."""
    from PySide6.QtGui import QColor

    from storyloom.gui.main_window import open_project_window
    from storyloom.gui.theme import apply_theme
    from storyloom.project.sample import create_sample_project

    app = QApplication.instance()
    theme = apply_theme(app, dark=dark)
    try:
        project = create_sample_project(workspace.manager)
        name = project.name
        project.close()
        window = open_project_window(workspace, name)
        qtbot.addWidget(window)
        window.resize(WIDTH, 760)
        getattr(window, panel).show()
        _settle()
        bar = window.sidebar.list.verticalScrollBar()
        assert bar.isVisible(), "the rail does not scroll: the test shows nothing"
        image = window.grab().toImage()
        top_left = bar.mapTo(window, bar.rect().topLeft())
        window_lightness = QColor(theme.window).lightness()
        darkest = min(image.pixelColor(top_left.x() + x, top_left.y() + y).lightness()
                      for x in range(bar.width()) for y in range(bar.height()))
        assert darkest >= window_lightness // 2, f"a near-black patch ({darkest}) in the rail's scrollbar"
        window.close()
    finally:
        apply_theme(app, dark=False)


def test_renaming_changes_the_tab_once_when_the_name_is_saved(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import Qt

    window = sample_window
    editor = window.tabs.open(_first(window, "Script"))
    index = window.tabs.indexOf(editor)
    old = editor.base["name"]
    seen: list[str] = []
    editor.state_changed.connect(lambda: seen.append(window.tabs.tabText(window.tabs.indexOf(editor))))
    editor.name_edit.setFocus()
    editor.name_edit.selectAll()
    qtbot.keyClicks(editor.name_edit, "Lighthouse")
    assert window.tabs.tabText(index).removesuffix(" •") == old  # no one-letter tab while typing
    assert all(text.removesuffix(" •") == old for text in seen)
    qtbot.keyClick(editor.name_edit, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert window.session.db.get(editor.doc_id)["name"] == "Lighthouse"
    assert window.tabs.tabText(index) == "Lighthouse"


def test_status_items_show_their_words_and_elide_only_when_long(laid_out) -> None:  # type: ignore[no-untyped-def]
    window, splitter, sizes = laid_out
    label = window.status.sync.label
    window.status.sync.set_text("Sync off")
    _settle()
    assert label.width() >= label.fontMetrics().horizontalAdvance("Sync off")
    window.status.sync.set_text("Sync failed: the server refused the request " * 6)
    _settle()
    assert label.text().startswith("Sync failed") and label.width() <= 360
    _assert_unchanged(window, splitter, sizes, "a long status")


def test_a_side_panel_takes_its_room_from_the_documents_not_the_sidebars(laid_out) -> None:  # type: ignore[no-untyped-def]
    window, splitter, sizes = laid_out
    window.open_document(_first(window, "Grid"))
    window.info_drawer.show()
    _settle()
    assert window.width() == WIDTH
    assert splitter.sizes()[:2] == sizes[:2]
    window.info_drawer.hide()
    _assert_unchanged(window, splitter, sizes, "closing the side panel")


def test_the_problem_summary_elides_a_long_message_and_never_widens_the_footer(laid_out) -> None:  # type: ignore[no-untyped-def]
    """The footer's problem summary asks for the same width whatever the message: a long one is
    elided on screen (the whole message is its tooltip), the footer's size hint and the panels
    stay as they are with a short one."""
    window, splitter, sizes = laid_out
    editor = window.tabs.open(_first(window, "Script"))
    editor.text.setPlainText("::Mara:: Hello.\n@set variables.x.y = 3\n")
    editor.check_problems()
    _settle()
    assert editor.problems
    short_hint = editor.footer.sizeHint().width()
    short_minimum = editor.footer.minimumSize().width()
    long_name = "a_variable_whose_name_goes_on_" * 12
    editor.text.setPlainText(f"::Mara:: Hello.\n@set variables.{long_name}.x = 3\n")
    editor.check_problems()
    _settle()
    button = editor.problems_button
    assert long_name in button.text()
    assert editor.footer.sizeHint().width() == short_hint
    assert editor.footer.minimumSize().width() == short_minimum
    assert long_name in button.toolTip()
    assert button.width() <= editor.width()
    _assert_unchanged(window, splitter, sizes, "a long problem message")
    shown = button.shown_text()
    assert shown.endswith("…") and len(shown) < len(button.text())
    assert button.fontMetrics().horizontalAdvance(shown) <= button.width()
