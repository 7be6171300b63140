"""How locks read in the app (storyloom.app.views.lock_view): colours per person, "locked by X since
T", the editor's lock state, the dashboard's rows and a settled lock's words."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime

from storyloom.app.locks import LockNotice
from storyloom.app.views.lock_view import (
    PERSON_COLORS,
    LockTable,
    break_question,
    broken_text,
    editor_lock,
    lock_badge,
    lock_only_change,
    lock_rows,
    lock_tooltip,
    notice_view,
    person_color,
    when_text,
)
from storyloom.project.locks import BrokenLock, LockInfo

NOW = datetime(2025, 11, 25, 16, 0, tzinfo=UTC)
SINCE = "2025-11-25T14:02:11.000Z"


def doc(**fields: object) -> dict:
    base = {"_id": "s1", "_rev": "1-a", "type": "Script", "name": "Intro", "content": {"script": "hi\n"},
            "locked": False, "lockedBy": "nobody", "lockedAt": None}
    base.update(fields)
    return base


def locked(holder: str, at: str = SINCE, **fields: object) -> dict:
    return doc(locked=True, lockedBy=holder, lockedAt=at, **fields)


def test_a_person_keeps_one_colour_everywhere() -> None:
    assert person_color("bob") == person_color("bob") == person_color(" Bob ")
    assert person_color("bob") in PERSON_COLORS
    names = [f"user{i}" for i in range(40)]
    assert len({person_color(name) for name in names}) >= 6  # spread over the palette
    # Stable across runs and machines: a hash of the name, not Python's salted hash().
    digest = hashlib.sha1(b"ana").digest()
    assert person_color("ana") == PERSON_COLORS[int.from_bytes(digest[:4], "big") % len(PERSON_COLORS)]


def test_times_read_as_local_clock_today_and_dates_otherwise() -> None:
    assert when_text(SINCE, now=NOW, tz=UTC) == "14:02"
    assert when_text("2025-11-20T09:05:00Z", now=NOW, tz=UTC) == "20 Nov 09:05"
    assert when_text("2024-01-02T09:05:00Z", now=NOW, tz=UTC) == "2 Jan 2024 09:05"
    assert when_text(None, now=NOW) == ""
    assert when_text("yesterday", now=NOW) == "yesterday"


def test_tooltip_and_badge_name_the_holder_and_the_time() -> None:
    info = LockInfo("s1", "bob", SINCE)
    assert lock_tooltip(info, "ana", now=NOW, tz=UTC) == "locked by bob since 14:02"
    assert lock_tooltip(info, "bob", now=NOW, tz=UTC) == "locked by you since 14:02"
    provisional = LockInfo("s1", "ana", SINCE, provisional=True)
    assert "provisional" in lock_tooltip(provisional, "ana", now=NOW, tz=UTC)
    badge = lock_badge(info, "ana", now=NOW, tz=UTC)
    assert badge is not None and (badge.label, badge.mine, badge.color) == ("bob", False, person_color("bob"))
    mine = lock_badge(info, "bob", now=NOW, tz=UTC)
    assert mine is not None and mine.label == "you" and mine.mine
    assert lock_badge(None, "ana") is None


def test_a_document_locked_by_someone_else_is_read_only_with_a_banner() -> None:
    state = editor_lock(locked("bob"), "ana", now=NOW, tz=UTC)
    assert state.mode == "theirs" and state.read_only and state.holder == "bob"
    assert state.banner is not None and "bob is editing this document" in state.banner and "14:02" in state.banner
    assert state.color == person_color("bob") and state.button == "bob"


def test_my_lock_and_a_free_document() -> None:
    mine = editor_lock(locked("ana"), "ana", provisional=True, now=NOW, tz=UTC)
    assert (mine.mode, mine.read_only, mine.button) == ("mine", False, "Locked by you")
    assert "provisional" in mine.button_tip and "F2 unlocks" in mine.button_tip
    free = editor_lock(doc(), "ana", require_lock=True)
    assert (free.mode, free.read_only, free.button, free.banner) == ("free", False, "Lock", None)
    assert "your first edit takes it" in free.button_tip
    assert "first edit" not in editor_lock(doc(), "ana").button_tip


def test_the_holder_whose_lock_was_broken_is_told() -> None:
    record = {"by": "carol", "holder": "ana", "since": SINCE, "at": "2025-11-25T15:00:00Z"}
    state = editor_lock(doc(lockBroken=record), "ana", now=NOW, tz=UTC)
    assert state.banner == ("Your lock was broken by carol at 15:00. Lock the document again before you go on "
                            "editing if you still need it.")
    assert editor_lock(doc(lockBroken=record), "bob").banner is None


def test_lock_only_changes_are_told_apart_from_edits() -> None:
    assert lock_only_change(doc(), locked("bob", _rev="2-b"))
    assert lock_only_change(locked("bob"), doc(_rev="3-c", lockBroken={"by": "ana"}))
    assert not lock_only_change(doc(), locked("bob", _rev="2-b", name="Outro"))
    assert not lock_only_change(doc(), doc(_deleted=True))
    assert not lock_only_change(None, doc())


def test_the_lock_table_follows_documents() -> None:
    table = LockTable()
    table.reset([LockInfo("a", "bob", SINCE)])
    assert table.get("a") is not None and len(table) == 1
    assert table.apply("b", locked("ana", _id="b"), provisional=True)
    assert table.get("b") == LockInfo("b", "ana", SINCE, True)
    assert not table.apply("b", locked("ana", _id="b"), provisional=True)  # nothing changed
    assert table.apply("a", doc(_id="a"))
    assert table.get("a") is None
    assert table.apply("b", None) and len(table) == 0


def test_dashboard_rows_split_mine_from_others_by_name() -> None:
    names = {"a": ("Zeta", "Script"), "b": ("alpha", "Item"), "c": ("Gate", "Script")}
    rows = lock_rows([LockInfo("a", "ana", SINCE), LockInfo("b", "ana", SINCE, True), LockInfo("c", "bob", SINCE)],
                     "ana", lambda doc_id: names[doc_id], now=NOW, tz=UTC)
    mine, others = rows
    assert [row.name for row in mine] == ["alpha", "Zeta"]
    assert mine[0].provisional and mine[0].kind == "Item"
    assert [(row.name, row.holder, row.since) for row in others] == [("Gate", "bob", "14:02")]
    assert others[0].tooltip == "locked by bob since 14:02"


def test_the_break_confirmation_says_it_is_recorded() -> None:
    text = break_question("bob", "Intro", SINCE, now=NOW, tz=UTC)
    assert "Break bob's lock on “Intro” (held since 14:02)?" in text
    assert "recorded" in text and "bob will see it" in text


def test_breaks_read_from_each_side() -> None:
    record = BrokenLock("s1", "carol", "ana", SINCE, "2025-11-25T15:00:00Z")
    assert broken_text(record, "ana", "Intro", now=NOW, tz=UTC) == "Your lock on “Intro” was broken by carol at 15:00"
    assert broken_text(record, "carol", "Intro", now=NOW, tz=UTC) == "You broke ana's lock on “Intro” at 15:00"
    assert broken_text(record, "bob", "Intro", now=NOW, tz=UTC) == "carol broke ana's lock on “Intro” at 15:00"


def test_a_lost_lock_says_who_holds_it_and_where_the_edits_are() -> None:
    lost = LockNotice("s1", "lost", "bob", SINCE, "…", kept_rev="4-abc")
    view = notice_view(lost, "Intro", now=NOW, tz=UTC)
    assert view.tone == "danger" and view.title == "Lock lost: “Intro”"
    assert "bob holds it (locked since 14:02)" in view.text
    assert "Your edits are kept as a conflict revision" in view.text
    merged = notice_view(LockNotice("s1", "lost", "bob", None, "…"), "Intro")
    assert "merged, or are listed as a conflict" in merged.text
    assert notice_view(LockNotice("s1", "confirmed", "ana", SINCE, "…"), "Intro").tone == "success"
    assert notice_view(LockNotice("s1", "released", "ana", None, "…"), "Intro").tone == "muted"
