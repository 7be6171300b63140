"""The project index: it follows every write to the store (editor, direct, replicated, other
threads), deletes and conflicts, answers exactly what a full scan answers, and keeps the cost of
an editor write independent of the size of the project (counted in documents read, not timed)."""

from __future__ import annotations

import random
import threading
from typing import Any

import pytest

from storyloom.project import content
from storyloom.project.documents import TREE_COLLECTIONS, new_document
from storyloom.project.editor import Editor, StoreContext, WriteIntent
from storyloom.project.index import ProjectIndex
from storyloom.project.manager import Project
from storyloom.project.tree import derive_tree, order_key
from storyloom.project.validation import ValidationError, check_document
from storyloom.store import Database

COLLECTIONS = ("Script", "Item", "Variable", "Dialogue")


def doc_of(doc_type: str, name: str, *, parent: str | None = None, collection: str | None = None,
           sort_key: str = "V", **fields: Any) -> dict[str, Any]:
    doc = new_document(doc_type, name, parent=parent, collection=collection, **fields)
    doc["sortKey"] = sort_key
    return doc


def variable(name: str, sid: str, *, parent: str | None = None, sort_key: str = "V", **extra: Any) -> dict[str, Any]:
    body = "".join(f"\n{key}: {value}" for key, value in extra.items())
    return doc_of("Variable", name, parent=parent, sort_key=sort_key,
                  content={"variables": f"_sid: {sid}{body}"})


def rev_hash(char: str) -> str:
    return char * 32


def replicate(db: Database, doc: dict[str, Any], start: int, chars: str) -> str:
    """Write ``doc`` as replication does (``new_edits=False``) with the history ``start-chars``."""
    ids = [rev_hash(c) for c in chars]
    body = dict(doc, _rev=f"{start}-{ids[0]}", _revisions={"start": start, "ids": ids})
    assert db.bulk_docs([body], new_edits=False) == []
    return body["_rev"]


def all_current(db: Any) -> list[dict[str, Any]]:
    rows = db.all_docs(include_docs=True)["rows"]
    return [row["doc"] for row in rows if row.get("doc") and not row["id"].startswith("_design/")]


def brute_siblings(docs: list[dict[str, Any]], parent: str | None, collection: Any) -> list[str]:
    """What Editor.siblings answered before the index (a full scan)."""
    ids = {d["_id"] for d in docs}
    tree_types = ("Folder", *TREE_COLLECTIONS)
    if parent is None:
        found = [d for d in docs if d.get("type") in tree_types and d.get("collection") == collection
                 and not (isinstance(d.get("parent"), str) and d["parent"] in ids)]
    else:
        found = [d for d in docs if d.get("type") in tree_types and d.get("parent") == parent]
    return [d["_id"] for d in sorted(found, key=order_key)]


def assert_index_exact(editor: Editor) -> None:
    """The index answers what a full scan of the store answers."""
    docs = all_current(editor.db)
    assert editor.index.check(docs) == []
    assert editor.tree() == derive_tree(docs)
    variables = [d for d in docs if d.get("type") == "Variable"]
    assert editor.index.states() == content.collect_states(variables)
    parents = {d.get("parent") for d in docs if isinstance(d.get("parent"), str)}
    for parent in parents:
        assert [s.id for s in editor.index.siblings(parent)] == brute_siblings(docs, parent, None)
    collections: list[Any] = []
    for d in docs:
        if d.get("collection") not in collections:
            collections.append(d.get("collection"))
    for collection in collections:
        assert [s.id for s in editor.index.siblings(None, collection)] == brute_siblings(docs, None, collection)


# -- following the store -------------------------------------------------------------------------


def test_index_follows_writes_made_directly_to_the_store(project: Project) -> None:
    editor = project.editor
    folder = editor.create("Folder", "Act 1", collection="Script").id
    first = editor.create("Script", "first", parent=folder).doc
    # A write that bypasses the editor: placed after "first" by its key.
    direct = doc_of("Script", "direct", parent=folder, sort_key=first["sortKey"] + "z")
    project.store.put(direct)
    assert [s.name for s in editor.index.siblings(folder)] == ["first", "direct"]
    last = editor.create("Script", "last", parent=folder).id
    assert editor.tree()[folder]["children"] == [first["_id"], direct["_id"], last]
    # Moved out directly: the editor's next placement no longer sees it under the folder.
    moved = project.store.get(direct["_id"]) | {"parent": None}
    project.store.put(moved)
    assert [s.name for s in editor.index.children(folder)] == ["first", "last"]
    assert direct["_id"] in [s["_id"] for s in editor.siblings(None, "Script")]
    # A Variable written directly owns its _sid for the editor's duplicate check.
    project.store.put(variable("hero", "hero"))
    with pytest.raises(ValidationError) as info:
        editor.create("Variable", "hero 2", content={"variables": "_sid: hero"})
    assert info.value.problem_code == "duplicate-sid"
    assert_index_exact(editor)


def test_index_follows_replicated_writes(project: Project) -> None:
    editor = project.editor
    top = editor.create("Folder", "Top", collection="Script").id
    # A folder replicated in under the editor's folder, and a script inside it.
    remote_folder = doc_of("Folder", "Remote", collection="Script", parent=top, sort_key="a")
    replicate(project.store, remote_folder, 1, "a")
    remote_script = doc_of("Script", "remote script", parent=remote_folder["_id"], sort_key="V")
    replicate(project.store, remote_script, 3, "bcd")
    assert [s.id for s in editor.index.children(remote_folder["_id"])] == [remote_script["_id"]]
    # The editor places after the replicated sibling and refuses a cycle through the replica.
    mine = editor.create("Script", "mine", parent=remote_folder["_id"]).id
    assert editor.tree()[remote_folder["_id"]]["children"] == [remote_script["_id"], mine]
    with pytest.raises(ValidationError) as info:
        editor.move(top, remote_folder["_id"])
    assert info.value.problem_code == "parent-cycle"
    # A replicated Variable's _sid is taken; a replicated update that changes it frees the old one.
    replicate(project.store, variable("remote var", "shared"), 1, "e")
    with pytest.raises(ValidationError):
        editor.create("Variable", "dup", content={"variables": "_sid: shared"})
    assert_index_exact(editor)


def test_index_follows_deletes(project: Project) -> None:
    editor = project.editor
    folder = editor.create("Folder", "F", collection="Item").id
    sword = editor.create("Item", "sword", parent=folder).id
    shield = editor.create("Item", "shield", parent=folder).id
    var = editor.create("Variable", "player", content={"variables": "_sid: player"}).doc
    # Deleted behind the editor's back: the folder goes, its children become top level.
    project.store.remove(folder, project.store.get(folder)["_rev"])
    assert editor.index.get(folder) is None
    assert [s.id for s in editor.index.siblings(None, "Item")] == [sword, shield]
    assert editor.index.children(folder) == []
    # The folder comes back (replicated, new branch): the children are under it again.
    replicate(project.store, doc_of("Folder", "F", collection="Item") | {"_id": folder}, 1, "f")
    assert [s.id for s in editor.index.children(folder)] == [sword, shield]
    assert editor.index.siblings(None, "Item")[0].id == folder
    # A deleted Variable frees its _sid.
    project.store.remove(var["_id"], var["_rev"])
    assert editor.index.sid_owners("player") == []
    editor.create("Variable", "player again", content={"variables": "_sid: player"})
    # Deletes through the editor (recursive) leave nothing behind in the index.
    editor.delete(folder, recursive=True)
    assert editor.index.siblings(None, "Item") == [] and editor.index.get(sword) is None
    assert_index_exact(editor)


def test_index_follows_the_winning_revision_of_a_conflict(project: Project) -> None:
    db, editor = project.store, project.editor
    here = editor.create("Folder", "here", collection="Script").id
    there = editor.create("Folder", "there", collection="Script").id
    created = editor.create("Script", "S", parent=here).doc
    base = created["_rev"]
    local = db.put(db.get(created["_id"]) | {"name": "local"})["rev"]
    assert editor.index.get(created["_id"]).name == "local"
    # A concurrent edit replicated in: same generation, higher hash, so it wins.
    remote = dict(db.get(created["_id"], rev=local), name="remote", parent=there)
    remote.pop("_rev")
    winner = f"2-{rev_hash('f')}"
    assert db.bulk_docs([remote | {"_rev": winner, "_revisions": {"start": 2, "ids": [rev_hash("f"), base[2:]]}}],
                        new_edits=False) == []
    assert db.get(created["_id"])["_rev"] == winner
    summary = editor.index.get(created["_id"])
    assert (summary.rev, summary.name, summary.parent) == (winner, "remote", there)
    assert [s.id for s in editor.index.children(there)] == [created["_id"]]
    assert editor.index.children(here) == []
    # A replicated losing branch changes nothing.
    loser = dict(remote, name="loser", parent=None)
    assert db.bulk_docs([loser | {"_rev": f"2-{rev_hash('0')}",
                                  "_revisions": {"start": 2, "ids": [rev_hash("0"), base[2:]]}}],
                        new_edits=False) == []
    assert editor.index.get(created["_id"]).name == "remote"
    # Resolving the conflict by deleting the winner: the next leaf wins and the index follows.
    db.remove(created["_id"], winner)
    current = db.get(created["_id"])
    summary = editor.index.get(created["_id"])
    assert (summary.rev, summary.name, summary.parent) == (current["_rev"], current["name"], current.get("parent"))
    assert_index_exact(editor)


def test_conflicting_variables_use_the_winners_sid(project: Project) -> None:
    db, editor = project.store, project.editor
    var = editor.create("Variable", "v", content={"variables": "_sid: alpha"}).doc
    editor.rename(var["_id"], "local edit")
    # A concurrent remote edit of the first revision that wins, and changes the _sid.
    remote = {k: v for k, v in db.get(var["_id"], rev=var["_rev"]).items() if k != "_rev"}
    remote["content"] = {"variables": "_sid: beta"}
    db.bulk_docs([remote | {"_rev": f"2-{rev_hash('f')}",
                            "_revisions": {"start": 2, "ids": [rev_hash("f"), var["_rev"][2:]]}}], new_edits=False)
    assert db.get(var["_id"], conflicts=True)["_conflicts"]
    assert editor.index.sid_owners("beta") == [var["_id"]] and editor.index.sid_owners("alpha") == []
    editor.create("Variable", "alpha is free", content={"variables": "_sid: alpha"})
    with pytest.raises(ValidationError):
        editor.create("Variable", "beta is not", content={"variables": "_sid: beta"})


def test_index_sees_writes_from_another_thread(tmp_path) -> None:
    db = Database(str(tmp_path / "store.sqlite3"))
    try:
        editor = Editor(db, "tester")
        folder = editor.create("Folder", "F", collection="Script").id
        assert editor.index.children(folder) == []

        def writer() -> None:
            for n in range(20):
                db.put(doc_of("Script", f"t{n}", parent=folder, sort_key=f"{n + 1:02d}1"))

        thread = threading.Thread(target=writer)
        thread.start()
        thread.join()
        assert [s.name for s in editor.index.children(folder)] == [f"t{n}" for n in range(20)]
        assert editor.create("Script", "after", parent=folder).doc["sortKey"] > "201"
        # And a second Database object on the same file (another process, say).
        other = Database(str(tmp_path / "store.sqlite3"))
        try:
            other.put(doc_of("Script", "from elsewhere", parent=folder, sort_key="zz"))
        finally:
            other.close()
        assert editor.index.children(folder)[-1].name == "from elsewhere"
    finally:
        db.close()


def test_catch_up_reads_only_new_changes(project: Project) -> None:
    index = ProjectIndex(project.store, location=":memory:")  # its own table, not the project's file
    for n in range(5):
        project.editor.create("Item", f"i{n}")
    assert index.refresh() == project.store.info()["doc_count"]
    assert index.refresh() == 0
    project.store.put(doc_of("Item", "one more"))
    assert index.refresh() == 1
    assert index.last_seq == project.store.info()["update_seq"]


def test_design_documents_are_not_indexed(project: Project) -> None:
    project.store.put({"_id": "_design/idx", "type": "Script", "collection": "Script", "parent": None})
    assert project.editor.index.get("_design/idx") is None
    assert "_design/idx" not in [s.id for s in project.editor.index.siblings(None, "Script")]


def test_malformed_stored_documents_do_not_break_the_index(project: Project) -> None:
    db, editor = project.store, project.editor
    db.put({"_id": "odd1", "type": "Script", "collection": ["not", "text"], "parent": 7, "sortKey": 3})
    db.put({"_id": "odd2", "type": ["x"], "parent": "nowhere"})
    db.put({"_id": "odd3", "type": "Variable", "content": {"variables": "_sid: [unclosed"}})
    db.put({"_id": "odd4", "type": "Scenario", "content": {"scenario": "{unclosed: "}})
    assert editor.index.get("odd3").sid is None and editor.index.get("odd4").refs is None
    assert [s.id for s in editor.index.siblings(None, ["not", "text"])] == ["odd1"]
    editor.create("Variable", "fine", content={"variables": "_sid: fine"})
    assert_index_exact(editor)


def test_scenarios_record_the_states_they_override(project: Project) -> None:
    editor = project.editor
    editor.create("Variable", "player", content={"variables": "_sid: player\ncourage: 5"})
    scenario = editor.create("Scenario", "brave", content={"scenario": "{player: {courage: 9}}"}).id
    assert editor.index.scenarios_using("player") == [scenario]
    assert editor.index.get(scenario).refs == frozenset({"player"})


# -- same answers as before the index ----------------------------------------------------------------


@pytest.mark.slow
def test_index_matches_a_full_scan_under_random_writes(project: Project) -> None:
    rng = random.Random(7)
    db, editor = project.store, project.editor
    folders: dict[str, list[str]] = {c: [] for c in COLLECTIONS}
    leaves: list[str] = []
    sids = [f"s{n}" for n in range(6)]
    for step in range(250):
        op = rng.choice(["editor-create", "editor-folder", "direct", "replicated", "move", "delete",
                         "direct-delete", "variable", "rename"])
        collection = rng.choice(COLLECTIONS)
        parent = rng.choice([None, *folders[collection]])
        try:
            if op == "editor-folder":
                folders[collection].append(editor.create("Folder", f"f{step}", collection=collection,
                                                         parent=parent).id)
            elif op == "editor-create" and collection != "Variable":
                leaves.append(editor.create(collection, f"d{step}", parent=parent).id)
            elif op == "direct":
                doc = doc_of(collection, f"x{step}", parent=parent, sort_key=rng.choice(["V", "W", "a1", "V"]))
                if collection == "Variable":
                    doc["content"]["variables"] = f"_sid: {rng.choice(sids)}"
                db.put(doc)
                leaves.append(doc["_id"])
            elif op == "replicated":
                doc = doc_of(collection, f"r{step}", parent=rng.choice([parent, "not-yet-here"]),
                             sort_key=rng.choice(["V", "k"]))
                replicate(db, doc, rng.randint(4, 6), "abcd")
                leaves.append(doc["_id"])
            elif op == "variable":
                leaves.append(editor.create("Variable", f"v{step}", parent=parent,
                                            content={"variables": f"_sid: {rng.choice(sids)}"}).id)
            elif op == "move" and leaves:
                target = rng.choice(leaves)
                doc = db.get(target)
                choices = [None, *folders.get(doc.get("collection"), [])]
                editor.move(target, rng.choice(choices), after=None)
            elif op == "rename" and leaves:
                editor.rename(rng.choice(leaves), f"renamed {step}")
            elif op == "delete" and (leaves or any(folders.values())):
                pool = leaves + [f for fs in folders.values() for f in fs]
                editor.delete(rng.choice(pool), recursive=True)
            elif op == "direct-delete" and leaves:
                target = rng.choice(leaves)
                db.remove(target, db.get(target)["_rev"])
        except ValidationError:
            pass  # a refused write (duplicate _sid, a move into itself): the index must not care
        except Exception as exc:  # a NotFound for an id deleted earlier
            if type(exc).__name__ != "NotFound":
                raise
        if step % 25 == 0:
            assert_index_exact(editor)
    assert_index_exact(editor)


def test_indexed_context_answers_like_the_full_scan(project: Project) -> None:
    """Every check of a batch gives the same problems with the index as with a full scan."""
    editor = project.editor
    editor.create("Variable", "player", content={"variables": "_sid: player\ncourage: 5"})
    stored_b = editor.create("Variable", "b", content={"variables": "_sid: npc\nmood: 1"}).doc
    project.store.put(variable("direct dup", "player") | {"_id": "zz-direct"})
    project.store.put(variable("early", "early") | {"_id": "00-early"})
    folder = editor.create("Folder", "F", collection="Scenario").id
    batch = [
        variable("again", "player") | {"_id": "aa-new"},
        variable("again 2", "player") | {"_id": "ab-new"},
        dict(project.store.get(stored_b["_id"]), content={"variables": "_sid: player"}),
        variable("early moved", "npc") | {"_id": "00-early", "_rev": project.store.get("00-early")["_rev"]},
        variable("broken", "x") | {"content": {"variables": "_sid: [broken"}},
        doc_of("Scenario", "sc", parent=folder, content={"scenario": "{player: {courage: 'x'}, npc: {mood: 2}}"}),
        doc_of("Scenario", "sc2", content={"scenario": "{early: {}, ghost: {}}"}),
        doc_of("Script", "s", parent="aa-new"),
        doc_of("Folder", "loop", collection="Scenario", parent=folder) | {"_id": folder},
    ]
    pending = {doc["_id"]: doc for doc in batch}
    with_index = StoreContext(project.store, pending, index=editor.index)
    full_scan = StoreContext(project.store, pending)
    for doc in batch:
        assert check_document(doc, with_index) == check_document(doc, full_scan), doc["_id"]
        assert with_index.variable_sid_owner("player", doc["_id"]) == full_scan.variable_sid_owner("player", doc["_id"])
        assert editor._cycle_through(doc, with_index) == editor._cycle_through(doc, full_scan)
    assert with_index.variable_states() == full_scan.variable_states()
    for doc_type in ("Variable", "Scenario", "Folder"):
        assert with_index.docs_of_type(doc_type) == full_scan.docs_of_type(doc_type)
    # A single write (the editor's case) too.
    single = variable("one", "npc")
    assert check_document(single, StoreContext(project.store, {single["_id"]: single}, index=editor.index)) == \
        check_document(single, StoreContext(project.store, {single["_id"]: single}))


def test_import_batch_reports_duplicate_sids_like_before(project: Project) -> None:
    batch = [variable("a", "same") | {"_id": "a"}, variable("b", "same") | {"_id": "b"},
             variable("c", "other") | {"_id": "c"}]
    written, refused = project.editor.write_many(batch, WriteIntent.IMPORT)
    assert refused == []
    assert {r.id: [w.message for w in r.warnings] for r in written} == {
        "a": ["document 'a': content.variables: _sid 'same' is already used by Variable document 'b'; "
              "two variable documents cannot share a _sid"],
        "b": ["document 'b': content.variables: _sid 'same' is already used by Variable document 'a'; "
              "two variable documents cannot share a _sid"],
        "c": [],
    }


# -- cost of a write: documents read, not time --------------------------------------------------------


class CountingDb:
    """A store wrapper counting the documents each call hands back (rows of listings included)."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self.reads = 0
        self.calls: list[tuple[str, int]] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._db, name)

    def _count(self, call: str, n: int) -> None:
        self.reads += n
        self.calls.append((call, n))

    def get(self, *args: Any, **kwargs: Any) -> Any:
        try:
            result = self._db.get(*args, **kwargs)
        finally:
            self._count("get", 1)
        return result

    def all_docs(self, **options: Any) -> Any:
        result = self._db.all_docs(**options)
        self._count("all_docs", len(result["rows"]))
        return result

    def all_docs_stream(self, **options: Any) -> Any:  # pragma: no cover - not expected on writes
        self._count("all_docs_stream", self._db.info()["doc_count"])
        return self._db.all_docs_stream(**options)

    def changes(self, **options: Any) -> Any:
        result = self._db.changes(**options)
        self._count("changes", len(result["results"]))
        return result

    def bulk_get(self, requests: Any, **options: Any) -> Any:  # pragma: no cover - not expected on writes
        self._count("bulk_get", len(requests))
        return self._db.bulk_get(requests, **options)

    def reset(self) -> list[tuple[str, int]]:
        calls, self.calls, self.reads = self.calls, [], 0
        return calls


BIG = 5000


@pytest.fixture
def big_project(project: Project) -> tuple[Project, dict[str, Any]]:
    """A 5,000-document project: folders in four collections, 1,000 Variables, 100 Scenarios."""
    rng = random.Random(3)
    docs: list[dict[str, Any]] = []
    folders: dict[str, list[str]] = {}
    for collection in ("Script", "Item", "Variable", "Scenario"):
        for n in range(25):
            doc = doc_of("Folder", f"{collection} folder {n}", collection=collection, sort_key=f"{n + 1:02d}1")
            docs.append(doc)
            folders.setdefault(collection, []).append(doc["_id"])
    for n in range(1000):
        docs.append(variable(f"var {n}", f"state{n}", parent=rng.choice(folders["Variable"]),
                             sort_key=f"{n + 1:04d}1", value=n))
    for n in range(100):
        docs.append(doc_of("Scenario", f"scenario {n}", parent=rng.choice(folders["Scenario"]),
                           content={"scenario": f"{{state{n}: {{value: {n + 1}}}}}"}))
    while len(docs) < BIG:
        n = len(docs)
        collection = rng.choice(("Script", "Item"))
        docs.append(doc_of(collection, f"{collection} {n}", parent=rng.choice(folders[collection]),
                           sort_key=f"{n:05d}1"))
    assert project.store.bulk_docs(docs) and len(docs) == BIG
    return project, {"folders": folders}


@pytest.mark.slow
def test_a_write_reads_a_handful_of_documents_in_a_5000_document_project(big_project) -> None:
    project, layout = big_project
    counting = CountingDb(project.store)
    editor = Editor(counting, "tester")
    # Building the index reads every document once (in one snapshot of the store)...
    assert editor.index.refresh() >= BIG
    counting.reset()
    # ...and a write afterwards reads O(1) documents (O(siblings) at most), never the project.
    limit = 10
    small_folder = editor.create("Folder", "small", collection="Script").id
    assert counting.reads <= limit, counting.reset()
    counting.reset()
    for n in range(3):
        editor.create("Script", f"s{n}", parent=small_folder)
    assert counting.reads <= 3 * limit, counting.reset()
    counting.reset()

    def cost(action) -> int:
        counting.reset()
        action()
        calls = counting.reset()
        return sum(n for _, n in calls)

    busy = layout["folders"]["Script"][0]
    checks = {
        "create at the end": lambda: editor.create("Script", "new", parent=small_folder),
        "create before a sibling": lambda: editor.create(
            "Script", "first", parent=small_folder, before=editor.index.children(small_folder)[0].id),
        "create at the top level": lambda: editor.create("Item", "top"),
        "create in a busy folder": lambda: editor.create("Script", "busy", parent=busy),
        "create a Variable": lambda: editor.create("Variable", "fresh", content={"variables": "_sid: fresh"}),
        "create a Scenario": lambda: editor.create("Scenario", "sc", content={"scenario": "{state3: {value: 7}}"}),
        "rename": lambda: editor.rename(small_folder, "renamed"),
        "move a script": lambda: editor.move(editor.index.children(small_folder)[0].id, busy),
        "move a folder (cycle check)": lambda: editor.move(small_folder, layout["folders"]["Script"][1]),
    }
    for label, action in checks.items():
        assert cost(action) <= limit, label
    variable_id = editor.index.sid_owners("state5")[0]
    doc = editor.get(variable_id)
    doc["content"]["variables"] = "_sid: state5\nvalue: 99"
    assert cost(lambda: editor.update(doc)) <= limit
    duplicate = editor.get(variable_id)
    duplicate["content"]["variables"] = "_sid: state6"
    counting.reset()
    with pytest.raises(ValidationError) as info:
        editor.update(duplicate)
    assert info.value.problem_code == "duplicate-sid" and counting.reads <= limit
    # Deleting a folder reads its subtree (here 5 documents), not the project.
    assert cost(lambda: editor.delete(small_folder, recursive=True)) <= 4 * limit
    # The public siblings() reads exactly the siblings.
    siblings = editor.index.siblings(busy)
    counting.reset()
    assert [d["_id"] for d in editor.siblings(busy, "Script")] == [s.id for s in siblings]
    assert counting.reads == len(siblings)
    # For contrast, the full scan the index replaces reads the whole project.
    counting.reset()
    StoreContext(counting, {}).docs_of_type("Variable")
    assert counting.reads >= BIG
    assert_index_exact(editor)


@pytest.mark.slow
def test_scenario_checks_do_not_reparse_variables(big_project, monkeypatch: pytest.MonkeyPatch) -> None:
    project, _ = big_project
    editor = project.editor
    editor.index.refresh()
    parsed: list[Any] = []
    original = content.parse_variables_doc

    def counting_parse(doc: Any) -> Any:
        parsed.append(doc.get("_id"))
        return original(doc)

    monkeypatch.setattr(content, "parse_variables_doc", counting_parse)
    result = editor.create("Scenario", "checked", content={"scenario": "{state1: {value: 'text'}, nobody: {}}"})
    assert sorted(w.code for w in result.warnings) == ["type-changed", "unknown-state"]
    var = editor.create("Variable", "one more", content={"variables": "_sid: onemore"})
    # The new Variable is parsed by validation and once more by the index; no other Variable is.
    assert set(parsed) == {var.id} and len(parsed) <= 2
