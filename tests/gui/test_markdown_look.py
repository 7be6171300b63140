"""The styled markdown preview (light and dark) and the GDD source's highlighting as it is typed."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QTextCharFormat, QTextCursor, QTextTable

from storyloom.gui import appearance
from storyloom.gui.editors.markdown_look import markdown_colors, source_formats

SAMPLE = """# Title

First paragraph with `a code span` and a [link](https://example.com).

## Second

> A quote.

```
code line one
code line two
```

| A | B |
|---|---|
| 1 | 2 |
"""


@pytest.fixture(autouse=True)
def system_look(qapp) -> Iterator[None]:  # type: ignore[no-untyped-def]
    appearance.apply_look("light", "", 0, qapp)
    yield
    appearance.apply_look("system", "", 0, qapp)


def _gdd(window, text: str):  # type: ignore[no-untyped-def]
    doc = window.session.editor.create("Gdd", "Look", content={"gdd": text})
    window.open_document(doc.id)
    editor = window.tabs.current_editor()
    editor.pane.render_preview()
    return editor


def _block(document, text: str):  # type: ignore[no-untyped-def]
    block = document.begin()
    while block.isValid():
        if block.text() == text:
            return block
        block = block.next()
    raise AssertionError(f"no block {text!r}")


def _fragment(block, text: str):  # type: ignore[no-untyped-def]
    it = block.begin()
    while not it.atEnd():
        fragment = it.fragment()
        if fragment.text() == text:
            return fragment
        it += 1
    raise AssertionError(f"no fragment {text!r}")


def test_the_preview_styles_quotes_code_headings_and_tables(window) -> None:  # type: ignore[no-untyped-def]
    colours = markdown_colors()
    document = _gdd(window, SAMPLE).pane.preview.document()
    quote = _block(document, "A quote.")
    assert quote.blockFormat().background().color() == QColor(colours.quote_bg)
    assert quote.blockFormat().leftMargin() >= 16
    assert _fragment(quote, "A quote.").charFormat().fontItalic()
    span = _fragment(_block(document, "First paragraph with a code span and a link."), "a code span").charFormat()
    assert span.fontFixedPitch() and span.background().color() == QColor(colours.code_bg)
    assert span.fontFamilies() == appearance.editor_font().families()
    code = _block(document, "code line one")
    assert code.blockFormat().background().color() == QColor(colours.code_bg)
    assert _fragment(code, "code line one").charFormat().fontFixedPitch()
    second = _block(document, "Second")
    assert second.blockFormat().topMargin() >= 16 and second.blockFormat().bottomMargin() >= 8
    paragraph = _block(document, "First paragraph with a code span and a link.")
    assert paragraph.blockFormat().bottomMargin() >= 8
    link = _fragment(paragraph, "link").charFormat()
    assert link.isAnchor() and link.fontUnderline()
    (table,) = [f for f in document.rootFrame().childFrames() if isinstance(f, QTextTable)]
    assert table.format().border() >= 1 and table.format().borderBrush().color() == QColor(colours.border)
    assert table.format().cellPadding() > 0
    assert table.cellAt(0, 0).format().background().color() == QColor(colours.header_bg)


def test_the_preview_follows_the_theme_and_opening_is_no_edit(window, qtbot, qapp) -> None:  # type: ignore[no-untyped-def]
    editor = _gdd(window, SAMPLE)
    pane = editor.pane
    light = markdown_colors().code_bg
    appearance.apply_look("dark", "", 0, qapp)
    dark = markdown_colors().code_bg
    assert dark != light
    qtbot.waitUntil(lambda: _block(pane.preview.document(), "code line one").blockFormat().background().color()
                    == QColor(dark))
    qtbot.wait(50)
    assert not editor.dirty  # new colours are not an edit


def _formats_at(editor, line: int):  # type: ignore[no-untyped-def]
    block = editor.document().findBlockByNumber(line)
    return [(r.start, r.length, QTextCharFormat(r.format)) for r in block.layout().formats()]


def test_the_gdd_source_highlights_markdown_as_it_is_typed(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    editor = _gdd(window, "")
    source = editor.pane.source
    source.setFocus()
    qtbot.keyClicks(source, "# Heading")
    qtbot.keyClick(source, Qt.Key.Key_Return)
    qtbot.keyClicks(source, "some **bold** and `code` here")
    qtbot.keyClick(source, Qt.Key.Key_Return)
    qtbot.keyClicks(source, "> quoted")
    qtbot.keyClick(source, Qt.Key.Key_Return)
    qtbot.keyClicks(source, "- item")
    expected = source_formats()
    heading = _formats_at(source, 0)
    assert heading and heading[0][:2] == (0, len("# Heading"))
    assert heading[0][2].foreground().color() == expected["heading"].foreground().color()
    assert heading[0][2].fontWeight() >= 700
    inline = {(start, length): fmt for start, length, fmt in _formats_at(source, 1)}
    assert inline[(5, len("**bold**"))].fontWeight() >= 700
    assert inline[(18, len("`code`"))].background().color() == expected["code"].background().color()
    (quote,) = _formats_at(source, 2)
    assert quote[2].fontItalic()
    (marker,) = _formats_at(source, 3)
    assert marker[:2] == (0, 1)
    assert editor.dirty  # typing is an edit


def test_a_fence_colours_the_lines_up_to_its_close(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    editor = _gdd(window, "```\n# not a heading\n```\n# heading")
    source = editor.pane.source
    qtbot.waitUntil(lambda: bool(_formats_at(source, 3)))
    fence = source_formats()["fence"].background().color()
    assert _formats_at(source, 1)[0][2].background().color() == fence
    assert _formats_at(source, 3)[0][2].background().color() != fence
    # Closing the fence earlier re-colours what follows.
    cursor = QTextCursor(source.document().findBlockByNumber(1))
    cursor.insertText("```\n")
    qtbot.waitUntil(lambda: _formats_at(source, 2)[0][2].background().color() != fence)


def test_a_rich_text_gdd_is_not_highlighted_as_markdown(window) -> None:  # type: ignore[no-untyped-def]
    doc = window.session.editor.create("Gdd", "Rich", content={"gdd": "<h1># not markdown</h1>"})
    window.session.editor.patch(doc.id, {"editor": "richText"})
    window.open_document(doc.id)
    editor = window.tabs.current_editor()
    assert editor.pane.html and not editor.pane.highlighter.enabled
    assert _formats_at(editor.pane.source, 0) == []
