"""The GDD editor and the property pane on the Drafft garden sample: the markdown preview, document
links opening tabs, the properties' parse status, saving through the gate."""

from __future__ import annotations

import pytest

from tests.gui.support import first_document


def _headings(browser) -> list[str]:  # type: ignore[no-untyped-def]
    block = browser.document().begin()
    found = []
    while block.isValid():
        if block.blockFormat().headingLevel():
            found.append(block.text())
        block = block.next()
    return found


def _anchors(browser) -> set[str]:  # type: ignore[no-untyped-def]
    found = set()
    block = browser.document().begin()
    while block.isValid():
        iterator = block.begin()
        while not iterator.atEnd():
            fragment = iterator.fragment()
            if fragment.isValid() and fragment.charFormat().isAnchor():
                found.add(fragment.charFormat().anchorHref())
            iterator += 1
        block = block.next()
    return found


def _type(qtbot, widget, text: str) -> None:  # type: ignore[no-untyped-def]
    """Type ``text`` key by key (a newline is the Return key)."""
    from PySide6.QtCore import Qt

    for index, line in enumerate(text.split("\n")):
        if index:
            qtbot.keyClick(widget, Qt.Key.Key_Return)
        if line:
            qtbot.keyClicks(widget, line)


def _click_link(qtbot, browser, text: str) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QTextCursor

    found = browser.document().find(text)
    assert not found.isNull(), text
    cursor = QTextCursor(found)
    cursor.setPosition(found.selectionStart() + 1)
    point = browser.cursorRect(cursor).center()
    qtbot.mouseClick(browser.viewport(), Qt.MouseButton.LeftButton, pos=point)


def test_drafft_document_references_are_links_in_the_preview(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    editor = window.tabs.open(first_document(window, "Gdd"))
    assert ":doc{#Narrator_Actor}" in editor.text.toPlainText()
    assert ":doc{" not in editor.preview.toPlainText()
    from PySide6.QtCore import QUrl

    assert "storyloom://document/Narrator_Actor" in _anchors(editor.preview)
    editor.pane.follow(QUrl("storyloom://document/Narrator_Actor"))
    assert window.tabs.current_editor().doc_id == "Narrator_Actor"


def test_the_gdd_preview_shows_rendered_headings(window) -> None:  # type: ignore[no-untyped-def]
    from storyloom.gui.editors import GddEditor

    editor = window.tabs.open(first_document(window, "Gdd"))
    assert isinstance(editor, GddEditor)
    assert editor.text.toPlainText().startswith("# The Garden of Fading Memories")
    headings = _headings(editor.preview)
    assert "The Garden of Fading Memories" in headings and "1. Overview" in headings
    assert "# " not in editor.preview.toPlainText().splitlines()[0]


@pytest.mark.slow
def test_the_preview_follows_typing(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    editor = window.tabs.open(first_document(window, "Gdd"))
    editor.text.moveCursor(editor.text.textCursor().MoveOperation.End)
    _type(qtbot, editor.text, "\n\n## Typed heading\n")
    qtbot.waitUntil(lambda: "Typed heading" in _headings(editor.preview), timeout=3000)
    qtbot.waitUntil(lambda: not editor.dirty, timeout=5000)
    assert "## Typed heading" in window.session.db.get(editor.doc_id)["content"]["gdd"]


def test_clicking_a_document_link_opens_its_tab(window, qtbot, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtGui import QDesktopServices

    opened: list[object] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url) or True)
    script = first_document(window, "Script")
    editor = window.tabs.open(first_document(window, "Gdd"))
    editor.pane.set_text(f"# Links\n\nSee [the script](storyloom://document/{script}) and "
                         "[the web](https://example.org/).\n")
    _click_link(qtbot, editor.preview, "the script")
    current = window.tabs.current_editor()
    assert current is not None and current.doc_id == script
    window.tabs.setCurrentWidget(editor)
    count = window.tabs.count()
    _click_link(qtbot, editor.preview, "the web")
    assert window.tabs.count() == count and window.tabs.current_editor() is editor
    assert [u.toString() for u in opened] == ["https://example.org/"]


def test_a_link_to_a_missing_document_says_so(window) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import QUrl

    editor = window.tabs.open(first_document(window, "Gdd"))
    count = window.tabs.count()
    editor.pane.follow(QUrl("storyloom://document/no-such-document"))
    assert window.tabs.count() == count
    assert "no longer exists" in editor.pane.note.text()


def test_invalid_yaml_shows_where_and_still_saves_the_text(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    from storyloom.gui.editors import PropertyEditor

    doc_id = first_document(window, "Actor")
    editor = window.tabs.open(doc_id)
    assert isinstance(editor, PropertyEditor)
    assert editor.status.text() == "Parses"
    editor.language.setCurrentIndex(editor.language.findData("yaml"))
    editor.properties.selectAll()
    _type(qtbot, editor.properties, "name: Woman\nmood: [calm, sad\n")
    qtbot.waitUntil(lambda: editor.status.text().startswith("Line 3, column 1: "), timeout=3000)
    assert editor.properties.problems and 3 in editor.properties.problems
    assert editor.save()
    stored = window.session.db.get(doc_id)
    assert stored["content"]["properties"] == "name: Woman\nmood: [calm, sad\n"
    assert stored["editorLanguage"] == "yaml"
    assert editor.properties.toPlainText() == "name: Woman\nmood: [calm, sad\n"


@pytest.mark.slow
def test_valid_properties_and_bio_save_through_the_gate(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    doc_id = first_document(window, "Actor")
    before = window.session.db.get(doc_id)
    editor = window.tabs.open(doc_id)
    assert editor.bio is not None and editor.bio.text() == before["content"]["bio"]
    assert _headings(editor.bio.preview)
    editor.properties.setPlainText("{\n  name: Woman\n  age: 30\n}\n")
    editor.bio.source.setPlainText("# Rewritten\n\nShe waits.")
    qtbot.waitUntil(lambda: editor.status.text() == "Parses", timeout=3000)
    qtbot.waitUntil(lambda: not editor.dirty, timeout=5000)
    stored = window.session.db.get(doc_id)
    assert stored["content"]["properties"] == "{\n  name: Woman\n  age: 30\n}\n"
    assert stored["content"]["bio"] == "# Rewritten\n\nShe waits."
    assert stored["content"]["expressions"] == before["content"]["expressions"]
    assert stored["_rev"] != before["_rev"] and stored["modifiedBy"] == "tester"
    assert "Rewritten" in _headings(editor.bio.preview)


def test_items_edit_their_item_text(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    doc_id = first_document(window, "Item")
    editor = window.tabs.open(doc_id)
    assert editor.property_field == "item"
    assert editor.properties.toPlainText() == window.session.db.get(doc_id)["content"]["item"]
    assert editor.status.text() == "Parses"
    assert editor.bio is None
