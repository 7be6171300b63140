"""Conflicts without a server: two stores replicating directly (as the sync layer does, with
``bulk_docs(new_edits=False)``), the automatic merge on both, resolution, locks, refused edits,
bounded bodies, and the ``conflicts`` / ``resolve`` verbs."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from storyloom.cli.main import main
from storyloom.project.conflicts import (
    REFUSED_PREFIX,
    ConflictError,
    auto_merge,
    common_ancestor,
    list_conflicts,
    list_refused,
    resolve,
)
from storyloom.project.editor import Editor, WriteIntent
from storyloom.project.locks import LockRefused, TeamLocks, apply_lock_fields, locked_fields
from storyloom.project.settings import default_settings
from storyloom.store import Database
from storyloom.sync.replicator import FAILED_DOCS_PREFIX

SCRIPT = "".join(f"line {n}\n" for n in range(1, 9))


def replicate(source: Database, target: Database) -> None:
    """Every leaf of every document of ``source`` into ``target``, with its history."""
    docs = []
    for row in source.changes(style="all_docs")["results"]:
        docs += [e["ok"] for e in source.get(row["id"], open_revs="all", revs=True) if "ok" in e]
    assert target.bulk_docs(docs, new_edits=False) == []


def sync(*stores: Database) -> None:
    for a in stores:
        for b in stores:
            if a is not b:
                replicate(a, b)


def editor(db: Database, user: str) -> Editor:
    return Editor(db, username=user, lock_policy=TeamLocks(lambda: user, lambda: False))


class Pair:
    """Two machines of one project: ``a`` (ann) and ``b`` (bob), in sync at the start."""

    def __init__(self, tmp_path: Path) -> None:
        self.a = Database(tmp_path / "a.sqlite")
        self.b = Database(tmp_path / "b.sqlite")
        self.ann, self.bob = editor(self.a, "ann"), editor(self.b, "bob")
        self.ann.create_settings(default_settings("Team"))
        self.x = self.ann.create("Script", "X", content={"script": SCRIPT}).id
        self.y = self.ann.create("Script", "Y", content={"script": SCRIPT}).id
        sync(self.a, self.b)

    def edit(self, who: Editor, doc_id: str, **changes: Any) -> str:
        doc = copy.deepcopy(who.get(doc_id))
        for key, value in changes.items():
            if key == "script":
                doc["content"]["script"] = value
            else:
                doc[key] = value
        return who.update(doc).rev

    def close(self) -> None:
        self.a.close()
        self.b.close()


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[Pair]:
    p = Pair(tmp_path)
    yield p
    p.close()


def leaves(db: Database, doc_id: str) -> dict[str, dict[str, Any]]:
    return {e["ok"]["_rev"]: e["ok"] for e in db.get(doc_id, open_revs="all")}


def test_different_fields_merge_to_the_same_revision_on_both_machines(pair: Pair) -> None:
    pair.edit(pair.ann, pair.x, name="X by ann")
    pair.edit(pair.bob, pair.x, color="red", script=SCRIPT.replace("line 7", "LINE 7"))
    sync(pair.a, pair.b)
    assert [c.doc_id for c in list_conflicts(pair.a)] == [pair.x] == [c.doc_id for c in list_conflicts(pair.b)]
    report_a, report_b = auto_merge(pair.ann), auto_merge(pair.bob)
    assert report_a.merged == report_b.merged and len(report_a.merged) == 1  # the same rev id
    sync(pair.a, pair.b)
    for db in (pair.a, pair.b):
        doc = db.get(pair.x, conflicts=True)
        assert "_conflicts" not in doc and list_conflicts(db) == []
        assert (doc["name"], doc["color"]) == ("X by ann", "red") and "LINE 7" in doc["content"]["script"]
        assert doc["_rev"] == report_a.merged[0][1]
        superseded = [d for d in leaves(db, pair.x).values() if d.get("_deleted")]
        assert [d["supersededBy"] for d in superseded] == [doc["_rev"]]
    # The stamps come from the later leaf, never the clock.
    assert pair.a.get(pair.x)["modifiedBy"] in ("ann", "bob")


def test_same_field_stays_listed_until_resolved_then_clears_everywhere(pair: Pair) -> None:
    ann_rev = pair.edit(pair.ann, pair.y, script=SCRIPT.replace("line 4", "ann's line 4"))
    bob_rev = pair.edit(pair.bob, pair.y, script=SCRIPT.replace("line 4", "bob's line 4"))
    sync(pair.a, pair.b)
    assert auto_merge(pair.ann).conflicts == [pair.y] == auto_merge(pair.bob).conflicts
    listed = list_conflicts(pair.a)
    assert len(listed) == 1 and {leaf.rev for leaf in listed[0].leaves} == {ann_rev, bob_rev}
    assert {leaf.author for leaf in listed[0].leaves} == {"ann", "bob"}
    assert listed[0].winner_rev == pair.a.get(pair.y)["_rev"] == listed[0].leaves[0].rev
    assert listed[0].to_json()["leaves"][0]["doc"]["content"]["script"]
    rev = resolve(pair.bob, pair.y, take=ann_rev)
    sync(pair.a, pair.b)
    for db in (pair.a, pair.b):
        assert list_conflicts(db) == [] and db.get(pair.y)["_rev"] == rev
        assert "ann's line 4" in db.get(pair.y)["content"]["script"]
    # Every edit made is kept: in the winner's history, and bob's as a superseded leaf's parent.
    assert pair.a.get(pair.y, rev=bob_rev)["content"]["script"].count("bob's") == 1
    with pytest.raises(ConflictError):
        resolve(pair.ann, pair.y, take=ann_rev)


def test_resolve_with_a_merged_document(pair: Pair) -> None:
    pair.edit(pair.ann, pair.y, name="A")
    pair.edit(pair.bob, pair.y, name="B")
    sync(pair.a, pair.b)
    winner = pair.a.get(pair.y)
    with pytest.raises(ConflictError) as unknown:
        resolve(pair.ann, pair.y, take="9-nope")
    assert unknown.value.exit_code == 2
    with pytest.raises(ConflictError):
        resolve(pair.ann, pair.y, merged={**winner, "_id": "other"})
    rev = resolve(pair.ann, pair.y, merged={**winner, "name": "A and B"})
    doc = pair.a.get(pair.y)
    assert doc["_rev"] == rev and doc["name"] == "A and B" and doc["modifiedBy"] == "ann"
    assert list_conflicts(pair.a) == []


def test_delete_against_edit_is_listed_delete_against_nothing_merges(pair: Pair) -> None:
    pair.ann.delete(pair.x)
    pair.edit(pair.bob, pair.x, name="kept")
    pair.ann.delete(pair.y)
    pair.edit(pair.bob, pair.y, lockedAt=None)  # a stamp-only change: nothing to keep
    sync(pair.a, pair.b)
    assert sorted(c.doc_id for c in list_conflicts(pair.a)) == sorted([pair.x, pair.y])
    report = auto_merge(pair.ann)
    assert report.conflicts == [pair.x] and [i for i, _ in report.merged] == [pair.y]
    assert pair.a.get(pair.x)["name"] == "kept"
    assert pair.a.info()["doc_del_count"] == 1  # y is gone
    conflict = list_conflicts(pair.a)[0]
    assert conflict.leaves[1].deleted and conflict.leaves[1].author is None


def test_three_leaves_fold_into_one(pair: Pair, tmp_path: Path) -> None:
    c = Database(tmp_path / "c.sqlite")
    try:
        sync(pair.a, pair.b, c)
        cy = editor(c, "cy")
        pair.edit(pair.ann, pair.x, name="n")
        pair.edit(pair.bob, pair.x, color="c")
        pair.edit(cy, pair.x, alias="al")
        sync(pair.a, pair.b, c)
        assert len(list_conflicts(c)[0].leaves) == 3
        revs = {auto_merge(e).merged[0][1] for e in (pair.ann, pair.bob, cy)}
        assert len(revs) == 1
        sync(pair.a, pair.b, c)
        doc = c.get(pair.x, conflicts=True)
        assert (doc["name"], doc["color"], doc["alias"]) == ("n", "c", "al") and "_conflicts" not in doc
    finally:
        c.close()


def test_a_winner_locked_by_another_is_not_merged_nor_resolved_by_others(pair: Pair) -> None:
    doc = copy.deepcopy(pair.b.get(pair.x))
    apply_lock_fields(doc, locked_fields("bob", "2026-01-01T00:00:00.000Z"))
    pair.bob.update(doc, intent=WriteIntent.LOCK)
    sync(pair.a, pair.b)
    pair.edit(pair.bob, pair.x, name="bob's")
    pair.b.bulk_docs([{**pair.a.get(pair.x), "_rev": f"3-{'0' * 32}", "name": "ann's offline",
                       "_revisions": {"start": 3, "ids": ["0" * 32, pair.a.get(pair.x)["_rev"][2:]]}}],
                     new_edits=False)
    replicate(pair.b, pair.a)
    winner = pair.a.get(pair.x)
    assert winner["lockedBy"] == "bob"
    report = auto_merge(pair.ann)
    assert report.locked == [(pair.x, "bob")] and not report.merged
    with pytest.raises(LockRefused):
        resolve(pair.ann, pair.x, take=winner["_rev"])
    assert auto_merge(pair.bob).conflicts == [pair.x]  # the holder may; here the names conflict
    assert resolve(pair.bob, pair.x, take=winner["_rev"])


def test_a_losing_leaf_locked_by_another_is_not_tombstoned_by_others(pair: Pair) -> None:
    """The server's lock rules refuse a tombstone of a revision another user holds (version 2),
    so a machine that does not hold it neither merges nor resolves the document: the holder does."""
    doc = copy.deepcopy(pair.b.get(pair.x))
    apply_lock_fields(doc, locked_fields("bob", "2026-01-01T00:00:00.000Z"))
    pair.bob.update(doc, intent=WriteIntent.LOCK)
    for n in range(3):  # ann's offline branch is longer: it wins, free
        pair.edit(pair.ann, pair.x, color=f"c{n}")
    sync(pair.a, pair.b)
    winner = pair.a.get(pair.x)
    assert winner["color"] == "c2" and winner.get("locked") is not True
    report = auto_merge(pair.ann)
    assert report.locked == [(pair.x, "bob")] and not report.merged
    with pytest.raises(LockRefused, match=r"conflict revision .* locked by bob"):
        resolve(pair.ann, pair.x, take=winner["_rev"])
    merged = auto_merge(pair.bob)  # the holder merges: ann's colour, bob's lock
    assert [doc_id for doc_id, _ in merged.merged] == [pair.x]
    resolved = pair.b.get(pair.x, conflicts=True)
    assert resolved["color"] == "c2" and resolved["lockedBy"] == "bob" and "_conflicts" not in resolved


def test_merge_needs_a_kept_common_ancestor(pair: Pair) -> None:
    for db in (pair.a, pair.b):
        db.set_kept_bodies(2)
    for n in range(3):
        pair.edit(pair.ann, pair.x, name=f"a{n}")
        pair.edit(pair.bob, pair.x, color=f"c{n}")
    sync(pair.a, pair.b)
    conflict = list_conflicts(pair.a)[0]
    assert common_ancestor(pair.a, pair.x, conflict.leaves[0].rev, conflict.leaves[1].rev) is None
    assert auto_merge(pair.ann).conflicts == [pair.x]


def test_merges_work_within_the_kept_bodies_and_growth_is_bounded(pair: Pair, tmp_path: Path) -> None:
    for db in (pair.a, pair.b):
        db.set_kept_bodies(5)
    for n in range(4):  # fewer edits than kept bodies on one side
        pair.edit(pair.ann, pair.x, name=f"a{n}")
    for n in range(30):
        pair.edit(pair.bob, pair.x, color=f"c{n}")
    sync(pair.a, pair.b)
    # ann's machine still has the common ancestor's body (4 edits away); bob's dropped it before
    # ann's edits arrived (30 edits away), so bob's leaves it listed and takes ann's merge.
    assert auto_merge(pair.ann).merged
    assert auto_merge(pair.bob).conflicts == [pair.x]
    sync(pair.a, pair.b)
    assert list_conflicts(pair.a) == list_conflicts(pair.b) == []
    assert pair.a.get(pair.x) == pair.b.get(pair.x)
    assert (pair.b.get(pair.x)["name"], pair.b.get(pair.x)["color"]) == ("a3", "c29")
    # A document saved 2000 times keeps at most N bodies.
    with Database(":memory:", revs_limit=100) as busy:
        rev = busy.put({"_id": "d", "text": "x" * 500})["rev"]
        for n in range(2000):
            rev = busy.put({"_id": "d", "_rev": rev, "n": n, "text": "x" * 500})["rev"]
        with busy.snapshot() as snap:
            kept = snap.conn.execute("SELECT count(*) FROM revs WHERE doc_id = 'd'").fetchone()[0]
        assert kept == busy.kept_bodies == 20


def test_refused_edits_are_listed_while_they_are_leaves(pair: Pair) -> None:
    assert REFUSED_PREFIX == FAILED_DOCS_PREFIX
    rev = pair.edit(pair.ann, pair.x, name="refused")
    pair.a.put_local({"_id": f"{FAILED_DOCS_PREFIX}abc", "docs": {
        pair.x: {"revs": [rev], "size": None, "error": "forbidden", "reason": "locked by bob since T"},
        pair.y: {"revs": ["1-gone"], "error": "forbidden", "reason": "old"},
        "big": {"revs": ["1-x"], "error": "too_large", "reason": "413"},
    }})
    refused = list_refused(pair.a)
    assert [(r.doc_id, r.revs, r.reason) for r in refused] == [(pair.x, [rev], "locked by bob since T")]
    pair.edit(pair.ann, pair.x, name="superseded")
    assert list_refused(pair.a) == []


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_conflicts_and_resolve(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from storyloom.app import Workspace

    project = Workspace().manager.create("The Clash")
    held = project.editor.create("Script", "Held", content={"script": SCRIPT}).id
    plain = project.editor.create("Script", "Plain", content={"script": SCRIPT}).id
    other = Database(tmp_path / "other.sqlite")
    replicate(project.store, other)
    zed = editor(other, "zed")
    for doc_id in (held, plain):
        mine = copy.deepcopy(project.editor.get(doc_id))
        mine["name"] = "mine"
        project.editor.update(mine)
        theirs = copy.deepcopy(other.get(doc_id))
        theirs["name"] = "theirs"
        zed.update(theirs)
    # zed locks "Held" after editing it: zed's branch is longer, so it wins, locked by zed.
    theirs = copy.deepcopy(other.get(held))
    apply_lock_fields(theirs, locked_fields("zed", "2026-01-01T00:00:00.000Z"))
    zed.update(theirs, intent=WriteIntent.LOCK)
    replicate(other, project.store)
    other.close()
    project.close()

    code, out, _ = _cli(capsys, "conflicts", "The Clash", "--json")
    listed = json.loads(out)
    assert code == 0 and sorted(c["id"] for c in listed["conflicts"]) == sorted([held, plain])
    assert listed["refused"] == []
    by_id = {c["id"]: c for c in listed["conflicts"]}
    assert {leaf["doc"]["name"] for leaf in by_id[plain]["leaves"]} == {"mine", "theirs"}
    assert {leaf["author"] for leaf in by_id[plain]["leaves"]} == {"zed", project.editor.username}
    code, out, _ = _cli(capsys, "conflicts", "The Clash")
    assert code == 0 and plain in out and "winner" in out and "storyloom resolve 'The Clash' DOC_ID" in out
    # Each other leaf says which fields differ from the winner, with an excerpt of each side.
    plain_part = out.split(f"({plain})", 1)[1].split("leaves", 1)[1].split("(", 1)[0]
    winner_name = next(leaf["doc"]["name"] for leaf in by_id[plain]["leaves"] if leaf["rev"] == by_id[plain]["winner"])
    loser_name = ({"mine", "theirs"} - {winner_name}).pop()
    assert f"Name: winner {winner_name!r} / this leaf {loser_name!r}" in plain_part

    code, _, err = _cli(capsys, "resolve", "The Clash", held, "--take", by_id[held]["winner"])
    assert code == 3 and "zed" in err
    code, _, err = _cli(capsys, "resolve", "The Clash", plain, "--take", "1-nope")
    assert code == 2 and "not a leaf" in err
    bad = tmp_path / "bad.json"
    bad.write_text("[1]")
    code, _, err = _cli(capsys, "resolve", "The Clash", plain, "--merged", str(bad))
    assert code == 2
    merged = tmp_path / "merged.json"
    merged.write_text(json.dumps({**by_id[plain]["leaves"][0]["doc"], "name": "both"}))
    code, out, _ = _cli(capsys, "resolve", "The Clash", plain, "--merged", str(merged))
    assert code == 0 and "resolved" in out
    code, _, err = _cli(capsys, "resolve", "The Clash", plain, "--take", by_id[plain]["winner"])
    assert code == 1 and "not in conflict" in err
    code, out, _ = _cli(capsys, "conflicts", "The Clash", "--json")
    assert [c["id"] for c in json.loads(out)["conflicts"]] == [held]


def test_a_merge_the_gate_refuses_stays_listed(pair: Pair) -> None:
    """A leaf replicated with an invalid field (another tool wrote it) merges into an invalid
    document: the gate refuses it and the conflict waits for a person."""
    pair.edit(pair.bob, pair.x, color="red")
    base = pair.a.get(pair.x, revs=True)
    raw = {**base, "_rev": f"2-{'a' * 32}", "sortKey": "not a key!",
           "_revisions": {"start": 2, "ids": ["a" * 32, base["_rev"][2:]]}}
    assert pair.a.bulk_docs([raw], new_edits=False) == []
    replicate(pair.b, pair.a)
    assert auto_merge(pair.ann).conflicts == [pair.x]
    assert [c.doc_id for c in list_conflicts(pair.a, [pair.x, "missing", pair.y])] == [pair.x]
