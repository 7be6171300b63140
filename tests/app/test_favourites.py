"""Favourites (Qt-free): stored per project and machine, by id, dropping deleted documents."""

from __future__ import annotations

import pytest

from storyloom.app import AppOptions, Workspace
from storyloom.app.views.favourites import (
    FAVOURITES_ID,
    favourite_rows,
    load_favourites,
    save_favourites,
    toggled,
)
from storyloom.app.views.outline import create_in


@pytest.fixture
def session():  # type: ignore[no-untyped-def]
    workspace = Workspace(options=AppOptions(username="ana"))
    workspace.manager.create("Stars").close()
    with workspace.open_session("Stars") as opened:
        yield opened
    workspace.close()


def test_nothing_saved_reads_as_no_favourites(session) -> None:  # type: ignore[no-untyped-def]
    assert load_favourites(session.db) == []


def test_favourites_round_trip_in_a_local_document_never_replicated(session) -> None:  # type: ignore[no-untyped-def]
    a = session.editor.create("Script", "Intro").id
    b = session.editor.create("Gdd", "Pitch").id
    assert save_favourites(session.editor, [b, a, b]) == [b, a]
    assert load_favourites(session.db) == [b, a]
    # A _local document: not among the project's documents, so sync never sends it.
    assert FAVOURITES_ID.startswith("_local/")
    assert FAVOURITES_ID not in {s.id for s in session.index.summaries()}
    assert session.db.get_local(FAVOURITES_ID)["ids"] == [b, a]


def test_a_renamed_document_stays_a_favourite_under_its_new_name(session) -> None:  # type: ignore[no-untyped-def]
    doc = session.editor.create("Script", "Intro").id
    save_favourites(session.editor, [doc])
    session.editor.patch(doc, {"name": "Prologue"})
    assert [(r.id, r.name, r.collection) for r in favourite_rows(load_favourites(session.db), session.index.get)] \
        == [(doc, "Prologue", "Script")]


def test_a_deleted_document_disappears_from_the_rows(session) -> None:  # type: ignore[no-untyped-def]
    kept = session.editor.create("Script", "Kept").id
    gone = session.editor.create("Script", "Gone").id
    save_favourites(session.editor, [gone, kept])
    session.editor.delete(gone)
    assert [r.id for r in favourite_rows(load_favourites(session.db), session.index.get)] == [kept]


def test_folders_are_not_rows(session) -> None:  # type: ignore[no-untyped-def]
    folder = create_in(session.editor, "Script", None, folder=True).id
    assert favourite_rows([folder], session.index.get) == []


def test_toggling_stars_and_unstars() -> None:
    assert toggled([], ["a"]) == ["a"]
    assert toggled(["a", "b"], ["a"]) == ["b"]
    assert toggled(["a"], ["a", "b"]) == ["a", "b"]  # not every one starred: star the rest
    assert toggled(["a", "b"], ["b", "a"]) == []


def test_an_unreadable_record_reads_as_none(session) -> None:  # type: ignore[no-untyped-def]
    session.editor.write_local({"_id": FAVOURITES_ID, "ids": "not a list"})
    assert load_favourites(session.db) == []
    session.editor.write_local({"_id": FAVOURITES_ID, "ids": ["x", 3, "", "x"],
                                "_rev": session.db.get_local(FAVOURITES_ID)["_rev"]})
    assert load_favourites(session.db) == ["x"]
