"""Scenarios and the Live state on the garden sample: "Load into Live" sets Live to the defaults
with the scenario's overrides (the Variables table shows the Live values at once); "Save Live as
scenario" writes Live's differences from the defaults into the scenario, in its language, and
saves it through the gate; undo brings the old text back."""

from __future__ import annotations

from storyloom.gui.editors.variable_editor import ScenarioEditor, VariablesEditor
from storyloom.play.live_state import read_live
from storyloom.project.content import parse_scenario_doc


def _named(window, doc_type: str, name: str) -> str:  # type: ignore[no-untyped-def]
    return next(s.id for s in window.session.index.summaries() if s.type == doc_type and s.name == name)


def _live_column(editor: VariablesEditor) -> dict[str, str]:
    model = editor.table.model()
    return {model.index(r, 0).data().strip(): model.index(r, 3).data() for r in range(model.rowCount())}


def test_load_into_live_sets_live_and_the_variables_table_follows(window) -> None:  # type: ignore[no-untyped-def]
    variables = window.tabs.open(_named(window, "Variable", "player"))
    assert isinstance(variables, VariablesEditor) and _live_column(variables)["courage"] == "—"
    scenario = window.tabs.open(_named(window, "Scenario", "Courageous Explorer"))
    assert isinstance(scenario, ScenarioEditor)
    assert scenario.load_button.text() == "Load into Live"
    scenario.load_button.click()
    live = read_live(window.session.db)
    assert live.exists and live.scenario == scenario.doc_id
    assert live.states["player"]["courage"] == 8 and live.states["player"]["memories_count"] == 0  # a default
    assert live.states["woman"]["mood"] == "warm"
    assert "Loaded into Live" in scenario.banner.label.text() and scenario.banner.kind == "info"
    assert _live_column(variables)["courage"] == "8"  # the open table follows
    assert _live_column(variables)["gold"] == "35"


def test_overrides_that_do_not_fit_are_left_out_and_said(window) -> None:  # type: ignore[no-untyped-def]
    scenario = window.tabs.open(_named(window, "Scenario", "Courageous Explorer"))
    scenario.source.setPlainText(scenario.source.toPlainText().replace("courage: 8", "courage: brave"))
    loaded = scenario.load_into_live()
    assert loaded is not None and len(loaded.problems) == 1
    assert read_live(window.session.db).states["player"]["courage"] == 5  # the default stays
    assert "1 left out" in scenario.banner.label.text()
    scenario.source.setPlainText("player: {\n  courage: \n")
    assert scenario.load_into_live() is None and scenario.banner.kind == "error"


def test_save_live_as_scenario_writes_the_differences_and_saves(window) -> None:  # type: ignore[no-untyped-def]
    explorer = window.tabs.open(_named(window, "Scenario", "Courageous Explorer"))
    explorer.load_into_live()
    live = read_live(window.session.db)
    states = dict(live.states)
    states["player"] = dict(states["player"], memory_locket_found=True)
    from storyloom.play.live_state import write_live

    write_live(window.session.editor, states, live.rev)
    target = window.tabs.open(_named(window, "Scenario", "Reluctant Visitor"))
    before = target.source.toPlainText()
    assert target.save_live_button.text() == "Save Live as scenario"
    target.save_live_button.click()
    text = target.source.toPlainText()
    assert text != before and text.startswith("player: {\n  courage: 8\n")  # HJSON, as Drafft writes it
    assert not target.dirty and not target.invalid
    stored = window.session.db.get(target.doc_id)
    diff = parse_scenario_doc(stored)
    # what Live changes of the defaults; what equals a default (intuition 5, dusk) is not written
    assert diff == {"player": {"courage": 8, "empathy": 6, "gold": 35, "memory_locket_found": True},
                    "woman": {"trust_level": 6, "mood": "warm"}}
    assert "Saved the Live state here" in target.banner.label.text()
    target.source.undo()
    assert target.source.toPlainText() == before


def test_without_a_live_state_nothing_is_replaced(window) -> None:  # type: ignore[no-untyped-def]
    target = window.tabs.open(_named(window, "Scenario", "Reluctant Visitor"))
    before = target.source.toPlainText()
    assert target.save_live() is None
    assert target.source.toPlainText() == before and "no Live state" in target.banner.label.text()
