"""The Qt-free rules under the main window: collection outlines, tree edits, open tabs, quick open."""

from __future__ import annotations

import pytest

from storyloom.app import AppOptions, Workspace
from storyloom.app.views.open_tabs import OpenTabs, load_open_tabs, save_open_tabs, without_missing
from storyloom.app.views.outline import build_outline, can_move_into, create_in, drop_placement, duplicate, new_name
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
