"""The actor editor on the built-in sample: its expression images, All lines (count, list, the
jump to a script's line and to a dialogue node that plays it), and a new line counted as it
is written elsewhere."""

from __future__ import annotations

from typing import Any


def _open_actor(window: Any, qtbot: Any, name: str) -> Any:
    from storyloom.gui.editors.property_editor import PropertyEditor

    actor = next(s for s in window.session.index.summaries() if s.type == "Actor" and s.name == name)
    assert window.open_document(actor.id)
    editor = window.tabs.current_editor()
    assert isinstance(editor, PropertyEditor) and editor.lines is not None and editor.expressions is not None
    editor.lines.wait()
    qtbot.waitUntil(lambda: editor.lines.found is not None, timeout=10_000)
    return editor


def test_the_actor_editor_shows_expression_images_and_every_line(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    editor = _open_actor(sample_window, qtbot, "Wren Hale")
    strip = editor.expressions
    assert strip.title.text() == "Expressions (3)"
    assert [strip.list.item(i).text().split(" · ")[0] for i in range(strip.list.count())] == [
        "neutral", "determined", "shocked"]
    for i in range(strip.list.count()):  # real images, decoded from the sample's attachments
        pixmap = strip.list.item(i).icon().pixmap(64, 64)
        assert not pixmap.isNull() and pixmap.toImage().pixelColor(32, 32).alpha() == 255
    assert "lines" in strip.list.item(0).text()  # how many lines use "neutral"

    view = editor.lines
    found = view.found
    assert len(found) > 10 and view.table.topLevelItemCount() == len(found)
    assert view.title.text() == f"All lines ({len(found)} in {found.documents} documents)"
    first = view.table.topLevelItem(0)
    assert (first.text(0), first.text(1)) == (found.lines[0].doc_name, str(found.lines[0].line))


def test_a_line_opens_its_script_at_the_line_and_its_dialogue_node(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    from storyloom.gui.editors import ScriptEditor

    editor = _open_actor(sample_window, qtbot, "Wren Hale")
    view = editor.lines
    row = 3
    line = view.rows[row]
    assert view.open_row(row)
    script = sample_window.tabs.current_editor()
    assert isinstance(script, ScriptEditor) and script.doc_id == line.doc_id
    assert script.text.textCursor().blockNumber() + 1 == line.line

    with_node = next(i for i, r in enumerate(view.rows) if r.nodes)  # the interview plays Wren's lines
    node = view.rows[with_node].nodes[0]
    assert [text for text, _ in view.row_actions(with_node)][1].startswith("Show in the dialogue")
    assert view.open_node(with_node)
    dialogue = sample_window.tabs.current_editor()
    assert dialogue.doc_id == node.dialogue_id


def test_a_line_written_elsewhere_is_counted(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    editor = _open_actor(sample_window, qtbot, "Wren Hale")
    before = len(editor.lines.found)
    sample_window.session.editor.create("Script", "Later", content={"script": "::wren:: One more. [shocked]\n"})
    qtbot.waitUntil(lambda: editor.lines.found is not None and len(editor.lines.found) == before + 1, timeout=10_000)
    assert any(row.document == "Later" and row.expression == "shocked" for row in editor.lines.rows)


def test_an_expression_without_its_image_says_why(sample_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    session = sample_window.session
    actor = session.editor.create("Actor", "Ghost", content={"bio": "", "properties": "", "expressions": [
        {"name": "default", "permalink": "storyloom://image/no-such-image", "_id": "no-such-image"}]}).id
    session.editor.create("Script", "Haunting", content={"script": "::Ghost:: Boo. [eerie]\n"})
    session.wait_for_events()
    editor = _open_actor(sample_window, qtbot, "Ghost")
    assert editor.doc_id == actor
    strip = editor.expressions
    assert [strip.list.item(i).text() for i in range(strip.list.count())] == ["default", "eerie · 1 line"]
    assert "no attachment with id" in strip.list.item(0).toolTip()
    assert "has no image for it" in strip.list.item(1).toolTip()
