"""Counts read right: one state, two states, and every message that counts says so."""

from __future__ import annotations

from storyloom.words import counted, plural


def test_a_count_takes_its_nouns_form() -> None:
    assert counted(1, "state") == "1 state"
    assert counted(0, "state") == "0 states"
    assert counted(2, "match") == "2 matches"
    assert counted(1204, "document") == "1,204 documents"
    assert counted(3, "entry", "entries") == "3 entries"
    assert plural(1, "entry", "entries") == "entry"


def test_the_scenario_status_counts_its_states() -> None:
    from storyloom.play.variable_rows import scenario_status

    states = {"player": {"_sid": "player", "courage": 1}}
    status = scenario_status("{}", "hjson", states)
    assert status.message == "Matches the variables (1 state)"
