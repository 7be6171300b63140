"""Telling a holder their lock was broken, once per machine (no Qt, no server): the rule, its
words, and the record in the store's ``_local`` document."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from storyloom.app.broken_notices import ANNOUNCED_ID, BreakNotices, unannounced
from storyloom.app.views.lock_view import broken_banner, broken_view
from storyloom.cli.verb_locks import broken_line
from storyloom.project.locks import BrokenLock
from storyloom.store import Database

NOW = datetime(2026, 11, 27, 15, 0, tzinfo=UTC)
RECORD = {"by": "bea", "holder": "ana", "since": "2026-11-27T13:40:00Z", "at": "2026-11-27T14:02:00Z"}


def doc(doc_id: str = "p1", **broken: object) -> dict:
    return {"_id": doc_id, "_rev": "3-a", "name": "Prologue", "locked": False, "lockedBy": "nobody",
            "lockBroken": {**RECORD, **broken}}


def test_only_my_breaks_not_told_yet_each_once() -> None:
    docs = [doc(), doc(), doc("p2", holder="cal"), doc("p3", by="ana"), {"_id": "p4"}, None,
            {**doc("p5"), "_deleted": True}]
    [record] = unannounced(docs, "ana", set())
    assert (record.doc_id, record.by, record.holder, record.at) == ("p1", "bea", "ana", RECORD["at"])
    assert unannounced(docs, "ana", {"p1|bea|ana|2026-11-27T13:40:00Z|2026-11-27T14:02:00Z"}) == []
    assert len(unannounced([doc(at="2026-11-27T16:00:00Z")], "ana", {"p1|bea|ana|x|y"})) == 1  # a later break


def test_the_words_name_the_document_the_breaker_and_the_times() -> None:
    record = BrokenLock("p1", "bea", "ana", RECORD["since"], RECORD["at"])
    assert broken_line(record, "Prologue", now=NOW, tz=UTC) == \
        "your lock on 'Prologue' (p1) was broken by bea at 14:02 (held since 13:40)"
    assert broken_line(BrokenLock("p1", "bea", "ana", None, None)) == "your lock on 'p1' was broken by bea"
    view = broken_view(record, "Prologue", now=NOW, tz=UTC)
    assert view.tone == "warning" and view.doc_id == "p1"
    assert view.text.startswith("Your lock on “Prologue” (held since 13:40) was broken by bea at 14:02.")
    assert broken_banner(record, now=NOW, tz=UTC).startswith("Your lock was broken by bea at 14:02 (held since 13:40).")


def test_told_once_per_machine_across_processes(tmp_path: Path) -> None:
    path = tmp_path / "project.sqlite"
    store = Database(path)
    other = Database(path)  # another process of the same project on this machine
    try:
        store.put({k: v for k, v in doc().items() if k != "_rev"})
        first = BreakNotices(lambda: store, lambda: "ana")
        second = BreakNotices(lambda: other, lambda: "ana")
        [record] = first.take_stored(["p1", "missing", "_local/x"])
        assert record.by == "bea"
        assert first.take_stored(["p1"]) == []
        assert second.take([other.get("p1")]) == []
        assert store.get_local(ANNOUNCED_ID)["breaks"] == first.announced()
        assert BreakNotices(lambda: store, lambda: "bea").take([store.get("p1")]) == []  # the breaker
        assert first.take([{"_id": "p9", "name": "free"}]) == []  # nothing recorded: nothing read
    finally:
        other.close()
        store.close()
