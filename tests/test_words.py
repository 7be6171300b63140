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


def test_the_apps_messages_count_in_the_numbers_form() -> None:
    """The messages that once said "document(s)" or "1 warnings" say one thing, or many."""
    from datetime import datetime, timedelta

    from storyloom.app.auto_backups import age_text, status_view
    from storyloom.app.views.sync_activity import pending_text

    now = datetime(2026, 11, 28, 12, 0)
    assert age_text(now - timedelta(minutes=1, seconds=5), now) == "1 minute ago"
    assert age_text(now - timedelta(hours=3), now) == "3 hours ago"
    assert pending_text(1) == "1 local change not sent yet" and pending_text(2) == "2 local changes not sent yet"
    kept = status_view(keep=1, running=True, last=None, error=None, now=now)
    assert "keeps the last 1 automatic backup of this project" in kept.tooltip
