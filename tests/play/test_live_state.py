"""Load a scenario into Live, save Live as a scenario: the Live state is the defaults with the
scenario's valid overrides; Live minus the defaults is the diff, written back in the scenario's
own language and read back to the same values; the _local document is written with its
revision (a Live state changed meanwhile is a conflict)."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from storyloom.app import AppOptions, Workspace
from storyloom.play.live_state import (
    ScenarioTextError,
    live_diff,
    read_live,
    render_scenario,
    scenario_into_live,
    scenario_language,
    write_live,
)
from storyloom.play.variable_rows import live_states
from storyloom.project.content import parse_text
from storyloom.store import Conflict

DEFAULTS = {
    "player": {"_sid": "player", "courage": 5, "name": "Ana", "brave": False,
               "inventory": {"keys": ["brass"], "gold": 20}},
    "world": {"_sid": "world", "weather": "calm"},
}
SCENARIO = "player: {\n  courage: 8\n  inventory: {\n    gold: 35\n  }\n}\nworld: {\n  weather: foggy\n}\n"


def test_a_scenario_loads_over_the_defaults() -> None:
    loaded = scenario_into_live(DEFAULTS, SCENARIO, None)
    assert loaded.applied == 3 and loaded.problems == []
    assert loaded.states["player"] == {"_sid": "player", "courage": 8, "name": "Ana", "brave": False,
                                       "inventory": {"keys": ["brass"], "gold": 35}}
    assert loaded.states["world"]["weather"] == "foggy"
    assert DEFAULTS["player"]["courage"] == 5  # the defaults are not touched


def test_invalid_overrides_are_left_out_and_listed() -> None:
    text = "player: {\n  courage: brave\n  hat: 1\n  gold: 3\n}\nghost: {\n  x: 1\n}\nworld: {\n  weather: rain\n}\n"
    loaded = scenario_into_live(DEFAULTS, text, "hjson")
    assert loaded.applied == 1 and loaded.states["world"]["weather"] == "rain"
    assert loaded.states["player"] == DEFAULTS["player"]
    assert sorted(p.code for p in loaded.problems) == ["type-changed", "unknown-property", "unknown-property",
                                                       "unknown-state"]
    assert all(p.line for p in loaded.problems)
    assert scenario_into_live(DEFAULTS, "", None).states == DEFAULTS


def test_live_minus_defaults_is_the_diff() -> None:
    live = scenario_into_live(DEFAULTS, SCENARIO, None).states
    live["player"]["brave"] = True
    live["player"]["made_up"] = 1  # created by an @set: a scenario cannot hold it
    live["elsewhere"] = {"x": 1}
    assert live_diff(DEFAULTS, live) == {"player": {"courage": 8, "brave": True, "inventory": {"gold": 35}},
                                         "world": {"weather": "foggy"}}
    assert live_diff(DEFAULTS, DEFAULTS) == {}
    assert live_diff({"s": {"flag": True}}, {"s": {"flag": 1}}) == {"s": {"flag": 1}}  # 1 is not true


def test_the_diff_is_written_in_the_scenarios_language() -> None:
    diff = {"player": {"courage": 8, "name": "Ana the Bold", "title": "dusk: late", "inventory": {"gold": 35},
                       "keys": ["brass", "iron"]}, "world": {"weather": "true"}}
    hjson = render_scenario(diff, "hjson")
    assert hjson.startswith("player: {\n  courage: 8\n  name: Ana the Bold\n  title: \"dusk: late\"\n")
    assert 'weather: "true"' in hjson  # a string that reads as a boolean is quoted
    for language in ("hjson", "yaml", "json", "toml"):
        assert parse_text(render_scenario(diff, language), language) == diff
    assert render_scenario({}, "hjson") == ""
    with pytest.raises(ScenarioTextError, match="TOML has no null"):
        render_scenario({"player": {"name": None}}, "toml")


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(
    st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True),
    st.dictionaries(st.text(min_size=1, max_size=12), st.recursive(
        st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=False, allow_infinity=False)
        | st.text(max_size=20),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(min_size=1, max_size=6), inner,
                                                                     max_size=3),
        max_leaves=6), min_size=1, max_size=4),
    min_size=1, max_size=3))
# Strings YAML 1.1 writes bare but the 1.2 core schema reads as numbers or booleans.
@example({"_": {"0E0": None, "1e3": "1e3", "v": "0o17", "t": "True"}})
@pytest.mark.slow
def test_any_diff_reads_back_the_same(diff) -> None:  # type: ignore[no-untyped-def]
    for language in ("hjson", "yaml", "json"):
        assert parse_text(render_scenario(diff, language), language) == diff


def test_the_language_of_a_scenario() -> None:
    assert scenario_language("yaml") == "yaml"
    assert scenario_language(None, '{"player": {"courage": 1}}') == "json"
    assert scenario_language(None, SCENARIO) == "hjson"
    assert scenario_language(None, "") == "hjson"
    assert scenario_language("text") == "hjson"


def test_live_is_stored_per_machine_with_its_revision() -> None:
    workspace = Workspace(options=AppOptions(username="ana"))
    try:
        workspace.manager.create("Live").close()
        with workspace.open_session("Live") as session:
            assert not read_live(session.db).exists
            rev = write_live(session.editor, {"player": {"courage": 8}}, None, scenario="s1")
            live = read_live(session.db)
            assert live.exists and live.rev == rev and live.scenario == "s1"
            assert live.states == {"player": {"courage": 8}}
            assert live_states(session.db.get_local("_local/live-state")) == live.states  # the table reads it too
            newer = write_live(session.editor, {"player": {"courage": 9}}, rev)
            with pytest.raises(Conflict):
                write_live(session.editor, {"player": {"courage": 1}}, rev)  # stale: changed meanwhile
            assert read_live(session.db).rev == newer and read_live(session.db).states["player"]["courage"] == 9
            assert not any(r["id"].startswith("_local") for r in session.db.all_docs()["rows"])  # never exported
    finally:
        workspace.close()
