"""The project index kept beside the store: a reopened project reads only what changed while it
was closed (whoever changed it), and a table that is not this store's, stands beyond it, is torn
or lost is rebuilt from the feed; the file is private. Costs are counted in documents read."""

from __future__ import annotations

import os
import shutil
import stat
from typing import Any

import pytest

from storyloom.project.editor import Editor
from storyloom.project.index import ProjectIndex
from storyloom.project.index_table import SUFFIX, table_path
from storyloom.project.manager import Project, ProjectManager
from storyloom.store import Database

from .test_index import CountingDb, all_current, assert_index_exact, doc_of, replicate


def fill(project: Project, count: int = 300) -> dict[str, Any]:
    """Folders, scripts in them, top-level items and Variables, through the editor."""
    editor = project.editor
    folders = [editor.create("Folder", f"F{n}", collection="Script").id for n in range(5)]
    scripts = [editor.create("Script", f"s{n}", parent=folders[n % 5]).id for n in range(count // 2)]
    items = [editor.create("Item", f"i{n}").id for n in range(count // 4)]
    variables = [editor.create("Variable", f"v{n}", content={"variables": f"_sid: v{n}\nlevel: {n}"}).id
                 for n in range(count // 10)]
    return {"folders": folders, "scripts": scripts, "items": items, "variables": variables}


def reopen(manager: ProjectManager, project: Project) -> Project:
    """Close the project as a session does (the index saved first) and open it again."""
    project.editor.close_index()
    project.close()
    return manager.open(project.id)


@pytest.mark.slow
def test_a_reopened_project_reads_only_what_changed_while_it_was_closed(manager: ProjectManager) -> None:
    project = manager.create("Kept")
    layout = fill(project)
    assert os.path.exists(table_path(project.store))
    project = reopen(manager, project)
    try:
        # Changed while closed, without the editor: a direct write, a replicated document,
        # a delete, a moved script and a Variable whose _sid changes.
        db = project.store
        db.put(doc_of("Script", "direct", parent=layout["folders"][0], sort_key="zz"))
        replicate(db, doc_of("Item", "replicated", sort_key="V"), 3, "abc")
        db.remove(layout["items"][0], db.get(layout["items"][0])["_rev"])
        db.put(db.get(layout["scripts"][0]) | {"parent": layout["folders"][1]})
        var = db.get(layout["variables"][0])
        db.put(var | {"content": {"variables": "_sid: renamed\nlevel: 1"}})
        project = reopen(manager, project)
        counting = CountingDb(project.store)
        editor = Editor(counting, "tester")
        siblings = editor.index.siblings(layout["folders"][0])
        # Five changes read from the feed, not the 250 documents of the project.
        assert counting.reads == 5, counting.calls
        assert siblings[-1].name == "direct"
        assert layout["scripts"][0] in [s.id for s in editor.index.children(layout["folders"][1])]
        assert layout["scripts"][0] not in [s.id for s in editor.index.children(layout["folders"][0])]
        assert editor.index.sid_owners("renamed") == [var["_id"]] and editor.index.sid_owners("v0") == []
        assert editor.index.get(layout["items"][0]) is None
        assert editor.index.states()["renamed"]["level"] == 1
        assert_index_exact(editor)
        editor.close_index()
    finally:
        project.close()


@pytest.mark.slow
def test_the_first_write_after_reopening_reads_a_handful_of_documents(manager: ProjectManager) -> None:
    project = manager.create("Writes")
    layout = fill(project)
    project = reopen(manager, project)
    try:
        counting = CountingDb(project.store)
        editor = Editor(counting, "tester")
        writes = {
            "create in a folder": lambda: editor.create("Script", "new", parent=layout["folders"][2]),
            "create at the top level": lambda: editor.create("Item", "top"),
            "a Scenario (every variable state)": lambda: editor.create(
                "Scenario", "sc", content={"scenario": "{v3: {level: 7}}"}),
            "a Variable (its _sid)": lambda: editor.create("Variable", "v", content={"variables": "_sid: fresh"}),
            "move (cycle check)": lambda: editor.move(layout["scripts"][1], layout["folders"][4]),
        }
        for label, write in writes.items():
            counting.reset()
            write()
            assert counting.reads <= 10, (label, counting.calls)
        assert_index_exact(editor)
    finally:
        project.close()


@pytest.mark.slow
def test_unsaved_changes_are_read_again_after_a_crash(manager: ProjectManager) -> None:
    project = manager.create("Crash")
    layout = fill(project, 80)
    project = reopen(manager, project)
    try:
        editor = project.editor
        moved = editor.move(layout["items"][0], None).doc
        added = editor.create("Script", "after the save", parent=layout["folders"][0]).id
        # The process dies here: the index in memory is never saved. A new index loads the
        # last save and reads the two changes from the feed.
        fresh = ProjectIndex(project.store)
        assert fresh.refresh() == 2
        assert fresh.get(added).parent == layout["folders"][0]
        assert fresh.get(moved["_id"]).sort_key == moved["sortKey"]
        assert fresh.check(all_current(project.store)) == []
        fresh.close()
    finally:
        project.close()


def test_a_table_of_another_store_is_rebuilt(manager: ProjectManager) -> None:
    first = manager.create("First")
    fill(first, 40)
    first_table = table_path(first.store)
    first.editor.close_index()
    first.close()
    second = manager.create("Second")
    try:
        second.editor.create("Item", "only in the second")
        second.editor.close_index()
        # Another store's table put in place of this one's (a copied folder, say).
        shutil.copyfile(first_table, table_path(second.store))
        index = ProjectIndex(second.store)
        assert [s.name for s in index.siblings(None, "Item")] == ["only in the second"]
        assert index.check(all_current(second.store)) == []
        index.close()
    finally:
        second.close()


def test_a_table_beyond_its_store_is_rebuilt(tmp_path) -> None:
    path = str(tmp_path / "store.sqlite3")
    db = Database(path)
    editor = Editor(db, "tester")
    editor.create("Item", "kept")
    editor.close_index()
    db.close()
    shutil.copyfile(path, str(tmp_path / "older.sqlite3"))
    db = Database(path)
    editor = Editor(db, "tester")
    editor.create("Item", "later")
    editor.close_index()
    db.close()
    # The store goes back to the older copy (a restore of the file): same instance, lower seq.
    shutil.copyfile(str(tmp_path / "older.sqlite3"), path)
    db = Database(path)
    try:
        index = ProjectIndex(db)
        assert [s.name for s in index.siblings(None, "Item")] == ["kept"]
        index.close()
    finally:
        db.close()


@pytest.mark.parametrize("content", [b"", b"not a database at all" * 100, b"SQLite format 3\x00" + b"\x01" * 200])
def test_a_torn_or_foreign_file_is_rebuilt(tmp_path, content: bytes) -> None:
    db = Database(str(tmp_path / "store.sqlite3"))
    try:
        Editor(db, "tester").create("Item", "one")
        (tmp_path / ("store.sqlite3" + SUFFIX)).write_bytes(content)
        index = ProjectIndex(db)
        assert [s.name for s in index.siblings(None, "Item")] == ["one"]
        index.close()
        # And it was saved whole in its place.
        again = ProjectIndex(db)
        assert again.refresh() == 0 and len(again) == 1
        again.close()
    finally:
        db.close()


def test_the_table_file_is_private(manager: ProjectManager) -> None:
    previous = os.umask(0o022)
    try:
        project = manager.create("Private")
        try:
            project.editor.create("Item", "x")
            project.editor.close_index()
            mode = stat.S_IMODE(os.stat(table_path(project.store)).st_mode)
            assert mode == 0o600, f"{mode:04o}"
            assert not [p for p in os.listdir(project.path) if p.endswith(".tmp")]
        finally:
            project.close()
    finally:
        os.umask(previous)


def test_an_index_in_memory_for_a_store_in_memory() -> None:
    db = Database(":memory:")
    try:
        editor = Editor(db, "tester")
        editor.create("Item", "x")
        assert editor.index.location == ":memory:"
        assert len(editor.index) == 1
        editor.close_index()
    finally:
        db.close()


class WithoutSnapshots:
    """The store without ``snapshot``: the index builds from the changes feed."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def __getattr__(self, name: str) -> Any:
        if name == "snapshot":
            raise AttributeError(name)
        return getattr(self._db, name)


@pytest.mark.slow
def test_the_build_from_a_snapshot_equals_the_build_from_the_feed(project: Project) -> None:
    fill(project, 120)
    db = project.store
    db.put({"_id": "odd", "type": ["x"], "collection": 7, "parent": 3, "sortKey": "V", "name": {"a": 1}})
    db.put(doc_of("Scenario", "sc", content={"scenario": "{v1: {level: 3}}"}))
    db.put(doc_of("Item", "big", sort_key="W") | {"weight": 2**70})
    db.remove(db.get("odd")["_id"], db.get("odd")["_rev"])
    db.put({"_id": "odd2", "type": "Script", "collection": None, "name": 1.5, "parent": "gone"})
    from_snapshot = ProjectIndex(db, location=":memory:")
    from_feed = ProjectIndex(WithoutSnapshots(db), location=":memory:")
    assert from_snapshot.refresh() == from_feed.refresh() - 1  # the feed also lists the deleted one
    assert sorted(from_snapshot.summaries(), key=lambda s: s.id) == sorted(from_feed.summaries(), key=lambda s: s.id)
    assert from_snapshot.check(all_current(db)) == [] and from_feed.check(all_current(db)) == []
    assert from_snapshot.last_seq == from_feed.last_seq == db.info()["update_seq"]
    assert from_snapshot.states() == from_feed.states()


def test_a_body_sqlite_cannot_read_builds_from_the_feed(project: Project) -> None:
    project.store.put(doc_of("Item", "not a number") | {"weight": float("nan")})
    index = ProjectIndex(project.store, location=":memory:")
    assert index.refresh() == project.store.info()["doc_count"]
    assert index.check(all_current(project.store)) == []


def test_the_editors_own_writes_are_not_read_back(project: Project) -> None:
    fill(project, 40)
    calls: list[bool] = []
    original = project.store.changes

    def changes(**options: Any) -> Any:
        calls.append(bool(options.get("include_docs")))
        return original(**options)

    project.store.changes = changes  # type: ignore[method-assign]
    try:
        editor = project.editor
        for n in range(5):
            editor.create("Item", f"mine {n}")
            editor.rename(editor.index.siblings(None, "Item")[-1].id, f"renamed {n}")
        assert calls and not any(calls), calls  # every catch-up found the summary it needed
        # A write by someone else is read with its document.
        project.store.put(doc_of("Item", "theirs", sort_key="zz"))
        assert editor.index.siblings(None, "Item")[-1].name == "theirs"
        assert calls[-1] is True
    finally:
        del project.store.changes
    assert_index_exact(editor)


def test_a_restored_project_opens_with_its_index_already_built(manager: ProjectManager, tmp_path) -> None:
    # A restore (as an import or a clone) builds the index in its own work: the first opening,
    # on the app's GUI thread, reads no document to build it.
    project = manager.create("Original")
    layout = fill(project, 80)
    backup = manager.backup(project, tmp_path / "original.json")
    project.close()
    copy = manager.restore(backup, "Copy", new_id=True)
    assert os.path.exists(table_path(copy.store))
    copy.close()
    copy = manager.open("Copy")
    try:
        _answers_from_the_saved_table(copy, layout)
    finally:
        copy.close()


def _answers_from_the_saved_table(project: Project, layout: dict[str, Any]) -> None:
    """A new index of ``project`` answers from the saved table, reading no document, exactly."""
    counting = CountingDb(project.store)
    editor = Editor(counting, "tester")
    assert [s.id for s in editor.index.children(layout["folders"][1])] == layout["scripts"][1::5]
    assert counting.reads == 0, counting.calls
    assert_index_exact(editor)
    editor.close_index()


def test_a_build_straight_into_the_file_equals_the_build_in_memory(manager: ProjectManager, monkeypatch) -> None:
    from storyloom.project import index as index_module

    # Chunks of 7 rows: the build adds rows as they come, never the whole project at once.
    monkeypatch.setattr(index_module, "BUILD_CHUNK", 7)
    previous = os.umask(0o022)
    project = manager.create("On disk")
    try:
        layout = fill(project, 60)
        project.editor.close_index()
        os.unlink(table_path(project.store))
        assert index_module.build_index_file(project.store) == 1 + 5 + 30 + 15 + 6  # with the settings
        assert stat.S_IMODE(os.stat(table_path(project.store)).st_mode) == 0o600
        assert not [p for p in os.listdir(project.path) if p.endswith((".build", ".tmp"))]
        _answers_from_the_saved_table(project, layout)
    finally:
        os.umask(previous)
        project.close()


def test_a_build_into_the_file_that_fails_leaves_no_file(manager: ProjectManager, monkeypatch) -> None:
    from storyloom.project import index as index_module

    project = manager.create("Broken build")
    try:
        fill(project, 20)
        project.editor.close_index()
        os.unlink(table_path(project.store))

        def broken(*args: Any, **kwargs: Any) -> None:
            raise RuntimeError("disk gone")

        monkeypatch.setattr(index_module.IndexTable, "settle_top", broken)
        with pytest.raises(RuntimeError, match="disk gone"):
            index_module.build_index_file(project.store)
        assert not os.path.exists(table_path(project.store))
        assert not [p for p in os.listdir(project.path) if p.endswith((".build", ".tmp"))]
    finally:
        project.close()


def test_a_table_saved_before_an_index_was_added_is_saved_with_it(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A table saved by an older version gets the index this version adds when it is loaded,
    and keeps it: the next opening loads it made (making it costs a second at 100,000 documents)."""
    import sqlite3

    from storyloom.project.index_table import IndexTable

    path = str(tmp_path / "store.sqlite-index")
    table = IndexTable(path)
    table.conn.execute("INSERT INTO meta (key, value) VALUES ('format', '1')")
    table.unsaved = 1
    table.close()
    with sqlite3.connect(path) as old:
        old.execute("DROP INDEX summary_tree_kinds")
    loaded = IndexTable(path)
    assert loaded.loaded and loaded.unsaved
    loaded.close()
    again = IndexTable(path)
    assert again.loaded and not again.unsaved
    again.close()
