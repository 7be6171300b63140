"""The Qt-free rules under the main window: collection outlines, tree edits, open tabs, quick open."""

from __future__ import annotations

import pytest

from storyloom.app import AppOptions, Workspace
from storyloom.app.views.open_tabs import OpenTabs, load_open_tabs, save_open_tabs, without_missing
from storyloom.app.views.outline import (
    OutlineNode,
    build_outline,
    can_move_into,
    create_in,
    drop_placement,
    duplicate,
    new_name,
    read_children,
    read_top,
)
from storyloom.app.views.quick_open import fuzzy_score, quick_open


@pytest.fixture
def session():  # type: ignore[no-untyped-def]
    workspace = Workspace(options=AppOptions(username="ana"))
    workspace.manager.create("Outline").close()
    with workspace.open_session("Outline") as opened:
        yield opened
    workspace.close()


def test_outline_lists_folders_first_each_in_the_users_order(session) -> None:  # type: ignore[no-untyped-def]
    editor = session.editor
    b = editor.create("Script", "B").id
    folder = create_in(editor, "Script", None, folder=True).id
    a = editor.create("Script", "A", before=b).id
    inner = create_in(editor, "Script", folder).id
    editor.create("Actor", "Not a script")
    top = build_outline(session.index.summaries(), "Script")
    assert [n.id for n in top] == [folder, a, b]
    assert [n.id for n in top[0].children] == [inner]
    assert top[0].children[0].name == "New Script" and top[0].name == "New Folder"


def _read_whole(session, collection: str) -> list:  # type: ignore[no-untyped-def]
    """The tree read a level at a time (read_top, then read_children of every row), as nested
    (id, name, is folder, children) tuples."""
    top, cut = read_top(session.index, collection)

    def shape(nodes: list[OutlineNode]) -> list:  # type: ignore[type-arg]
        return [(n.id, n.name, n.is_folder,
                 shape(read_children(session.index, collection, n.id, cut)) if n.is_folder or n.has_children else [])
                for n in nodes]

    return shape(top)


def _whole(nodes: list[OutlineNode]) -> list:  # type: ignore[type-arg]
    return [(n.id, n.name, n.is_folder, _whole(n.children)) for n in nodes]


def test_the_tree_read_a_level_at_a_time_is_the_whole_outline(session) -> None:  # type: ignore[no-untyped-def]
    """Reading a folder when it is opened gives the tree build_outline gives from every summary,
    odd parents included: a parent in another collection or not a tree document, a document that
    is its own parent, a parent missing, and a parent cycle (replicated concurrent moves), whose
    members each show once."""
    editor, db = session.editor, session.project.store  # the odd parents written past the editor's checks
    outer = create_in(editor, "Script", None, folder=True).id
    inner = create_in(editor, "Script", outer, folder=True).id
    for parent in (None, outer, inner, inner):
        create_in(editor, "Script", parent)
    gdd_folder = create_in(editor, "Gdd", None, folder=True).id
    actor = editor.create("Actor", "Mara").id
    settings = "ProjectSettings"
    for doc_id, parent, kind in (("in-gdd", gdd_folder, "Script"), ("under-actor", actor, "Script"),
                                 ("under-settings", settings, "Script"), ("gone-parent", "nowhere", "Script"),
                                 ("itself", "itself", "Folder"), ("inside-itself", "itself", "Script"),
                                 ("cycle-a", "cycle-b", "Folder"), ("cycle-b", "cycle-a", "Folder"),
                                 ("under-cycle", "cycle-b", "Script")):
        db.put({"_id": doc_id, "type": kind, "collection": "Script", "name": doc_id, "parent": parent,
                "sortKey": "a0"})
    whole = _whole(build_outline(session.index.summaries(), "Script"))
    read = _read_whole(session, "Script")
    ids = [row[0] for row in read]
    assert {"in-gdd", "under-actor", "gone-parent", "itself"} <= set(ids)
    assert "cycle-a" in ids and "cycle-b" not in ids  # the cycle is cut at its least id

    def flat(rows: list) -> list[str]:  # type: ignore[type-arg]
        return [i for row in rows for i in (row[0], *flat(row[3]))]

    assert sorted(flat(read)) == sorted(flat(whole))  # each document once
    plain = set(flat(whole)) - {"cycle-a", "cycle-b", "under-cycle"}
    assert [row for row in read if row[0] in plain] == [row for row in whole if row[0] in plain]


def test_new_names_do_not_repeat_a_siblings_name() -> None:
    assert new_name("Script", []) == "New Script"
    assert new_name("Script", ["New Script", "New Script 2"]) == "New Script 3"
    assert new_name("Item", ["New Folder"], folder=True) == "New Folder 2"


def test_duplicate_goes_right_after_the_original_with_a_new_id(session) -> None:  # type: ignore[no-untyped-def]
    editor = session.editor
    first = editor.create("Script", "Intro", content={"script": "::A:: hi"}).id
    last = editor.create("Script", "Outro").id
    copy = duplicate(editor, first)
    assert copy.doc["name"] == "Intro copy" and copy.doc["content"]["script"] == "::A:: hi"
    assert [n.id for n in build_outline(session.index.summaries(), "Script")] == [first, copy.id, last]
    folder = create_in(editor, "Script", None, folder=True).id
    with pytest.raises(ValueError, match="folders cannot be duplicated"):
        duplicate(editor, folder)


def test_drop_placement_and_moves_into_folders(session) -> None:  # type: ignore[no-untyped-def]
    assert drop_placement("f", ["a", "b", "c"], 1, ["b"]).before == "c"
    assert drop_placement(None, ["a", "b"], 0, ["x"]).before == "a"
    assert drop_placement(None, ["a", "b"], -1, ["x"]).before is None
    editor = session.editor
    outer = create_in(editor, "Script", None, folder=True).id
    inner = create_in(editor, "Script", outer, folder=True).id
    assert can_move_into(editor, inner, None) and not can_move_into(editor, outer, inner)
    assert not can_move_into(editor, outer, outer)


def test_open_tabs_round_trip_through_a_local_document(session) -> None:  # type: ignore[no-untyped-def]
    assert load_open_tabs(session.db) == OpenTabs()
    save_open_tabs(session.editor, OpenTabs(["a", "b", "a"], "b"))
    assert load_open_tabs(session.db) == OpenTabs(["a", "b"], "b")
    save_open_tabs(session.editor, OpenTabs(["c"], "gone"))  # a second write (a _local rev) works too
    assert load_open_tabs(session.db) == OpenTabs(["c"], None)
    assert without_missing(OpenTabs(["a", "b"], "b"), lambda i: i == "a") == OpenTabs(["a"], "a")


def test_quick_open_ranks_prefixes_and_word_starts_first(session) -> None:  # type: ignore[no-untyped-def]
    editor = session.editor
    editor.create("Script", "Guard rails drill")
    garden = editor.create("Script", "Garden").id
    editor.create("Actor", "Gardener")
    create_in(editor, "Script", None, folder=True, name="Garden folder")
    matches = quick_open(session.index.summaries(), "gard")
    assert matches[0].id == garden
    assert "Garden folder" not in [m.name for m in matches]  # folders do not open
    assert fuzzy_score("xyz", "Garden") is None
    assert fuzzy_score("gdn", "Garden") is not None
