"""The revision model of docs/protocol.md section 1, plus sections 2.4 and 2.6 (replicated writes, reading revisions).

Each test is named after the rule it checks and runs against a file database and ``":memory:"``.
Revision hashes written by hand are 32 lowercase hex characters, ``h("a")`` == ``"aaaa…a"``.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from storyloom.store import BadRequest, Conflict, Database, Forbidden, NotFound, StoreError
from tests.store.revs import h, leaf_revs, r, replicate, sql

REV_RE = re.compile(r"^[1-9][0-9]*-[0-9a-f]{32}$")


def edit_chain(db: Database, doc_id: str, count: int) -> list[str]:
    """Create ``doc_id`` and edit it until it has ``count`` revisions; return the revs oldest first."""
    revs = [db.put({"_id": doc_id, "n": 1})["rev"]]
    for n in range(2, count + 1):
        revs.append(db.put({"_id": doc_id, "_rev": revs[-1], "n": n})["rev"])
    return revs


def push(source: Database, target: Database, doc_id: str) -> None:
    """A one-doc replication: every leaf of ``source`` with its history, written with new_edits=False."""
    docs = [entry["ok"] for entry in source.get(doc_id, open_revs="all", revs=True)]
    assert target.bulk_docs(docs, new_edits=False) == []


# -- 1.1 Format -------------------------------------------------------------------------------------


def test_rule_1_1_generated_revs_are_generation_dash_32_lowercase_hex(db: Database) -> None:
    first = db.put({"_id": "doc", "v": 1})
    second = db.put({"_id": "doc", "_rev": first["rev"], "v": 2})
    third = db.remove("doc", second["rev"])
    fourth = db.put({"_id": "doc", "v": 4})
    revs = [first["rev"], second["rev"], third["rev"], fourth["rev"]]
    for generation, rev in enumerate(revs, start=1):
        assert REV_RE.match(rev), rev
        assert rev.startswith(f"{generation}-")
    assert len(set(revs)) == 4
    assert first == {"ok": True, "id": "doc", "rev": first["rev"]}


@pytest.mark.parametrize("bad", ["", "abc", "x-" + "a" * 32, "-" + "a" * 32, "1-", "1", "one-two", "1_" + "a" * 32])
def test_rule_1_1_malformed_rev_is_400_bad_request(db: Database, bad: str) -> None:
    db.put({"_id": "doc"})
    calls = [
        lambda: db.put({"_id": "doc", "_rev": bad, "v": 2}),
        lambda: db.put({"_id": "fresh", "_rev": bad}),
        lambda: db.remove("doc", bad),
        lambda: db.get("doc", rev=bad),
        lambda: db.get("doc", open_revs=[bad]),
        lambda: db.bulk_docs([{"_id": "doc", "_rev": bad}], new_edits=False),
    ]
    for call in calls:
        with pytest.raises(BadRequest) as caught:
            call()
        assert caught.value.status == 400
        assert caught.value.error == "bad_request"
        assert "Invalid rev format" in caught.value.reason
    assert db.info()["update_seq"] == 1


def test_rule_1_1_interactive_bulk_docs_reports_bad_rev_per_document(db: Database) -> None:
    results = db.bulk_docs([{"_id": "a"}, {"_id": "b", "_rev": "nonsense"}])
    assert results[0]["ok"] is True
    assert results[1] == {"id": "b", "error": "bad_request", "reason": "Invalid rev format"}


# -- 1.2 Hash --------------------------------------------------------------------------------------


def test_rule_1_2_every_distinct_edit_gets_a_distinct_hash(db: Database) -> None:
    base = db.put({"_id": "doc", "v": 0})["rev"]
    edit = db.put({"_id": "doc", "_rev": base, "v": 1})["rev"]
    # A sibling of ``edit`` (replicated), then the same body written on top of it: another parent.
    sibling = "2-" + h("0")
    db.bulk_docs([{"_id": "doc", "_rev": sibling, "_revisions": {"start": 2, "ids": [h("0"), base[2:]]}}],
                 new_edits=False)
    same_body_other_parent = db.put({"_id": "doc", "_rev": sibling, "v": 1})["rev"]
    # The same parent and body, once live and once deleted (on a copy of the history).
    db.bulk_docs([{"_id": "twin", "_rev": base, "v": 0}], new_edits=False)
    deleted_edit = db.put({"_id": "twin", "_rev": base, "v": 1, "_deleted": True})["rev"]
    revs = {base, edit, sibling, same_body_other_parent, deleted_edit}
    assert len(revs) == 5
    assert all(REV_RE.match(rev) for rev in revs)


# -- 1.3 Tree ----------------------------------------------------------------------------------------


def test_rule_1_3_revisions_describe_one_path_and_only_the_first_id_has_a_body(db: Database) -> None:
    replicate(db, "doc", 3, "cba", v=3)
    doc = db.get("doc", revs=True, revs_info=True)
    assert doc["_rev"] == r(3, "c")
    assert doc["v"] == 3
    assert doc["_revisions"] == {"start": 3, "ids": [h("c"), h("b"), h("a")]}
    assert doc["_revs_info"] == [
        {"rev": r(3, "c"), "status": "available"},
        {"rev": r(2, "b"), "status": "missing"},
        {"rev": r(1, "a"), "status": "missing"},
    ]
    with pytest.raises(NotFound):
        db.get("doc", rev=r(2, "b"))
    assert db.get("doc", open_revs=[r(2, "b")]) == [{"missing": r(2, "b")}]
    # The path's root is at start - len(ids) + 1: the ancestors are known revisions.
    assert db.revs_diff({"doc": [r(1, "a"), r(2, "b"), r(3, "c")]}) == {}


def test_rule_1_3_path_rooted_above_generation_one(db: Database) -> None:
    replicate(db, "doc", 7, "fed")  # root at pos 5
    assert db.get("doc", revs=True)["_revisions"] == {"start": 7, "ids": [h("f"), h("e"), h("d")]}
    assert db.revs_diff({"doc": [r(5, "d"), r(4, "c")]}) == {"doc": {"missing": [r(4, "c")]}}


def test_rule_1_3_tombstone_is_a_deleted_leaf(db: Database) -> None:
    rev1 = db.put({"_id": "doc", "v": 1})["rev"]
    rev2 = db.remove("doc", rev1)["rev"]
    info = db.get("doc", rev=rev2, revs_info=True)["_revs_info"]
    assert info == [{"rev": rev2, "status": "deleted"}, {"rev": rev1, "status": "available"}]


# -- 1.4 Winner -----------------------------------------------------------------------------------


def test_rule_1_4_live_leaf_beats_deleted_leaf_whatever_the_generation(db: Database) -> None:
    replicate(db, "doc", 2, "b1", v="live")
    replicate(db, "doc", 6, "edcf1", deleted=True)  # a deleted branch four generations deeper
    assert leaf_revs(db, "doc") == {r(2, "b"), r(6, "e")}
    doc = db.get("doc", conflicts=True, deleted_conflicts=True)
    assert doc["_rev"] == r(2, "b")
    assert doc["v"] == "live"
    assert "_conflicts" not in doc
    assert doc["_deleted_conflicts"] == [r(6, "e")]
    assert db.info()["doc_count"] == 1


def test_rule_1_4_higher_generation_wins(db: Database) -> None:
    replicate(db, "doc", 3, "01a", v="long")
    replicate(db, "doc", 2, "fa", v="short")  # higher hash, lower generation
    doc = db.get("doc", conflicts=True)
    assert doc["_rev"] == r(3, "0")
    assert doc["v"] == "long"
    assert doc["_conflicts"] == [r(2, "f")]


def test_rule_1_4_higher_hash_wins_at_equal_generation(db: Database) -> None:
    replicate(db, "doc", 2, "3a", v="low")
    replicate(db, "doc", 2, "ca", v="high")
    replicate(db, "doc", 2, "9a", v="mid")
    doc = db.get("doc", conflicts=True)
    assert doc["_rev"] == r(2, "c")
    assert doc["v"] == "high"
    assert doc["_conflicts"] == [r(2, "9"), r(2, "3")]


def test_rule_1_4_hex_hash_compares_as_bytes_against_a_short_hash(db: Database) -> None:
    # hashkey is bytes.fromhex(h) for a 32-hex hash and h.encode() otherwise: b"\xff…" > b"zz",
    # although the string "ffff…" sorts below "zz".
    db.bulk_docs([{"_id": "doc", "_rev": "1-zz"}, {"_id": "doc", "_rev": r(1, "f")}], new_edits=False)
    assert db.get("doc")["_rev"] == r(1, "f")
    db.bulk_docs([{"_id": "low", "_rev": "1-zz"}, {"_id": "low", "_rev": r(1, "1")}], new_edits=False)
    # b"\x11\x11…" < b"zz"
    assert db.get("low")["_rev"] == "1-zz"


def test_rule_1_4_pouchdb_conflict_corpus_winners(db: Database) -> None:
    # T16: "Conflict resolution" cases of pouchdb's test.conflicts.js.
    assert db.bulk_docs(
        [{"_id": "fubar", "_rev": "1-a"}, {"_id": "fubar", "_rev": "1-b"}, {"_id": "fubar", "_rev": "1-1"}],
        new_edits=False,
    ) == []
    assert db.get("fubar")["_rev"] == "1-b"
    assert set(db.get("fubar", conflicts=True)["_conflicts"]) == {"1-a", "1-1"}
    assert db.bulk_docs(
        [{"_id": "deep", "_rev": "2-b", "_revisions": {"start": 2, "ids": ["b", "a"]}},
         {"_id": "deep", "_rev": "10-a", "_revisions": {"start": 10, "ids": ["a", "z"]}}],
        new_edits=False,
    ) == []
    assert db.get("deep")["_rev"] == "10-a"


def test_rule_1_4_all_leaves_deleted_means_the_document_is_deleted(db: Database) -> None:
    replicate(db, "doc", 2, "a1", deleted=True)
    replicate(db, "doc", 2, "b1", deleted=True)
    with pytest.raises(NotFound) as caught:
        db.get("doc")
    assert (caught.value.status, caught.value.error, caught.value.reason) == (404, "not_found", "deleted")
    tomb = db.get("doc", rev=r(2, "b"))
    assert tomb == {"_id": "doc", "_rev": r(2, "b"), "_deleted": True}
    assert db.info()["doc_count"] == 0
    assert db.info()["doc_del_count"] == 1
    assert db.all_docs()["rows"] == []
    rows = db.changes()["results"]
    assert rows == [{"seq": 2, "id": "doc", "changes": [{"rev": r(2, "b")}], "deleted": True}]
    with pytest.raises(NotFound) as missing:
        db.get("never")
    assert missing.value.reason == "missing"


def test_rule_1_4_conflicts_and_deleted_conflicts_lists(db: Database) -> None:
    replicate(db, "doc", 2, "a1")
    replicate(db, "doc", 3, "b21")  # the winner: live, highest generation
    replicate(db, "doc", 2, "c1")
    replicate(db, "doc", 4, "d3e1", deleted=True)
    replicate(db, "doc", 2, "f1", deleted=True)
    doc = db.get("doc", conflicts=True, deleted_conflicts=True)
    assert doc["_rev"] == r(3, "b")
    # Sorted descending by (generation, hash), like the winner.
    assert doc["_conflicts"] == [r(2, "c"), r(2, "a")]
    assert doc["_deleted_conflicts"] == [r(4, "d"), r(2, "f")]
    only_conflicts = db.get("doc", conflicts=True)
    assert "_deleted_conflicts" not in only_conflicts
    plain = db.get("doc")
    assert "_conflicts" not in plain and "_deleted_conflicts" not in plain


def test_rule_1_4_conflict_lists_are_omitted_when_empty(db: Database) -> None:
    db.put({"_id": "doc"})
    doc = db.get("doc", conflicts=True, deleted_conflicts=True)
    assert "_conflicts" not in doc
    assert "_deleted_conflicts" not in doc


# -- 1.5 Merge ---------------------------------------------------------------------------------------


def test_rule_1_5_same_root_adds_missing_children(db: Database) -> None:
    replicate(db, "doc", 2, "ba")
    replicate(db, "doc", 3, "cba")  # extends the leaf: new leaf, no conflict
    assert leaf_revs(db, "doc") == {r(3, "c")}
    replicate(db, "doc", 3, "dba")  # a sibling of 3-c: new branch, conflict
    assert leaf_revs(db, "doc") == {r(3, "c"), r(3, "d")}
    assert db.get("doc", conflicts=True)["_conflicts"] == [r(3, "c")]
    assert db.get("doc", rev=r(3, "c"), revs=True)["_revisions"]["ids"] == [h("c"), h("b"), h("a")]


def test_rule_1_5_later_path_grafts_onto_an_earlier_tree(db: Database) -> None:
    replicate(db, "doc", 2, "ba")  # root at pos 1
    replicate(db, "doc", 4, "dcb")  # root at pos 2: found one level below the tree's root
    assert leaf_revs(db, "doc") == {r(4, "d")}
    assert db.get("doc", revs=True)["_revisions"] == {"start": 4, "ids": [h("d"), h("c"), h("b"), h("a")]}


def test_rule_1_5_earlier_path_grafts_a_stemmed_tree_back_on(db: Database) -> None:
    replicate(db, "doc", 5, "edc")  # a stemmed history, root at pos 3
    replicate(db, "doc", 6, "fedcb")  # root at pos 2, holds 3-c one level down
    assert leaf_revs(db, "doc") == {r(6, "f")}
    assert db.get("doc", revs=True)["_revisions"] == {"start": 6, "ids": [h(c) for c in "fedcb"]}


def test_rule_1_5_no_overlap_adds_a_new_root_and_a_conflict(db: Database) -> None:
    replicate(db, "doc", 2, "ba")
    replicate(db, "doc", 5, "e9")  # root 4-9 shares nothing with the tree
    assert leaf_revs(db, "doc") == {r(2, "b"), r(5, "e")}
    doc = db.get("doc", conflicts=True, revs=True)
    assert doc["_rev"] == r(5, "e")
    assert doc["_conflicts"] == [r(2, "b")]
    assert doc["_revisions"] == {"start": 5, "ids": [h("e"), h("9")]}


def test_rule_1_5_already_present_is_a_complete_no_op(db: Database) -> None:
    replicate(db, "doc", 1, "a", v=-1)
    replicate(db, "doc", 2, "ba", v=0)
    replicate(db, "doc", 3, "cba", v=1)
    replicate(db, "other", 1, "1")
    info = db.info()
    feed = db.changes(style="all_docs")
    seen: list[dict] = []
    unsubscribe = db.subscribe(seen.append)
    try:
        replicate(db, "doc", 3, "cba", v=1)  # the same leaf again
        replicate(db, "doc", 2, "ba")  # an internal node already in the tree, with its body
        assert db.bulk_docs([{"_id": "doc", "_rev": r(1, "a")}], new_edits=False) == []  # the root
    finally:
        unsubscribe()
    assert db.info() == info
    assert db.changes(style="all_docs") == feed
    assert seen == []
    assert leaf_revs(db, "doc") == {r(3, "c")}
    assert feed["results"][0] == {"seq": 3, "id": "doc", "changes": [{"rev": r(3, "c")}]}


def test_rule_1_5_replicated_conflict_never_gives_409(db: Database) -> None:
    rev1 = db.put({"_id": "doc", "v": 1})["rev"]
    db.put({"_id": "doc", "_rev": rev1, "v": 2})
    sibling = {"_id": "doc", "_rev": "2-" + h("0"), "_revisions": {"start": 2, "ids": [h("0"), rev1[2:]]}}
    assert db.bulk_docs([sibling], new_edits=False) == []
    assert len(leaf_revs(db, "doc")) == 2


# -- 1.6 Stemming --------------------------------------------------------------------------------


def test_rule_1_6_revs_limit_defaults_to_1000(db: Database) -> None:
    assert db.revs_limit == 1000
    assert db.info()["revs_limit"] == 1000


def test_rule_1_6_interactive_edits_stem_to_revs_limit_and_drop_bodies(make_db) -> None:
    db = make_db(revs_limit=5)
    revs = edit_chain(db, "doc", 10)
    doc = db.get("doc", revs=True, revs_info=True)
    assert doc["_revisions"] == {"start": 10, "ids": [rev.split("-", 1)[1] for rev in reversed(revs[5:])]}
    assert [entry["rev"] for entry in doc["_revs_info"]] == list(reversed(revs[5:]))
    for old in revs[:5]:
        with pytest.raises(NotFound):
            db.get("doc", rev=old)
        assert db.get("doc", open_revs=[old]) == [{"missing": old}]
    # Dropped revisions' bodies are gone from the revs table; kept ones stay.
    assert sorted(row[0] for row in sql(db, "SELECT rev FROM revs WHERE doc_id = 'doc'")) == sorted(revs[5:])
    # A stemmed rev is no longer in the tree: revs_diff calls it missing.
    assert db.revs_diff({"doc": [revs[0], revs[9]]}) == {"doc": {"missing": [revs[0]]}}


def test_rule_1_6_replicated_paths_are_stemmed_too(make_db) -> None:
    db = make_db(revs_limit=3)
    replicate(db, "doc", 8, "87654321")
    assert db.get("doc", revs=True)["_revisions"] == {"start": 8, "ids": [h("8"), h("7"), h("6")]}
    assert db.revs_diff({"doc": [r(5, "5"), r(6, "6")]}) == {"doc": {"missing": [r(5, "5")]}}


def test_rule_1_6_revision_dropped_from_one_path_survives_on_a_shorter_one(make_db) -> None:
    db = make_db(revs_limit=3)
    replicate(db, "doc", 4, "dcba")  # stems to 2-b..4-d
    assert db.revs_diff({"doc": [r(1, "a"), r(2, "b")]}) == {"doc": {"missing": [r(1, "a")]}}
    db2 = make_db(revs_limit=3)
    replicate(db2, "doc", 3, "eba")  # short branch first: 1-a..3-e
    replicate(db2, "doc", 4, "dcba")  # long branch: its own path keeps 2-b..4-d, but 1-a stays for 3-e
    assert db2.revs_diff({"doc": [r(1, "a"), r(2, "b"), r(3, "e"), r(4, "d")]}) == {}
    assert leaf_revs(db2, "doc") == {r(3, "e"), r(4, "d")}


def test_rule_1_6_T19_stemmed_source_pushes_revs_limit_ids(make_db) -> None:
    source = make_db(revs_limit=5)
    target = make_db()
    edit_chain(source, "doc", 10)
    push(source, target, "doc")
    revisions = target.get("doc", revs=True)["_revisions"]
    assert revisions["start"] == 10
    assert len(revisions["ids"]) == 5
    assert revisions == source.get("doc", revs=True)["_revisions"]


def test_rule_1_6_T20_peer_more_than_limit_behind_gets_a_disjoint_path_and_a_conflict(make_db) -> None:
    source = make_db(revs_limit=3)
    target = make_db()
    revs = edit_chain(source, "doc", 5)
    push(source, target, "doc")
    assert target.get("doc", revs=True)["_revisions"]["start"] == 5
    rev = revs[-1]
    for n in range(6):
        rev = source.put({"_id": "doc", "_rev": rev, "offline": n})["rev"]
    assert rev.startswith("11-")
    push(source, target, "doc")
    assert leaf_revs(target, "doc") == {revs[-1], rev}
    doc = target.get("doc", conflicts=True)
    assert doc["_rev"] == rev
    assert doc["_conflicts"] == [revs[-1]]


def test_rule_1_6_stemmed_history_reconnects_when_it_overlaps(make_db) -> None:
    source = make_db(revs_limit=3)
    target = make_db()
    revs = edit_chain(source, "doc", 5)
    push(source, target, "doc")
    rev6 = source.put({"_id": "doc", "_rev": revs[-1], "v": 6})["rev"]
    push(source, target, "doc")  # path 4..6 starts one level below the target's root (3)
    assert leaf_revs(target, "doc") == {rev6}
    assert target.get("doc", revs=True)["_revisions"]["start"] == 6
    assert len(target.get("doc", revs=True)["_revisions"]["ids"]) == 4


def test_rule_1_6_set_revs_limit_applies_to_later_merges(db: Database) -> None:
    edit_chain(db, "doc", 6)
    db.set_revs_limit(2)
    assert db.info()["revs_limit"] == 2
    rev = db.get("doc")["_rev"]
    db.put({"_id": "doc", "_rev": rev, "v": 7})
    assert len(db.get("doc", revs=True)["_revisions"]["ids"]) == 2
    with pytest.raises(BadRequest):
        db.set_revs_limit(0)


# -- 1.7 Interactive writes --------------------------------------------------------------------------


def test_rule_1_7_stale_rev_is_409(db: Database) -> None:
    rev1 = db.put({"_id": "doc", "v": 1})["rev"]
    db.put({"_id": "doc", "_rev": rev1, "v": 2})
    with pytest.raises(Conflict) as caught:
        db.put({"_id": "doc", "_rev": rev1, "v": 3})  # rev1 is no longer a leaf
    assert (caught.value.status, caught.value.error) == (409, "conflict")
    with pytest.raises(Conflict):
        db.remove("doc", rev1)


def test_rule_1_7_non_leaf_rev_is_409_even_on_a_conflicted_doc(db: Database) -> None:
    replicate(db, "doc", 3, "cba")
    replicate(db, "doc", 3, "dba")
    with pytest.raises(Conflict):
        db.put({"_id": "doc", "_rev": r(2, "b")})
    # Each leaf, winner or not, can be extended.
    assert db.put({"_id": "doc", "_rev": r(3, "c"), "v": "c"})["rev"].startswith("4-")
    assert db.put({"_id": "doc", "_rev": r(3, "d"), "v": "d"})["rev"].startswith("4-")
    assert len(leaf_revs(db, "doc")) == 2


def test_rule_1_7_unknown_rev_is_409(db: Database) -> None:
    db.put({"_id": "doc"})
    with pytest.raises(Conflict):
        db.put({"_id": "doc", "_rev": r(1, "0")})
    with pytest.raises(Conflict):
        db.put({"_id": "doc", "_rev": "7-abc"})
    with pytest.raises(Conflict):
        db.put({"_id": "absent", "_rev": r(1, "0")})
    assert db.info()["update_seq"] == 1


def test_rule_1_7_new_doc_without_rev_while_live_doc_exists_is_409(db: Database) -> None:
    db.put({"_id": "doc", "v": 1})
    with pytest.raises(Conflict):
        db.put({"_id": "doc", "v": 2})
    results = db.bulk_docs([{"_id": "doc", "v": 3}, {"_id": "new"}])
    assert results[0] == {"id": "doc", "error": "conflict", "reason": "Document update conflict."}
    assert results[1]["ok"] is True
    assert db.get("doc")["v"] == 1


def test_rule_1_7_recreate_after_delete_grafts_onto_the_tombstone(db: Database) -> None:
    rev1 = db.put({"_id": "doc", "v": 1})["rev"]
    rev2 = db.remove("doc", rev1)["rev"]
    with pytest.raises(NotFound):
        db.get("doc")
    rev3 = db.put({"_id": "doc", "v": 3})["rev"]
    assert rev3.startswith("3-")
    doc = db.get("doc", revs=True)
    assert doc["_rev"] == rev3 and doc["v"] == 3
    assert doc["_revisions"] == {"start": 3, "ids": [rev3[2:], rev2[2:], rev1[2:]]}
    assert leaf_revs(db, "doc") == {rev3}
    assert db.info()["doc_count"] == 1 and db.info()["doc_del_count"] == 0


def test_rule_1_7_recreate_grafts_onto_the_winning_tombstone(db: Database) -> None:
    replicate(db, "doc", 2, "a1", deleted=True)
    replicate(db, "doc", 4, "b321", deleted=True)  # the winning tombstone: generation 4
    new = db.put({"_id": "doc", "v": "again"})["rev"]
    assert new.startswith("5-")
    assert db.get("doc", revs=True)["_revisions"]["ids"][1] == h("b")
    assert leaf_revs(db, "doc") == {r(2, "a"), new}


@pytest.mark.parametrize("bad_id", ["", "_design/", "_local/", "_foo", "_users", 5, None])
def test_rule_1_7_invalid_ids_are_refused(db: Database, bad_id: Any) -> None:
    doc = {"_id": bad_id} if bad_id is not None else {}
    if bad_id is None:
        # No _id at all: the store makes one up (CouchDB's POST), which is valid.
        assert REV_RE.match(db.put(doc)["rev"])
        return
    with pytest.raises(BadRequest) as caught:
        db.put(doc)
    assert caught.value.status == 400
    with pytest.raises(BadRequest):
        db.bulk_docs([{"_id": bad_id, "_rev": r(1, "a")}], new_edits=False)
    if bad_id != "_local/":
        assert db.bulk_docs([doc])[0]["error"] in ("illegal_docid", "bad_request")
    assert db.info()["update_seq"] == 0


@pytest.mark.parametrize("good_id", ["_design/app", "a/b", "3&2", "é/ü", "x+y", " space", "Ünïcödé"])
def test_rule_1_7_reserved_and_odd_ids_are_accepted(db: Database, good_id: str) -> None:
    rev = db.put({"_id": good_id, "v": 1})["rev"]
    assert db.get(good_id) == {"_id": good_id, "_rev": rev, "v": 1}


def test_rule_1_7_unknown_underscore_field_is_refused(db: Database) -> None:
    with pytest.raises(BadRequest) as caught:
        db.put({"_id": "doc", "_secret": 1})
    assert caught.value.status == 400
    assert caught.value.error == "doc_validation"


# -- 2.4 bulk_docs with new_edits=false ----------------------------------------------------------------


def test_rule_2_4_success_is_an_empty_list(db: Database) -> None:
    docs = [
        {"_id": "a", "_rev": r(1, "a"), "v": 1},
        {"_id": "b", "_revisions": {"start": 2, "ids": [h("b"), h("1")]}, "v": 2},
        {"_id": "c", "_rev": r(1, "c"), "_deleted": True},
    ]
    assert db.bulk_docs(docs, new_edits=False) == []
    assert db.get("a") == {"_id": "a", "_rev": r(1, "a"), "v": 1}
    assert db.get("b")["_rev"] == r(2, "b")
    with pytest.raises(NotFound):
        db.get("c")
    assert db.info()["update_seq"] == 3


@pytest.mark.parametrize(
    "bad_doc",
    [
        {"_id": "z", "v": 1},  # neither _rev nor _revisions
        {"_id": "z", "_rev": r(1, "a"), "_unknown": 1},  # unknown special field
        {"_id": "z", "_rev": "bogus"},  # bad rev
        {"_id": "z", "_rev": r(2, "b"), "_revisions": {"start": 2, "ids": [h("c"), h("a")]}},  # disagree
        {"_id": "z", "_revisions": {"start": 1, "ids": [h("b"), h("a")]}},  # start < len(ids)
        {"_id": "_bad", "_rev": r(1, "a")},  # invalid id
    ],
)
def test_rule_2_4_a_bad_document_fails_the_whole_request(db: Database, bad_doc: dict) -> None:
    good_before = {"_id": "a", "_rev": r(1, "a"), "v": 1}
    good_after = {"_id": "b", "_rev": r(1, "b"), "v": 1}
    with pytest.raises(BadRequest) as caught:
        db.bulk_docs([good_before, bad_doc, good_after], new_edits=False)
    assert caught.value.status == 400
    assert caught.value.error in ("bad_request", "doc_validation", "illegal_docid")
    assert db.info()["update_seq"] == 0
    assert db.info()["doc_count"] == 0
    for doc_id in ("a", "b", "z"):
        with pytest.raises(NotFound):
            db.get(doc_id)
    assert db.changes()["results"] == []


def test_rule_2_4_ignored_special_fields_are_accepted_and_not_stored(db: Database) -> None:
    doc = {
        "_id": "a",
        "_rev": r(1, "a"),
        "_conflicts": [r(1, "b")],
        "_deleted_conflicts": [],
        "_revs_info": [],
        "_local_seq": 3,
        "v": 1,
    }
    assert db.bulk_docs([doc], new_edits=False) == []
    assert db.get("a") == {"_id": "a", "_rev": r(1, "a"), "v": 1}


def test_rule_2_4_validation_runs_on_replicated_writes_with_the_nearest_ancestor(make_db) -> None:
    calls: list[tuple[dict, dict | None]] = []

    def validator(new_doc: dict, old_doc: dict | None) -> None:
        calls.append((new_doc, old_doc))
        if not new_doc.get("ok") and not new_doc.get("_deleted"):
            raise Forbidden("needs ok")

    db = make_db(validator=validator)
    replicate(db, "doc", 2, "ba", ok=True, n=2)
    calls.clear()
    results = db.bulk_docs(
        [
            {"_id": "doc", "_rev": r(4, "d"), "_revisions": {"start": 4, "ids": [h("d"), h("c"), h("b")]}, "ok": 1},
            {"_id": "bad", "_rev": r(1, "e")},
            {"_id": "good", "_rev": r(1, "f"), "ok": True},
        ],
        new_edits=False,
    )
    assert results == [{"id": "bad", "rev": r(1, "e"), "error": "forbidden", "reason": "needs ok"}]
    # 3-c has no body; the nearest ancestor with one is 2-b.
    assert calls[0][1] == {"ok": True, "n": 2}
    assert calls[1][1] is None
    assert db.get("doc")["_rev"] == r(4, "d")
    assert db.get("good")["_rev"] == r(1, "f")
    with pytest.raises(NotFound):
        db.get("bad")
    # A rev already present is skipped and counts as success, without asking the validator.
    calls.clear()
    assert db.bulk_docs([{"_id": "doc", "_rev": r(2, "b")}], new_edits=False) == []
    assert calls == []


# -- 2.6 Reading revisions ------------------------------------------------------------------------------


def test_rule_2_6_revs_adds_revisions_for_the_rev_read(db: Database) -> None:
    revs = edit_chain(db, "doc", 3)
    hashes = [rev[2:] for rev in revs]
    assert db.get("doc", revs=True)["_revisions"] == {"start": 3, "ids": hashes[::-1]}
    older = db.get("doc", rev=revs[1], revs=True)
    assert older["n"] == 2
    assert older["_revisions"] == {"start": 2, "ids": hashes[1::-1]}
    assert "_revisions" not in db.get("doc")


def test_rule_2_6_revs_info_statuses(db: Database) -> None:
    replicate(db, "doc", 2, "ba", v=2)
    rev3 = db.put({"_id": "doc", "_rev": r(2, "b"), "v": 3})["rev"]
    rev4 = db.remove("doc", rev3)["rev"]
    info = db.get("doc", rev=rev4, revs_info=True)["_revs_info"]
    assert info == [
        {"rev": rev4, "status": "deleted"},
        {"rev": rev3, "status": "available"},
        {"rev": r(2, "b"), "status": "available"},
        {"rev": r(1, "a"), "status": "missing"},
    ]


def test_rule_2_6_open_revs_all_returns_every_leaf_including_tombstones(db: Database) -> None:
    replicate(db, "doc", 2, "a1", v="a")
    replicate(db, "doc", 2, "b1", v="b")
    replicate(db, "doc", 3, "c21", deleted=True)
    found = db.get("doc", open_revs="all")
    assert len(found) == 3
    by_rev = {entry["ok"]["_rev"]: entry["ok"] for entry in found}
    assert by_rev == {
        r(2, "a"): {"_id": "doc", "_rev": r(2, "a"), "v": "a"},
        r(2, "b"): {"_id": "doc", "_rev": r(2, "b"), "v": "b"},
        r(3, "c"): {"_id": "doc", "_rev": r(3, "c"), "_deleted": True},
    }
    with_revs = db.get("doc", open_revs="all", revs=True)
    assert {e["ok"]["_rev"]: e["ok"]["_revisions"]["ids"] for e in with_revs}[r(3, "c")] == [h("c"), h("2"), h("1")]


def test_rule_2_6_open_revs_list_reports_missing_revs(db: Database) -> None:
    replicate(db, "doc", 2, "ba", v=2)
    found = db.get("doc", open_revs=[r(2, "b"), r(9, "9"), r(1, "a")])
    assert found == [
        {"ok": {"_id": "doc", "_rev": r(2, "b"), "v": 2}},
        {"missing": r(9, "9")},
        {"missing": r(1, "a")},  # in the tree, but its body is not kept
    ]
    assert db.get("unknown", open_revs=[r(1, "a")]) == [{"missing": r(1, "a")}]
    with pytest.raises(BadRequest):
        db.get("doc", open_revs="some")


def test_rule_2_6_latest_replaces_a_rev_with_every_leaf_below_it(db: Database) -> None:
    replicate(db, "doc", 3, "cba", v="c")
    replicate(db, "doc", 3, "dba", v="d")
    found = db.get("doc", open_revs=[r(1, "a"), r(2, "b"), r(3, "c")], latest=True)
    # 1-a and 2-b both lead to 3-c and 3-d; duplicates are dropped.
    assert sorted(entry["ok"]["_rev"] for entry in found) == [r(3, "c"), r(3, "d")]
    assert len(found) == 2
    assert db.get("doc", open_revs=[r(3, "c")], latest=True) == [{"ok": {"_id": "doc", "_rev": r(3, "c"), "v": "c"}}]
    # get(rev=…, latest=True) returns the winning leaf below the rev.
    assert db.get("doc", rev=r(2, "b"), latest=True)["_rev"] == r(3, "d")
    # An unknown rev stays missing.
    assert db.get("doc", open_revs=[r(5, "e")], latest=True) == [{"missing": r(5, "e")}]


def test_rule_2_6_rev_of_a_non_leaf_with_a_body_is_readable(db: Database) -> None:
    revs = edit_chain(db, "doc", 3)
    assert db.get("doc", rev=revs[0]) == {"_id": "doc", "_rev": revs[0], "n": 1}


def test_errors_are_store_errors_with_json(db: Database) -> None:
    with pytest.raises(StoreError) as caught:
        db.get("nope")
    assert caught.value.to_json() == {"error": "not_found", "reason": "missing"}


def test_rule_2_1_tree_is_stored_as_json_in_docs_table(make_db) -> None:
    db = make_db()
    replicate(db, "doc", 2, "ba")
    (tree_json, winner, deleted, seq) = sql(db, "SELECT rev_tree, winning_rev, deleted, seq FROM docs")[0]
    assert (winner, deleted, seq) == (r(2, "b"), 0, 1)
    assert isinstance(tree_json, str) and h("a") in tree_json


def test_rule_1_6_histories_up_to_the_default_revs_limit_are_kept(tmp_path) -> None:
    # The tree nests two JSON levels per generation; past ~490 generations the stdlib json module
    # used to hit the recursion limit and the document could no longer be written or read.
    path = tmp_path / "deep.sqlite"
    ids = [f"{n:032x}" for n in range(1100, 0, -1)]  # newest first: generation 1100 down to 1
    with Database(path) as db:
        assert db.bulk_docs([{"_id": "deep", "_revisions": {"start": 1100, "ids": ids}, "n": 1100}],
                            new_edits=False) == []
        rev = f"1100-{ids[0]}"
        for n in range(1101, 1106):
            rev = db.put({"_id": "deep", "_rev": rev, "n": n})["rev"]
        doc = db.get("deep", revs=True)
        assert doc["n"] == 1105 and doc["_revisions"]["start"] == 1105
        assert len(doc["_revisions"]["ids"]) == 1000
    with Database(path) as reopened:
        assert reopened.get("deep", revs=True)["_revisions"]["ids"][-1] == ids[994]  # generation 106
        assert reopened.revs_diff({"deep": [f"105-{ids[995]}", f"106-{ids[994]}"]}) == {
            "deep": {"missing": [f"105-{ids[995]}"]}}
        assert reopened.changes(style="all_docs")["results"] == [
            {"seq": 6, "id": "deep", "changes": [{"rev": rev}]}]
        # A replicated sibling of the newest revision joins the same deep tree.
        parent_hash = reopened.get("deep", revs=True)["_revisions"]["ids"][1]
        sibling = {"_id": "deep", "_revisions": {"start": 1105, "ids": ["f" * 32, parent_hash]}}
        assert reopened.bulk_docs([sibling], new_edits=False) == []
        assert {entry["ok"]["_rev"] for entry in reopened.get("deep", open_revs="all")} == {rev, "1105-" + "f" * 32}


@pytest.mark.parametrize(
    "doc",
    [
        {"_id": "doc", "_rev": "0-a"},  # generation 0 is for _local documents only
        {"_id": "doc", "_rev": "1-"},
        {"_id": "doc", "_revisions": {"start": True, "ids": ["q"]}},
        {"_id": "doc", "_revisions": {"start": 1, "ids": [""]}},
        {"_id": "doc", "_revisions": {"start": 2, "ids": [5, "a"]}},
        {"_id": "doc", "_revisions": ["a"]},
        {"_id": "doc", "_revisions": {"start": 1, "ids": ["b", "a"]}},  # start below len(ids)
        {"_id": "doc", "_rev": "2-x", "_revisions": {"start": 2, "ids": ["b", "a"]}},
    ],
)
def test_rule_1_1_malformed_replicated_revisions_fail_the_whole_request(make_db, doc) -> None:
    db = make_db()
    replicate(db, "other", 1, "a")
    before = db.info()
    with pytest.raises(BadRequest) as caught:
        db.bulk_docs([{"_id": "fine", "_rev": r(1, "b")}, doc], new_edits=False)
    assert caught.value.status == 400
    # Nothing of the request was written: no body can sit under a rev its tree does not have.
    assert db.info() == before
    assert db.all_docs(keys=["fine", "doc"])["rows"] == [
        {"key": "fine", "error": "not_found"},
        {"key": "doc", "error": "not_found"},
    ]


def test_rule_1_1_a_replicated_rev_matching_its_revisions_is_accepted_in_canonical_form(make_db) -> None:
    db = make_db()
    doc = {"_id": "doc", "_rev": r(2, "b"), "_revisions": {"start": 2, "ids": [h("b"), h("a")]}, "v": 1}
    assert db.bulk_docs([doc], new_edits=False) == []
    assert db.get("doc") == {"_id": "doc", "_rev": r(2, "b"), "v": 1}
    # A non-canonical generation is read as CouchDB reads it, and stored canonically.
    assert db.bulk_docs([{"_id": "padded", "_rev": "01-" + h("c"), "v": 2}], new_edits=False) == []
    assert db.get("padded") == {"_id": "padded", "_rev": r(1, "c"), "v": 2}
    assert db.all_docs(include_docs=True, keys=["padded"])["rows"][0]["doc"]["v"] == 2


@pytest.mark.parametrize("value", ["false", 0, 1, None, "true"])
def test_rule_deleted_must_be_a_boolean(make_db, value) -> None:
    db = make_db()
    rev = db.put({"_id": "doc", "v": 1})["rev"]
    result = db.bulk_docs([{"_id": "doc", "_rev": rev, "_deleted": value}])
    assert result[0]["error"] == "doc_validation"
    with pytest.raises(BadRequest):
        db.bulk_docs([{"_id": "doc", "_rev": r(2, "z"), "_deleted": value}], new_edits=False)
    assert db.get("doc")["v"] == 1
