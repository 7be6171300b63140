"""The Search dock on the garden sample: Ctrl+Shift+F shows it, typing finds names and content
grouped by document, activating a hit opens the document with the match selected, a bad
regular expression is said inline, and new text is found without reopening anything."""

from __future__ import annotations

from PySide6.QtCore import Qt


def _panel(window, qtbot):  # type: ignore[no-untyped-def]
    panel = window.search_panel
    assert panel.isHidden()
    window.show()
    qtbot.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert panel.isVisible() and panel.query.hasFocus()
    qtbot.waitUntil(lambda: panel.search.built, timeout=10_000)
    return panel


def _search(panel, qtbot, text: str):  # type: ignore[no-untyped-def]
    with qtbot.waitSignal(panel.searched, timeout=5000):
        panel.query.setText(text)
    return panel.results


def test_typing_finds_content_and_a_hit_opens_the_script_with_the_match_selected(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    from storyloom.gui.editors import ScriptEditor

    script = "::Woman:: The tide is low.\n::Woman:: A silver lighthouse keeper waits.\n"
    doc_id = window.session.editor.create("Script", "Silver night", content={"script": script}).id
    panel = _panel(window, qtbot)
    results = _search(panel, qtbot, "lighthouse keeper")
    assert [g.doc_id for g in results.groups] == [doc_id]
    assert panel.model.rowCount() == 1 and panel.model.index(0, 0).data() == "Silver night"
    hit_index = panel.model.index(0, 0, panel.model.index(0, 0))
    assert hit_index.data() == "::Woman:: A silver lighthouse keeper waits."
    assert "line 2, column 20" in hit_index.data(Qt.ItemDataRole.ToolTipRole)
    assert "1 result in 1 document" in panel.status.text()
    panel.activate(0, 0)
    editor = window.tabs.current_editor()
    assert isinstance(editor, ScriptEditor) and editor.doc_id == doc_id
    cursor = editor.text.textCursor()
    assert cursor.selectedText() == "lighthouse keeper"
    assert cursor.blockNumber() == 1 and cursor.selectionStart() - cursor.block().position() == 19


def test_names_and_property_text_are_found_and_open_where_they_are(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    from storyloom.gui.editors import PropertyEditor

    editor = window.session.editor
    item = editor.create("Item", "Brass compass", content={"item": "points: north\nmaker: Quillon\n"}).id
    panel = _panel(window, qtbot)
    results = _search(panel, qtbot, "quillon")
    group = next(g for g in results.groups if g.doc_id == item)
    assert [(h.field, h.line, h.column) for h in group.hits] == [("content.item", 2, 8)]
    row = results.groups.index(group)
    panel.activate(row, 0)
    opened = window.tabs.current_editor()
    assert isinstance(opened, PropertyEditor) and opened.properties.textCursor().selectedText() == "Quillon"
    results = _search(panel, qtbot, "brass comp")
    group = next(g for g in results.groups if g.doc_id == item)
    assert group.hits[0].field == "name"
    panel.activate(results.groups.index(group), 0)
    assert window.tabs.current_editor().name_edit.selectedText() == "Brass comp"


def test_whole_word_case_and_a_bad_regex(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window.session.editor.create("Gdd", "Tides", content={"gdd": "Tide tables\ntidewater and tide\n"})
    panel = _panel(window, qtbot)
    plain = _search(panel, qtbot, "tide").total
    with qtbot.waitSignal(panel.searched):
        panel.whole_word.setChecked(True)
    assert panel.results.total < plain
    with qtbot.waitSignal(panel.searched):
        panel.case.setChecked(True)
    tides = next(g for g in panel.results.groups if g.name == "Tides")
    assert [(h.line, h.column) for h in tides.hits] == [(2, 15)]
    panel.regex.setChecked(True)
    panel.query.setText("tide(")
    assert panel.run_search() is None
    assert "regular expression" in panel.status.text() and panel.query.property("invalid")
    panel.query.setText("tide(water)?")
    assert panel.run_search() is not None and not panel.query.property("invalid")


def test_new_text_is_found_without_reopening(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    panel = _panel(window, qtbot)
    assert _search(panel, qtbot, "zephyrine").groups == []
    with qtbot.waitSignal(panel.searched, timeout=5000):
        window.session.editor.create("Misc", "Winds", content={"properties": "name: zephyrine\n"})
    assert [g.name for g in panel.results.groups] == ["Winds"]


def test_activating_a_document_row_opens_it(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    doc_id = window.session.editor.create("Gdd", "Orchard map", content={"gdd": "apples"}).id
    panel = _panel(window, qtbot)
    _search(panel, qtbot, "orchard map")
    panel.activate(0)
    assert window.tabs.current_editor().doc_id == doc_id


def test_alt_c_toggles_match_case_while_the_dock_has_the_focus(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    panel = _panel(window, qtbot)
    assert panel.query.hasFocus() and not panel.case.isChecked()
    qtbot.keyClick(panel.query, Qt.Key.Key_C, Qt.KeyboardModifier.AltModifier)
    assert panel.case.isChecked()
