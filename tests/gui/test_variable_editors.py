"""The Variable and Scenario editors on the Drafft garden sample: the state's table with types,
defaults and live values, saving through the gate, the scenario's live type check."""

from __future__ import annotations

import pytest

from storyloom.gui.editors.variable_editor import ScenarioEditor, VariablesEditor


def _named(window, doc_type: str, name: str) -> str:  # type: ignore[no-untyped-def]
    return next(s.id for s in window.session.index.summaries() if s.type == doc_type and s.name == name)


def _table(editor: VariablesEditor) -> dict[str, tuple[str, str, str]]:
    model = editor.table.model()
    rows = {}
    for row in range(model.rowCount()):
        path, kind, default, live = (model.index(row, c).data() for c in range(4))
        rows[path.strip()] = (kind, default, live)
    return rows


def test_the_table_shows_the_state_with_types_and_defaults(window) -> None:  # type: ignore[no-untyped-def]
    editor = window.tabs.open(_named(window, "Variable", "player"))
    assert isinstance(editor, VariablesEditor)
    assert editor.status.text().startswith("Parses: state 'player'")
    rows = _table(editor)
    assert rows["courage"] == ("integer", "5", "—")
    assert rows["memory_locket_found"] == ("boolean", "false", "—")
    assert rows["approach"] == ("string", '"Unknown"', "—")
    assert "_sid" not in rows


def test_live_values_show_when_a_live_state_exists(window) -> None:  # type: ignore[no-untyped-def]
    window.session.editor.write_local({"_id": "_local/live-state", "player": {"courage": 9}})
    editor = window.tabs.open(_named(window, "Variable", "player"))
    rows = _table(editor)
    assert rows["courage"][2] == "9"
    assert rows["gold"][2] == "—"


@pytest.mark.slow
def test_an_edit_saves_through_the_gate_and_the_table_follows(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    doc_id = _named(window, "Variable", "player")
    editor = window.tabs.open(doc_id)
    editor.source.moveCursor(editor.source.textCursor().MoveOperation.End)
    qtbot.keyClick(editor.source, "\r")
    qtbot.keyClicks(editor.source, "lantern: {lit: false, oil: 0.5}")
    qtbot.waitUntil(lambda: "lantern.oil" in _table(editor), timeout=3000)
    rows = _table(editor)
    assert rows["lantern"][0] == "object" and rows["lantern.lit"] == ("boolean", "false", "—")
    assert rows["lantern.oil"][0] == "number"
    qtbot.waitUntil(lambda: not editor.dirty, timeout=5000)
    assert "lantern: {lit: false, oil: 0.5}" in window.session.db.get(doc_id)["content"]["variables"]
    assert window.session.index.states()["player"]["lantern"] == {"lit": False, "oil": 0.5}


def test_a_source_that_does_not_parse_keeps_the_last_table(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    editor = window.tabs.open(_named(window, "Variable", "world"))
    editor.source.setPlainText("_sid: world\nweather: [calm\n")
    status = editor.check()
    assert not status.ok and editor.status.text().startswith("Line ")
    assert "weather" in _table(editor) and "season" in _table(editor)
    assert editor.save()  # kept as typed: the writer may be mid-edit


@pytest.mark.slow
def test_a_wrong_type_in_a_scenario_is_shown_with_its_line_and_saved(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    doc_id = _named(window, "Scenario", "Courageous Explorer")
    editor = window.tabs.open(doc_id)
    assert isinstance(editor, ScenarioEditor)
    assert editor.checked.ok and editor.problem_list.isHidden()
    text = editor.source.toPlainText().replace("courage: 8", "courage: brave")
    text = text.replace("mood: warm", "mood: warm\n  hat: 1")
    editor.source.selectAll()
    qtbot.keyClicks(editor.source, "x")  # typed, then replaced: the check runs as the writer types
    editor.source.setPlainText(text)
    qtbot.waitUntil(lambda: editor.problem_list.count() == 2, timeout=3000)
    lines = [editor.problem_list.item(i).text() for i in range(editor.problem_list.count())]
    assert lines[0].startswith("Line 2, column 3: ") and "player.courage is integer" in lines[0]
    assert lines[1].startswith("Line 10, column 3: ") and "unknown property 'woman.hat'" in lines[1]
    assert 2 in editor.source.problems
    qtbot.waitUntil(lambda: not editor.dirty, timeout=5000)
    assert window.session.db.get(doc_id)["content"]["scenario"] == text
    assert editor.banner.kind == "info"  # saved, with the gate's warnings
    editor.problem_list.itemClicked.emit(editor.problem_list.item(1))
    assert editor.source.textCursor().blockNumber() == 9


def test_an_unknown_state_is_listed(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    editor = window.tabs.open(_named(window, "Scenario", "Default State"))
    editor.source.setPlainText("ghost: {\n  x: 1\n}\n")
    status = editor.check()
    assert [p.code for p in status.problems] == ["unknown-state"]
    assert editor.problem_list.item(0).text().startswith("Line 1")


def test_a_new_variables_document_opens_parsing_with_no_error_to_fill_in(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    # A writer's report: "New Variables" opened blank with a red error demanding `_sid: <name>`.
    window.show()
    window.show_collection("Variable")
    window.explorer.new_document()
    editor = window.tabs.current_editor()
    assert isinstance(editor, VariablesEditor)
    status = editor.check()
    assert status.ok, editor.status.text()
    assert editor.status.property("ok") is True
    assert editor.source.toPlainText().startswith("_sid: new_")
    assert editor.source.problems == {}
