"""The rows of the Variable table, the variables' parse status and the scenario's live check."""

from __future__ import annotations

from storyloom.play.variable_rows import (
    NO_VALUE,
    live_states,
    scenario_status,
    variable_rows,
    variables_status,
)

STATE = {"_sid": "player", "courage": 5, "luck": 0.5, "name": "Wren", "note": None,
         "inventory": {"keys": ["brass"], "gold": 3}}


def test_rows_flatten_every_property_with_type_and_default() -> None:
    rows = {r.path: r for r in variable_rows(STATE)}
    assert list(rows) == ["courage", "luck", "name", "note", "inventory", "inventory.keys", "inventory.gold"]
    assert rows["courage"].type == "integer" and rows["courage"].default == "5"
    assert rows["luck"].type == "number"
    assert rows["name"].default == '"Wren"'
    assert rows["note"].type == "any (null)" and rows["note"].default == "null"
    assert rows["inventory"].type == "object" and rows["inventory.keys"].type == "array of string"
    assert rows["inventory.keys"].depth == 1
    assert all(r.live == NO_VALUE for r in rows.values())


def test_live_values_come_from_the_live_state() -> None:
    live = live_states({"_id": "_local/live-state", "_rev": "0-1",
                        "player": {"courage": 9, "inventory": {"gold": 12}}, "other": 3})
    assert set(live) == {"player"}
    rows = {r.path: r for r in variable_rows(STATE, live["player"])}
    assert rows["courage"].live == "9"
    assert rows["inventory.gold"].live == "12"
    assert rows["name"].live == NO_VALUE
    assert live_states({"states": {"player": {"courage": 1}}}) == {"player": {"courage": 1}}
    assert live_states(None) == {}


def test_long_values_are_cut() -> None:
    row = variable_rows({"_sid": "s", "text": "x" * 200})[0]
    assert len(row.default) == 80 and row.default.endswith("…")


def test_variables_status_reports_the_state_or_the_line() -> None:
    ok = variables_status("_sid: player\ncourage: 5\n", "yaml")
    assert ok.ok and ok.state == {"_sid": "player", "courage": 5} and "1 property" in ok.message
    detected = variables_status("_sid: world\nweather: calm", None)
    assert detected.ok and detected.state["weather"] == "calm"
    broken = variables_status("_sid: player\ncourage: [1, 2\n", "yaml")
    assert not broken.ok and broken.line is not None and broken.message.startswith("Line ")
    missing = variables_status("courage: 5\n", "yaml")
    assert not missing.ok and "_sid" in missing.message


def test_scenario_status_lists_problems_with_their_lines() -> None:
    states = {"player": STATE}
    assert scenario_status("player: {\n  courage: 8\n}\n", "hjson", states).ok
    status = scenario_status("player: {\n  courage: brave\n  charm: 2\n}\nghost: {\n  x: 1\n}\n", "hjson", states)
    assert not status.ok
    codes = [(p.code, p.line) for p in status.problems]
    assert codes == [("type-changed", 2), ("unknown-property", 3), ("unknown-state", 5)]
    assert status.lines()[0].startswith("Line 2")
    assert "3 problems" in status.message


def test_scenario_status_reports_a_parse_error() -> None:
    status = scenario_status("player: {\n  courage: [1,\n", "hjson", {"player": STATE})
    assert not status.ok and status.problems[0].code == "parse-error" and status.message.startswith("Line ")
