"""The local store rules of docs/protocol.md section 2 (layout, changes, _local, attachments, revs_diff,
bulk_get), change notifications and the error contract.

Each test is named after the rule it checks and runs against a file database and ``":memory:"``.
"""

from __future__ import annotations

import base64
import hashlib
import sqlite3
import threading
import time
from typing import Any

import pytest

from storyloom.store import (
    BadRequest,
    Conflict,
    Database,
    DatabaseClosed,
    Forbidden,
    MissingStub,
    NotFound,
    StoreError,
    attachment_digest,
)
from storyloom.store.readers import ReaderPool
from tests.store.revs import h, r, replicate, sql


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def digest_of(data: bytes) -> str:
    return "md5-" + base64.b64encode(hashlib.md5(data).digest()).decode()


def att_count(db: Database) -> int:
    return sql(db, "SELECT COUNT(*) FROM attachments")[0][0]


# -- 2.1 Layout and transactions -------------------------------------------------------------------------


def test_rule_2_1_sqlite_layout_and_meta(tmp_path) -> None:
    path = tmp_path / "layout.sqlite"
    db = Database(path)
    db.put({"_id": "a"})
    db.put_local({"_id": "_local/x"})
    uuid1 = db.info()["instance_uuid"]
    db.close()
    conn = sqlite3.connect(path)
    try:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert {"docs", "revs", "attachments", "att_refs", "local_docs", "meta"} <= tables

        def columns(table: str) -> list[str]:
            return [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]

        assert columns("docs") == ["id", "rev_tree", "winning_rev", "deleted", "seq", "crc"]
        assert columns("revs") == ["doc_id", "rev", "deleted", "body", "crc"]
        assert columns("attachments") == ["digest", "data", "length"]
        assert columns("att_refs") == ["digest", "doc_id", "rev"]
        assert columns("local_docs") == ["id", "rev", "body", "crc"]
        meta = dict(conn.execute("SELECT key, value FROM meta"))
        assert meta["instance_uuid"] == uuid1
        assert meta["update_seq"] == "1"
        assert meta["doc_count"] == "1"
        assert meta["revs_limit"] == "1000"
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        conn.close()
    reopened = Database(path)
    try:
        assert reopened.info()["instance_uuid"] == uuid1  # created once
        assert reopened.get("a")["_id"] == "a"
        assert reopened.get_local("x")["_rev"] == "0-1"
    finally:
        reopened.close()


def test_rule_2_1_each_changed_document_gets_one_new_seq(db: Database) -> None:
    results = db.bulk_docs([{"_id": "a"}, {"_id": "b"}, {"_id": "c"}])
    assert all(result["ok"] for result in results)
    assert db.info()["update_seq"] == 3
    assert [row["seq"] for row in db.changes()["results"]] == [1, 2, 3]
    # A failed doc in the batch gets no seq.
    results = db.bulk_docs([{"_id": "a"}, {"_id": "d"}])
    assert results[0]["error"] == "conflict"
    assert db.info()["update_seq"] == 4
    assert db.info()["doc_count"] == 4


def test_rule_2_1_info_counts(db: Database) -> None:
    rev = db.put({"_id": "a"})["rev"]
    db.put({"_id": "b"})
    db.remove("a", rev)
    info = db.info()
    assert info["doc_count"] == 1
    assert info["doc_del_count"] == 1
    assert info["update_seq"] == 3
    assert len(info["instance_uuid"]) == 32
    assert db.update_seq == 3


def test_rule_2_1_a_failing_bulk_docs_call_rolls_back_completely(db: Database) -> None:
    db.put({"_id": "keep", "_attachments": {"f": {"content_type": "text/plain", "data": b64(b"x")}}})
    before = (db.info(), db.changes(), att_count(db))
    with pytest.raises(MissingStub):
        db.bulk_docs([
            {"_id": "new", "_attachments": {"g": {"content_type": "text/plain", "data": b64(b"new data")}}},
            {"_id": "other", "_attachments": {"nope": {"stub": True}}},
        ])
    assert (db.info(), db.changes(), att_count(db)) == before
    with pytest.raises(NotFound):
        db.get("new")


# -- 2.2 Changes feed ---------------------------------------------------------------------------------------


def test_rule_2_2_one_row_per_document_at_its_latest_seq(db: Database) -> None:
    rev_a = db.put({"_id": "a"})["rev"]
    rev_b = db.put({"_id": "b"})["rev"]
    rev_a2 = db.put({"_id": "a", "_rev": rev_a, "v": 2})["rev"]
    feed = db.changes()
    assert feed == {
        "results": [
            {"seq": 2, "id": "b", "changes": [{"rev": rev_b}]},
            {"seq": 3, "id": "a", "changes": [{"rev": rev_a2}]},
        ],
        "last_seq": 3,
    }


def test_rule_2_2_style_all_docs_lists_every_leaf_including_tombstones(db: Database) -> None:
    # T40: two live leaves and a tombstone.
    replicate(db, "doc", 2, "a1")
    replicate(db, "doc", 2, "b1")
    replicate(db, "doc", 3, "c21", deleted=True)
    all_docs = db.changes(style="all_docs")["results"]
    assert len(all_docs) == 1
    row = all_docs[0]
    assert row["seq"] == 3 and row["id"] == "doc"
    assert row["changes"][0] == {"rev": r(2, "b")}  # the winner first
    assert sorted(c["rev"] for c in row["changes"]) == sorted([r(2, "a"), r(2, "b"), r(3, "c")])
    assert "deleted" not in row  # `deleted` describes the winner, which is live
    main_only = db.changes()["results"]
    assert main_only == [{"seq": 3, "id": "doc", "changes": [{"rev": r(2, "b")}]}]


def test_rule_2_2_deleted_flag_describes_the_winner(db: Database) -> None:
    rev = db.put({"_id": "gone"})["rev"]
    tomb = db.remove("gone", rev)["rev"]
    assert db.changes()["results"] == [{"seq": 2, "id": "gone", "changes": [{"rev": tomb}], "deleted": True}]


def test_rule_2_2_since_is_exclusive_and_accepts_now(db: Database) -> None:
    for doc_id in "abcd":
        db.put({"_id": doc_id})
    assert [row["id"] for row in db.changes(since=2)["results"]] == ["c", "d"]
    assert db.changes(since="2")["last_seq"] == 4
    assert db.changes(since=4) == {"results": [], "last_seq": 4}
    assert db.changes(since="now") == {"results": [], "last_seq": 4}
    assert [row["id"] for row in db.changes(since=0)["results"]] == ["a", "b", "c", "d"]
    db.put({"_id": "e"})
    assert [row["id"] for row in db.changes(since=4)["results"]] == ["e"]
    with pytest.raises(BadRequest):
        db.changes(since="yesterday")


def test_rule_2_2_limit_pages_through_the_feed(db: Database) -> None:
    for doc_id in "abcde":
        db.put({"_id": doc_id})
    seen: list[str] = []
    since = 0
    calls = 0
    while True:
        page = db.changes(since=since, limit=2)
        calls += 1
        assert len(page["results"]) <= 2
        if not page["results"]:
            assert page["last_seq"] == since
            break
        seen += [row["id"] for row in page["results"]]
        assert page["last_seq"] == page["results"][-1]["seq"]
        since = page["last_seq"]
    assert seen == list("abcde")
    assert calls == 4
    with pytest.raises(BadRequest):
        db.changes(limit=-1)


def test_rule_2_2_descending(db: Database) -> None:
    for doc_id in "abc":
        db.put({"_id": doc_id})
    feed = db.changes(descending=True)
    assert [(row["seq"], row["id"]) for row in feed["results"]] == [(3, "c"), (2, "b"), (1, "a")]
    assert feed["last_seq"] == 1
    assert [row["id"] for row in db.changes(descending=True, limit=1)["results"]] == ["c"]


def test_rule_2_2_include_docs_and_conflicts(db: Database) -> None:
    replicate(db, "doc", 2, "a1", v="a")
    replicate(db, "doc", 2, "b1", v="b")
    rev = db.put({"_id": "gone"})["rev"]
    tomb = db.remove("gone", rev)["rev"]
    feed = db.changes(include_docs=True)["results"]
    assert feed[0]["doc"] == {"_id": "doc", "_rev": r(2, "b"), "v": "b"}
    assert feed[1]["doc"] == {"_id": "gone", "_rev": tomb, "_deleted": True}
    with_conflicts = db.changes(include_docs=True, conflicts=True)["results"]
    assert with_conflicts[0]["doc"] == {"_id": "doc", "_rev": r(2, "b"), "v": "b", "_conflicts": [r(2, "a")]}
    assert "_conflicts" not in with_conflicts[1]["doc"]
    assert all("doc" not in row for row in db.changes()["results"])


def test_rule_2_2_include_docs_attachments(db: Database) -> None:
    db.put({"_id": "a", "_attachments": {"f.bin": {"content_type": "application/x-bin", "data": b64(b"\x00\x01")}}})
    stub = db.changes(include_docs=True)["results"][0]["doc"]["_attachments"]["f.bin"]
    assert stub["stub"] is True and "data" not in stub
    full = db.changes(include_docs=True, attachments=True)["results"][0]["doc"]["_attachments"]["f.bin"]
    assert full["data"] == b64(b"\x00\x01") and "stub" not in full


def test_rule_2_2_doc_ids_filter_and_last_seq_counts_skipped_rows(db: Database) -> None:
    for doc_id in "abcd":
        db.put({"_id": doc_id})
    feed = db.changes(doc_ids=["b"])
    assert [row["id"] for row in feed["results"]] == ["b"]
    assert feed["last_seq"] == 4  # rows c and d were examined and filtered out
    nothing = db.changes(doc_ids=["zzz"], since=1)
    assert nothing == {"results": [], "last_seq": 4}
    assert db.changes(doc_ids=["a", "c"], since=1)["results"][0]["id"] == "c"


def test_rule_2_2_bad_style_is_400(db: Database) -> None:
    with pytest.raises(BadRequest) as caught:
        db.changes(style="everything")
    assert caught.value.status == 400


# -- 2.3 _local documents ------------------------------------------------------------------------------------


def test_rule_2_3_local_revs_run_0_1_0_2(db: Database) -> None:
    assert db.put_local({"_id": "_local/cp", "last_seq": 1}) == {"ok": True, "id": "_local/cp", "rev": "0-1"}
    assert db.put_local({"_id": "_local/cp", "_rev": "0-1", "last_seq": 2})["rev"] == "0-2"
    assert db.put({"_id": "_local/cp", "_rev": "0-2", "last_seq": 3})["rev"] == "0-3"  # put routes _local
    assert db.get_local("_local/cp") == {"_id": "_local/cp", "_rev": "0-3", "last_seq": 3}
    assert db.get_local("cp") == db.get("_local/cp")


def test_rule_2_3_stale_or_missing_rev_is_409(db: Database) -> None:
    db.put_local({"_id": "_local/cp", "v": 1})
    db.put_local({"_id": "_local/cp", "_rev": "0-1", "v": 2})
    for bad in ({"_rev": "0-1"}, {}, {"_rev": "0-9"}):
        with pytest.raises(Conflict) as caught:
            db.put_local({"_id": "_local/cp", "v": 3, **bad})
        assert caught.value.status == 409
    with pytest.raises(Conflict):
        db.put_local({"_id": "_local/new", "_rev": "0-4"})
    with pytest.raises(Conflict):
        db.remove_local("_local/cp", "0-1")
    assert db.get_local("_local/cp")["v"] == 2


def test_rule_2_3_remove_local(db: Database) -> None:
    db.put_local({"_id": "_local/cp"})
    assert db.remove_local("_local/cp", "0-1")["ok"] is True
    with pytest.raises(NotFound) as caught:
        db.get_local("_local/cp")
    assert caught.value.status == 404
    with pytest.raises(NotFound):
        db.remove_local("_local/cp", "0-1")
    assert db.put_local({"_id": "_local/cp"})["rev"] == "0-1"


def test_rule_2_3_local_docs_never_appear_in_all_docs_or_changes(db: Database) -> None:
    db.put({"_id": "real"})
    db.put_local({"_id": "_local/cp", "v": 1})
    db.put_local({"_id": "_local/cp", "_rev": "0-1", "v": 2})
    assert [row["id"] for row in db.all_docs()["rows"]] == ["real"]
    assert db.all_docs(keys=["_local/cp"])["rows"] == [{"key": "_local/cp", "error": "not_found"}]
    assert [row["id"] for row in db.changes(style="all_docs")["results"]] == ["real"]
    info = db.info()
    assert info["doc_count"] == 1 and info["update_seq"] == 1
    with pytest.raises(BadRequest):
        db.bulk_docs([{"_id": "_local/cp", "_rev": "0-3"}], new_edits=False)


# -- 2.5 revs_diff ---------------------------------------------------------------------------------------


def test_rule_2_5_T18_missing_and_possible_ancestors(db: Database) -> None:
    replicate(db, "d", 2, "ba")
    assert db.revs_diff({"d": [r(2, "b"), r(3, "c"), r(4, "d")]}) == {
        "d": {"missing": [r(3, "c"), r(4, "d")], "possible_ancestors": [r(2, "b")]}
    }


def test_rule_2_5_only_ids_with_something_missing_are_listed(db: Database) -> None:
    replicate(db, "d", 3, "cba")
    replicate(db, "e", 1, "1")
    diff = db.revs_diff({"d": [r(1, "a"), r(2, "b"), r(3, "c")], "e": [r(1, "1")], "new": [r(1, "f"), r(1, "f")]})
    # Revisions without a body (1-a, 2-b) are still present; duplicates are listed once.
    assert diff == {"new": {"missing": [r(1, "f")]}}


def test_rule_2_5_possible_ancestors_are_leaves_below_the_highest_missing_pos(db: Database) -> None:
    replicate(db, "d", 2, "ba")
    replicate(db, "d", 5, "e9")  # disjoint second root, leaf at pos 5
    replicate(db, "d", 3, "32a", deleted=True)  # a tombstone leaf at pos 3, branching off 1-a
    diff = db.revs_diff({"d": [r(4, "4")]})
    assert diff["d"]["missing"] == [r(4, "4")]
    assert set(diff["d"]["possible_ancestors"]) == {r(2, "b"), r(3, "3")}
    assert db.revs_diff({"d": [r(1, "0")]}) == {"d": {"missing": [r(1, "0")]}}


# -- 2.6 bulk_get ------------------------------------------------------------------------------------


def test_rule_2_6_T41_bulk_get_shapes_matched_by_id_and_rev(db: Database) -> None:
    replicate(db, "a", 2, "b1", v="b")
    replicate(db, "a", 2, "c1", v="c")
    db.put({"_id": "gone"})
    tomb = db.remove("gone", db.get("gone", open_revs="all")[0]["ok"]["_rev"])["rev"]
    requests = [
        {"id": "a", "rev": r(2, "b")},
        {"id": "a"},
        {"id": "nope"},
        {"id": "a", "rev": r(7, "7")},
        {"id": "gone"},
        {"id": "a", "rev": r(2, "b")},  # repeated items are answered again, in place
    ]
    out = db.bulk_get(requests, revs=True)
    results = out["results"]
    assert list(out) == ["results"]
    assert [item["id"] for item in results] == ["a", "a", "nope", "a", "gone", "a"]

    def by_rev(item: dict) -> dict[str, dict]:
        found: dict[str, dict] = {}
        for entry in item["docs"]:
            if "ok" in entry:
                found[entry["ok"]["_rev"]] = entry
            else:
                found[entry["error"]["rev"]] = entry
        return found

    assert by_rev(results[0]) == {r(2, "b"): {"ok": {
        "_id": "a", "_rev": r(2, "b"), "v": "b", "_revisions": {"start": 2, "ids": [h("b"), h("1")]}}}}
    assert set(by_rev(results[1])) == {r(2, "b"), r(2, "c")}
    assert results[2] == {"id": "nope", "docs": [{"error": {
        "id": "nope", "rev": "undefined", "error": "not_found", "reason": "missing"}}]}
    assert results[3] == {"id": "a", "docs": [{"error": {
        "id": "a", "rev": r(7, "7"), "error": "not_found", "reason": "missing"}}]}
    assert by_rev(results[4])[tomb]["ok"]["_deleted"] is True
    assert results[5] == results[0]


def test_rule_2_6_bulk_get_latest_and_revs(db: Database) -> None:
    replicate(db, "a", 3, "cba", v=3)
    out = db.bulk_get([{"id": "a", "rev": r(1, "a")}], latest=True)["results"][0]["docs"]
    assert out == [{"ok": {"_id": "a", "_rev": r(3, "c"), "v": 3}}]
    not_latest = db.bulk_get([{"id": "a", "rev": r(1, "a")}])["results"][0]["docs"]
    assert not_latest == [{"error": {"id": "a", "rev": r(1, "a"), "error": "not_found", "reason": "missing"}}]


# -- 2.7 Attachments ------------------------------------------------------------------------------------


PAYLOAD = bytes(range(256)) * 3 + b"\x00\xff\r\n"


def test_rule_2_7_base64_in_and_out_is_byte_exact(db: Database) -> None:
    atts = {"all.bin": {"content_type": "application/x-thing", "data": b64(PAYLOAD)}}
    rev = db.put({"_id": "a", "_attachments": atts})["rev"]
    assert db.get_attachment("a", "all.bin") == PAYLOAD
    assert db.get_attachment("a", "all.bin", rev=rev) == PAYLOAD
    meta = db.get("a", attachments=True)["_attachments"]["all.bin"]
    assert meta == {
        "content_type": "application/x-thing",
        "digest": digest_of(PAYLOAD),
        "length": len(PAYLOAD),
        "revpos": 1,
        "data": b64(PAYLOAD),
    }
    assert attachment_digest(PAYLOAD) == digest_of(PAYLOAD)
    stub = db.get("a")["_attachments"]["all.bin"]
    assert stub == {
        "content_type": "application/x-thing",
        "digest": digest_of(PAYLOAD),
        "length": len(PAYLOAD),
        "revpos": 1,
        "stub": True,
    }


def test_rule_2_7_content_is_stored_once(db: Database) -> None:
    for doc_id in ("a", "b", "c"):
        db.put({"_id": doc_id, "_attachments": {
            "one.txt": {"content_type": "text/plain", "data": b64(b"shared")},
            "two.txt": {"content_type": "text/plain", "data": b64(b"shared")},
        }})
    db.put({"_id": "d", "_attachments": {"x": {"content_type": "text/plain", "data": b64(b"other")}}})
    assert att_count(db) == 2
    assert sql(db, "SELECT length FROM attachments WHERE digest = ?", (digest_of(b"shared"),)) == [(6,)]
    assert sql(db, "SELECT COUNT(*) FROM att_refs WHERE digest = ?", (digest_of(b"shared"),)) == [(3,)]


def test_rule_2_7_stub_on_body_only_edit_keeps_revpos_and_new_data_gets_the_new_generation(db: Database) -> None:
    rev1 = db.put({"_id": "a", "v": 1, "_attachments": {"f.txt": {"content_type": "text/plain", "data": b64(b"v1")}}})[
        "rev"
    ]
    rev2 = db.put({"_id": "a", "_rev": rev1, "v": 2, "_attachments": {"f.txt": {"stub": True}}})["rev"]
    assert db.get("a")["_attachments"]["f.txt"] == {
        "content_type": "text/plain", "digest": digest_of(b"v1"), "length": 2, "revpos": 1, "stub": True}
    assert db.get_attachment("a", "f.txt") == b"v1"
    rev3 = db.put({"_id": "a", "_rev": rev2, "v": 3, "_attachments": {
        "f.txt": {"content_type": "text/plain", "data": b64(b"version three")},
        "g.txt": {"content_type": "text/csv", "data": b64(b"a,b")},
    }})["rev"]
    atts = db.get("a")["_attachments"]
    assert atts["f.txt"]["revpos"] == 3 and atts["f.txt"]["length"] == 13
    assert atts["g.txt"]["revpos"] == 3 and atts["g.txt"]["content_type"] == "text/csv"
    assert db.get_attachment("a", "f.txt") == b"version three"
    assert db.get_attachment("a", "f.txt", rev=rev1) == b"v1"
    assert db.get_attachment("a", "f.txt", rev=rev3) == b"version three"
    # An edit that leaves `_attachments` out drops them (CouchDB semantics).
    rev4 = db.put({"_id": "a", "_rev": rev3, "v": 4})["rev"]
    assert "_attachments" not in db.get("a")
    with pytest.raises(NotFound):
        db.get_attachment("a", "f.txt")
    assert db.get_attachment("a", "g.txt", rev=rev3) == b"a,b"
    assert rev4.startswith("4-")


def test_rule_2_7_get_attachment_errors(db: Database) -> None:
    db.put({"_id": "a", "_attachments": {"f": {"content_type": "text/plain", "data": b64(b"x")}}})
    with pytest.raises(NotFound):
        db.get_attachment("a", "nope")
    with pytest.raises(NotFound):
        db.get_attachment("nope", "f")


def test_rule_2_7_attachments_true_inlines_data(db: Database) -> None:
    db.put({"_id": "a", "_attachments": {"f": {"content_type": "text/plain", "data": b64(b"inline")}}})
    assert db.get("a", attachments=True)["_attachments"]["f"]["data"] == b64(b"inline")
    assert "data" not in db.get("a")["_attachments"]["f"]
    assert db.get("a", open_revs="all", attachments=True)[0]["ok"]["_attachments"]["f"]["data"] == b64(b"inline")
    got = db.bulk_get([{"id": "a"}], attachments=True)["results"][0]["docs"][0]["ok"]
    assert got["_attachments"]["f"]["data"] == b64(b"inline")


def test_rule_2_7_atts_since_sends_stubs_for_attachments_the_peer_has(db: Database) -> None:
    rev1 = db.put({"_id": "a", "_attachments": {"old": {"content_type": "text/plain", "data": b64(b"old")}}})["rev"]
    rev2 = db.put({"_id": "a", "_rev": rev1, "_attachments": {"old": {"stub": True}}})["rev"]
    rev3 = db.put({"_id": "a", "_rev": rev2, "_attachments": {
        "old": {"stub": True}, "new": {"content_type": "text/plain", "data": b64(b"new")}}})["rev"]
    docs = db.get("a", open_revs=[rev3], attachments=True, atts_since=[rev2])
    atts = docs[0]["ok"]["_attachments"]
    assert atts["old"]["stub"] is True and "data" not in atts["old"]
    assert atts["new"]["data"] == b64(b"new")
    # A since-rev that is not an ancestor gives everything.
    everything = db.get("a", open_revs=[rev3], attachments=True, atts_since=[r(2, "0")])[0]["ok"]["_attachments"]
    assert everything["old"]["data"] == b64(b"old") and everything["new"]["data"] == b64(b"new")
    item = db.bulk_get([{"id": "a", "rev": rev3, "atts_since": [rev1]}], attachments=True)["results"][0]
    atts = item["docs"][0]["ok"]["_attachments"]
    assert atts["old"]["stub"] is True and atts["new"]["data"] == b64(b"new")
    # atts_since=[rev3] itself: every attachment is at or below it.
    latest = db.get("a", open_revs=[rev3], attachments=True, atts_since=[rev3])[0]["ok"]["_attachments"]
    assert latest["new"]["stub"] is True


def test_rule_2_7_missing_stub_is_412(db: Database) -> None:
    rev = db.put({"_id": "a"})["rev"]
    with pytest.raises(MissingStub) as caught:
        db.put({"_id": "a", "_rev": rev, "_attachments": {"ghost": {"stub": True}}})
    assert (caught.value.status, caught.value.error) == (412, "missing_stub")
    with pytest.raises(MissingStub):
        db.put({"_id": "fresh", "_attachments": {"ghost": {"stub": True}}})
    assert db.info()["update_seq"] == 1


def test_rule_2_7_replicated_stub_resolves_by_name_against_the_nearest_ancestor(make_db) -> None:
    # T22: a body-only edit arrives as a stub and keeps its data and revpos.
    source = make_db()
    target = make_db()
    atts = {"f.bin": {"content_type": "image/png", "data": b64(PAYLOAD)}}
    rev1 = source.put({"_id": "a", "_attachments": atts})["rev"]
    assert target.bulk_docs([source.get("a", rev=rev1, revs=True, attachments=True)], new_edits=False) == []
    rev2 = source.put({"_id": "a", "_rev": rev1, "v": 2, "_attachments": {"f.bin": {"stub": True}}})["rev"]
    doc2 = source.get("a", rev=rev2, revs=True)  # stubs only
    assert doc2["_attachments"]["f.bin"]["stub"] is True
    assert target.bulk_docs([doc2], new_edits=False) == []
    assert target.get_attachment("a", "f.bin") == PAYLOAD
    assert target.get("a")["_attachments"]["f.bin"]["revpos"] == 1
    assert att_count(target) == 1


def test_rule_2_7_replicated_data_keeps_the_revpos_sent(db: Database) -> None:
    doc = {
        "_id": "a",
        "_rev": r(3, "c"),
        "_revisions": {"start": 3, "ids": [h("c"), h("b"), h("a")]},
        "_attachments": {"f": {"content_type": "text/plain", "data": b64(b"hi"), "revpos": 2}},
    }
    assert db.bulk_docs([doc], new_edits=False) == []
    assert db.get("a")["_attachments"]["f"]["revpos"] == 2


def test_rule_2_7_unresolvable_replicated_stub_fails_the_whole_request(db: Database) -> None:
    docs = [
        {"_id": "ok", "_rev": r(1, "a")},
        {"_id": "b", "_rev": r(2, "b"), "_revisions": {"start": 2, "ids": [h("b"), h("a")]},
         "_attachments": {"x": {"stub": True, "digest": "md5-AAAAAAAAAAAAAAAAAAAAAA==", "revpos": 1}}},
    ]
    with pytest.raises(MissingStub) as caught:
        db.bulk_docs(docs, new_edits=False)
    assert caught.value.status == 412
    assert db.info()["update_seq"] == 0
    with pytest.raises(NotFound):
        db.get("ok")


def test_rule_2_7_replicated_stub_with_a_different_revpos_is_412(db: Database) -> None:
    # The ancestor holds `f` from generation 1; a stub claiming revpos 2 names other content.
    replicate(db, "a", 1, "a", _attachments={"f": {"content_type": "text/plain", "data": b64(b"one"), "revpos": 1}})
    stale = {"_id": "a", "_rev": r(2, "b"), "_revisions": {"start": 2, "ids": [h("b"), h("a")]},
             "_attachments": {"f": {"stub": True, "digest": "md5-gzippedElsewhere0000==", "revpos": 2,
                                    "content_type": "text/plain"}}}
    with pytest.raises(MissingStub):
        db.bulk_docs([stale], new_edits=False)
    matching = dict(stale, _attachments={"f": {"stub": True, "revpos": 1}})
    assert db.bulk_docs([matching], new_edits=False) == []
    assert db.get_attachment("a", "f") == b"one"


def test_rule_2_7_replicated_stub_resolved_by_digest_keeps_its_content_type(db: Database) -> None:
    db.put({"_id": "holder", "_attachments": {"pic": {"content_type": "image/png", "data": b64(b"png!")}}})
    doc = {"_id": "b", "_rev": r(1, "b"), "_attachments": {
        "copy.png": {"stub": True, "digest": digest_of(b"png!"), "revpos": 1, "content_type": "image/png"}}}
    assert db.bulk_docs([doc], new_edits=False) == []
    assert db.get_attachment("b", "copy.png") == b"png!"
    assert db.get("b")["_attachments"]["copy.png"]["content_type"] == "image/png"


def test_rule_2_7_attachment_data_is_collected_when_the_last_referencing_rev_is_stemmed(make_db) -> None:
    db = make_db(revs_limit=2)
    rev = db.put({"_id": "a", "_attachments": {"f": {"content_type": "text/plain", "data": b64(b"first")}}})["rev"]
    second = {"f": {"content_type": "text/plain", "data": b64(b"second")}}
    rev = db.put({"_id": "a", "_rev": rev, "_attachments": second})["rev"]
    assert att_count(db) == 2  # generation 1 still holds "first"
    rev = db.put({"_id": "a", "_rev": rev, "_attachments": {"f": {"stub": True}}})["rev"]
    assert att_count(db) == 1  # generation 1 stemmed: "first" is gone
    assert sql(db, "SELECT digest FROM attachments") == [(digest_of(b"second"),)]
    # Shared content survives while another document still references it.
    db.put({"_id": "b", "_attachments": {"f": {"content_type": "text/plain", "data": b64(b"second")}}})
    for n in range(3):
        rev = db.put({"_id": "a", "_rev": rev, "n": n})["rev"]  # no attachments any more
    assert sql(db, "SELECT COUNT(*) FROM att_refs WHERE doc_id = 'a'") == [(0,)]
    assert att_count(db) == 1
    assert db.get_attachment("b", "f") == b"second"
    brev = db.get("b")["_rev"]
    for n in range(2):
        brev = db.put({"_id": "b", "_rev": brev, "n": n})["rev"]
    assert att_count(db) == 0


def test_rule_2_7_deleting_a_document_drops_its_attachments_from_the_tombstone(db: Database) -> None:
    rev = db.put({"_id": "a", "_attachments": {"f": {"content_type": "text/plain", "data": b64(b"x")}}})["rev"]
    tomb = db.remove("a", rev)["rev"]
    assert db.get("a", rev=tomb) == {"_id": "a", "_rev": tomb, "_deleted": True}
    assert db.get_attachment("a", "f", rev=rev) == b"x"


def test_rule_2_7_bad_attachment_data_is_400(db: Database) -> None:
    with pytest.raises(BadRequest):
        db.put({"_id": "a", "_attachments": {"f": {"content_type": "text/plain", "data": "not base64!!"}}})
    with pytest.raises(BadRequest):
        db.put({"_id": "a", "_attachments": {"f": {"content_type": "text/plain"}}})


# -- Change notifications ----------------------------------------------------------------------------


def test_notifications_carry_id_rev_seq_deleted_after_commit(make_db, tmp_path) -> None:
    db = make_db()
    seen: list[tuple[dict, Any]] = []

    def listener(change: dict) -> None:
        # The change must already be committed: another connection (file db) or a read sees it.
        if db.path != ":memory:":
            conn = sqlite3.connect(db.path)
            try:
                row = conn.execute("SELECT winning_rev, seq FROM docs WHERE id = ?", (change["id"],)).fetchone()
            finally:
                conn.close()
        else:
            row = (db.get(change["id"], open_revs="all")[0]["ok"]["_rev"], db.info()["update_seq"])
        seen.append((change, row))

    unsubscribe = db.subscribe(listener)
    rev1 = db.put({"_id": "a"})["rev"]
    tomb = db.remove("a", rev1)["rev"]
    db.bulk_docs([{"_id": "b"}, {"_id": "c"}])
    assert [change for change, _ in seen[:2]] == [
        {"id": "a", "rev": rev1, "seq": 1, "deleted": False},
        {"id": "a", "rev": tomb, "seq": 2, "deleted": True},
    ]
    assert seen[0][1][1] >= 1 and seen[1][1] == (tomb, 2)
    assert [(change["id"], change["seq"]) for change, _ in seen[2:]] == [("b", 3), ("c", 4)]
    for change, row in seen[2:]:
        assert row[0] == change["rev"]
    unsubscribe()
    db.put({"_id": "after"})
    assert len(seen) == 4
    unsubscribe()  # twice is harmless


def test_notifications_skip_failed_writes_and_survive_a_failing_listener(db: Database) -> None:
    seen: list[dict] = []

    def broken(change: dict) -> None:
        raise RuntimeError("listener bug")

    db.subscribe(broken)
    db.subscribe(seen.append)
    db.put({"_id": "a"})
    with pytest.raises(Conflict):
        db.put({"_id": "a"})
    db.put_local({"_id": "_local/x"})
    replicate(db, "r", 1, "1")
    replicate(db, "r", 1, "1")  # no-op
    assert [(change["id"], change["seq"]) for change in seen] == [("a", 1), ("r", 2)]


def test_wait_for_change_wakes_on_commit_and_times_out(db: Database) -> None:
    db.put({"_id": "a"})
    start = time.monotonic()
    assert db.wait_for_change(since=1, timeout=0.2) is False
    assert time.monotonic() - start >= 0.15
    assert db.wait_for_change(since=0, timeout=0.2) is True  # already past

    def writer() -> None:
        time.sleep(0.2)
        db.put({"_id": "b"})

    thread = threading.Thread(target=writer)
    thread.start()
    start = time.monotonic()
    assert db.wait_for_change(since=1, timeout=10) is True
    elapsed = time.monotonic() - start
    thread.join()
    assert elapsed < 5
    assert db.info()["update_seq"] == 2


# -- Errors ---------------------------------------------------------------------------------------------


def test_errors_carry_couchdb_name_and_status(make_db) -> None:
    def validator(new_doc: dict, old_doc: dict | None) -> None:
        if new_doc.get("type") == "forbidden":
            raise Forbidden("type not allowed")
        if old_doc is not None and old_doc.get("locked"):
            raise Forbidden("locked")

    db = make_db(validator=validator)
    rev = db.put({"_id": "a", "locked": True})["rev"]
    cases: list[tuple[Any, type[StoreError], int, str, str | None]] = [
        (lambda: db.put({"_id": "a"}), Conflict, 409, "conflict", None),
        (lambda: db.get("missing"), NotFound, 404, "not_found", "missing"),
        (lambda: db.put({"_id": "b", "type": "forbidden"}), Forbidden, 403, "forbidden", "type not allowed"),
        (lambda: db.put({"_id": "a", "_rev": rev, "v": 2}), Forbidden, 403, "forbidden", "locked"),
        (lambda: db.get("a", rev="garbage"), BadRequest, 400, "bad_request", None),
        (lambda: db.all_docs(skip=-1), BadRequest, 400, "bad_request", None),
        (lambda: db.put({"_id": "a", "_rev": rev, "_attachments": {"x": {"stub": True}}}), MissingStub, 412,
         "missing_stub", None),
    ]
    for call, cls, status, name, reason in cases:
        with pytest.raises(cls) as caught:
            call()
        assert isinstance(caught.value, StoreError)
        assert caught.value.status == status
        assert caught.value.error == name
        assert caught.value.to_json()["error"] == name
        if reason is not None:
            assert caught.value.reason == reason
    assert db.bulk_docs([{"_id": "c", "type": "forbidden"}, {"_id": "d"}])[0] == {
        "id": "c", "error": "forbidden", "reason": "type not allowed"}
    assert db.get("d")["_id"] == "d"
    with pytest.raises(NotFound):
        db.get("c")


def test_errors_not_found_deleted(db: Database) -> None:
    rev = db.put({"_id": "a"})["rev"]
    db.remove("a", rev)
    with pytest.raises(NotFound) as caught:
        db.get("a")
    assert caught.value.to_json() == {"error": "not_found", "reason": "deleted"}
    assert caught.value.status == 404


def test_validator_sees_the_parent_as_old_doc(make_db) -> None:
    calls: list[tuple[dict, dict | None]] = []
    db = make_db(validator=lambda new, old: calls.append((new, old)))
    rev1 = db.put({"_id": "a", "v": 1})["rev"]
    rev2 = db.put({"_id": "a", "_rev": rev1, "v": 2})["rev"]
    tomb = db.remove("a", rev2)["rev"]
    db.put({"_id": "a", "v": 4})
    assert calls[0] == ({"_id": "a", "v": 1}, None)
    assert calls[1] == ({"_id": "a", "v": 2}, {"_id": "a", "_rev": rev1, "v": 1})
    assert calls[2] == ({"_id": "a", "_deleted": True}, {"_id": "a", "_rev": rev2, "v": 2})
    assert calls[3] == ({"_id": "a", "v": 4}, None)  # recreated on a tombstone: no old doc
    assert tomb.startswith("3-")


def test_closed_database_refuses_work(tmp_path) -> None:
    db = Database(tmp_path / "c.sqlite")
    db.close()
    with pytest.raises(StoreError):
        db.put({"_id": "a"})
    with pytest.raises(StoreError):
        db.get("a")
    db.close()  # idempotent


def test_reads_inside_a_validator_see_the_committed_state(make_db) -> None:
    seen: list[Any] = []
    holder: dict[str, Database] = {}

    def validator(new_doc: dict, old_doc: dict | None) -> None:
        database = holder["db"]
        seen.append((database.info()["update_seq"], database.all_docs()["total_rows"]))

    db = make_db(validator=validator)
    holder["db"] = db
    db.put({"_id": "a"})
    db.bulk_docs([{"_id": "b"}, {"_id": "c"}])
    assert len(seen) == 3  # reading from inside a write call neither deadlocks nor fails
    if db.path != ":memory:":
        # A file database's reads use their own connections: they see what was committed before.
        assert seen == [(0, 0), (1, 1), (1, 1)]
    assert db.info()["update_seq"] == 3
    assert db.get("c")["_id"] == "c"


def test_short_lived_reader_threads_leave_no_connections_behind(tmp_path) -> None:
    db = Database(tmp_path / "pool.sqlite")
    try:
        db.put({"_id": "x"})
        for _ in range(20):
            thread = threading.Thread(target=lambda: (db.info(), db.get("x"), db.all_docs()))
            thread.start()
            thread.join()
        assert db._pool.open_count <= ReaderPool.IDLE == 4
        barrier = threading.Barrier(8)

        def concurrent_read() -> None:
            barrier.wait()
            assert db.get("x")["_id"] == "x"

        threads = [threading.Thread(target=concurrent_read) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert db._pool.open_count <= ReaderPool.IDLE == 4
    finally:
        db.close()


def test_closing_under_a_read_in_flight_raises_db_closed(tmp_path) -> None:
    db = Database(tmp_path / "race.sqlite")
    db.bulk_docs([{"_id": f"d{i:03d}"} for i in range(20)])
    with pytest.raises(StoreError) as caught, db._read() as snap:
        snap.doc_row("d000")
        db.close()
        snap.doc_row("d001")
    assert caught.value.error == "db_closed"


def test_nested_reads_release_everything_for_other_threads(db: Database) -> None:
    db.put({"_id": "a", "_attachments": {"f": {"content_type": "text/plain", "data": b64(b"x")}}})
    assert db.get_attachment("a", "f") == b"x"  # a read nested in a read
    done = threading.Event()

    def other() -> None:
        db.put({"_id": "b"})
        db.get("b")
        done.set()

    thread = threading.Thread(target=other, daemon=True)
    thread.start()
    assert done.wait(10), "another thread could not write or read after a nested read"
    thread.join()


def test_a_refused_document_leaves_no_attachment_data_behind(make_db) -> None:
    seen: list[dict] = []

    def validator(new_doc: dict, old_doc: dict | None) -> None:
        seen.append(new_doc)
        if new_doc.get("refuse"):
            raise Forbidden("no")

    db = make_db(validator=validator)
    atts = {"f.bin": {"content_type": "application/x-bin", "data": b64(b"refused bytes")}}
    results = db.bulk_docs([{"_id": "a", "refuse": True, "_attachments": atts}, {"_id": "b"}])
    assert results[0] == {"id": "a", "error": "forbidden", "reason": "no"}
    assert att_count(db) == 0
    replicated = {"_id": "c", "_rev": r(1, "c"), "refuse": True, "_attachments": {
        "g": {"content_type": "text/plain", "data": b64(b"also refused"), "revpos": 1}}}
    assert db.bulk_docs([replicated], new_edits=False)[0]["error"] == "forbidden"
    assert att_count(db) == 0
    # The validator sees attachment metadata with the new revpos, nothing internal.
    db.put({"_id": "d", "_attachments": atts})
    assert seen[-1]["_attachments"] == {"f.bin": {
        "content_type": "application/x-bin", "digest": digest_of(b"refused bytes"), "length": 13, "revpos": 1}}


def test_a_closed_database_refuses_every_operation(make_db):
    database = make_db()
    database.put({"_id": "a"})
    database.close()
    calls = {
        "get": lambda: database.get("a"),
        "put": lambda: database.put({"_id": "b"}),
        "all_docs": lambda: database.all_docs(),
        "all_docs_stream": lambda: database.all_docs_stream(),
        "changes": lambda: database.changes(),
        "subscribe": lambda: database.subscribe(lambda change: None),
        "info": lambda: database.info(),
        "put_local": lambda: database.put_local({"_id": "_local/x"}),
    }
    for name, call in calls.items():
        with pytest.raises(DatabaseClosed) as caught:
            call()
        assert caught.value.error == "db_closed", name


def test_revs_limit_is_a_property_of_the_database_kept_across_opens(tmp_path):
    path = tmp_path / "limits.sqlite"
    first = Database(path)
    assert first.revs_limit == 1000
    first.set_revs_limit(7)
    first.close()
    reopened = Database(path)
    assert reopened.revs_limit == 7 and reopened.info()["revs_limit"] == 7
    reopened.close()
    explicit = Database(path, revs_limit=3)
    assert explicit.revs_limit == 3
    explicit.close()
    final = Database(path)
    assert final.revs_limit == 3
    final.close()
    with pytest.raises(BadRequest):
        Database(path, revs_limit=0)
