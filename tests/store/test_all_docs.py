"""Every ``all_docs`` option of docs/protocol.md section 2.8 against CouchDB's expected output (T39).

The fixture holds six documents, one of them deleted, one conflicted, one with an attachment, a
design doc, ids that sort differently by code point than by UCA, and a ``_local`` doc. Revisions are
written with ``new_edits=False`` so every expected output below is literal.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from storyloom.store import BadRequest, Database

REV_ZED = "1-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
REV_DESIGN = "1-bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
REV_APPLE = "1-cccccccccccccccccccccccccccccccc"
REV_BANANA = "2-1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b"  # the winner: higher hash
REV_BANANA_LOSER = "2-0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c"
REV_CHERRY_TOMB = "2-eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"
REV_ECLAIR = "1-ffffffffffffffffffffffffffffffff"

ROW_ZED = {"id": "Zed", "key": "Zed", "value": {"rev": REV_ZED}}
ROW_DESIGN = {"id": "_design/app", "key": "_design/app", "value": {"rev": REV_DESIGN}}
ROW_APPLE = {"id": "apple", "key": "apple", "value": {"rev": REV_APPLE}}
ROW_BANANA = {"id": "banana", "key": "banana", "value": {"rev": REV_BANANA}}
ROW_ECLAIR = {"id": "éclair", "key": "éclair", "value": {"rev": REV_ECLAIR}}
ROW_CHERRY_DELETED = {"id": "cherry", "key": "cherry", "value": {"rev": REV_CHERRY_TOMB, "deleted": True}}
ROW_NOPE = {"key": "nope", "error": "not_found"}

DOC_ZED = {"_id": "Zed", "_rev": REV_ZED, "n": 1}
DOC_DESIGN = {"_id": "_design/app", "_rev": REV_DESIGN, "language": "javascript"}
NOTE_STUB = {"content_type": "text/plain", "digest": "md5-SfaKXIST7CwL9ImCHCH8Ow==", "length": 2, "revpos": 1,
             "stub": True}
NOTE_DATA = {"content_type": "text/plain", "digest": "md5-SfaKXIST7CwL9ImCHCH8Ow==", "length": 2, "revpos": 1,
             "data": "aGk="}
DOC_APPLE = {"_id": "apple", "_rev": REV_APPLE, "n": 2, "_attachments": {"note.txt": NOTE_STUB}}
DOC_APPLE_DATA = {"_id": "apple", "_rev": REV_APPLE, "n": 2, "_attachments": {"note.txt": NOTE_DATA}}
DOC_BANANA = {"_id": "banana", "_rev": REV_BANANA, "n": 3}
DOC_BANANA_CONFLICTS = {"_id": "banana", "_rev": REV_BANANA, "n": 3, "_conflicts": [REV_BANANA_LOSER]}
DOC_ECLAIR = {"_id": "éclair", "_rev": REV_ECLAIR, "n": 5}


def with_doc(row: dict, doc: dict | None) -> dict:
    return {**row, "doc": doc}


@pytest.fixture(params=["file", "memory"], scope="module")
def db(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("all_docs") / "t39.sqlite" if request.param == "file" else ":memory:"
    database = Database(path)
    docs = [
        {"_id": "Zed", "_rev": REV_ZED, "n": 1},
        {"_id": "_design/app", "_rev": REV_DESIGN, "language": "javascript"},
        {"_id": "apple", "_rev": REV_APPLE, "n": 2,
         "_attachments": {"note.txt": {"content_type": "text/plain", "data": "aGk=", "revpos": 1}}},
        {"_id": "banana", "_revisions": {"start": 2, "ids": ["1b" * 16, "0b" * 16]}, "n": 3},
        {"_id": "banana", "_revisions": {"start": 2, "ids": ["0c" * 16, "0b" * 16]}, "n": 33},
        {"_id": "cherry", "_rev": "1-" + "d" * 32, "n": 4},
        {"_id": "cherry", "_revisions": {"start": 2, "ids": ["e" * 32, "d" * 32]}, "_deleted": True},
        {"_id": "éclair", "_rev": REV_ECLAIR, "n": 5},
    ]
    assert database.bulk_docs(docs, new_edits=False) == []
    database.put_local({"_id": "_local/secret", "hidden": True})
    assert database.info()["update_seq"] == 8
    yield database
    database.close()


ALL_ROWS = [ROW_ZED, ROW_DESIGN, ROW_APPLE, ROW_BANANA, ROW_ECLAIR]


def test_all_docs_default_output(db: Database) -> None:
    # Raw code-point order ("Zed" < "_design/app" < "apple" < … < "éclair"); deleted and _local excluded.
    assert db.all_docs() == {"total_rows": 5, "offset": 0, "rows": ALL_ROWS}


def test_all_docs_include_docs(db: Database) -> None:
    assert db.all_docs(include_docs=True) == {
        "total_rows": 5,
        "offset": 0,
        "rows": [
            with_doc(ROW_ZED, DOC_ZED),
            with_doc(ROW_DESIGN, DOC_DESIGN),
            with_doc(ROW_APPLE, DOC_APPLE),
            with_doc(ROW_BANANA, DOC_BANANA),
            with_doc(ROW_ECLAIR, DOC_ECLAIR),
        ],
    }


def test_all_docs_conflicts_only_with_include_docs(db: Database) -> None:
    assert db.all_docs(conflicts=True) == {"total_rows": 5, "offset": 0, "rows": ALL_ROWS}
    rows = db.all_docs(include_docs=True, conflicts=True)["rows"]
    assert rows == [
        with_doc(ROW_ZED, DOC_ZED),
        with_doc(ROW_DESIGN, DOC_DESIGN),
        with_doc(ROW_APPLE, DOC_APPLE),
        with_doc(ROW_BANANA, DOC_BANANA_CONFLICTS),
        with_doc(ROW_ECLAIR, DOC_ECLAIR),
    ]


def test_all_docs_attachments(db: Database) -> None:
    assert db.all_docs(attachments=True) == {"total_rows": 5, "offset": 0, "rows": ALL_ROWS}
    assert db.all_docs(include_docs=True, attachments=True, key="apple") == {
        "total_rows": 5, "offset": 2, "rows": [with_doc(ROW_APPLE, DOC_APPLE_DATA)]}
    assert db.all_docs(include_docs=True, attachments=False, key="apple")["rows"] == [with_doc(ROW_APPLE, DOC_APPLE)]


def test_all_docs_descending(db: Database) -> None:
    assert db.all_docs(descending=True) == {
        "total_rows": 5, "offset": 0, "rows": [ROW_ECLAIR, ROW_BANANA, ROW_APPLE, ROW_DESIGN, ROW_ZED]}


@pytest.mark.parametrize("name", ["startkey", "start_key"])
def test_all_docs_startkey(db: Database, name: str) -> None:
    assert db.all_docs(**{name: "apple"}) == {"total_rows": 5, "offset": 2, "rows": [ROW_APPLE, ROW_BANANA, ROW_ECLAIR]}
    # A startkey between ids, and one naming a deleted doc.
    assert db.all_docs(**{name: "b"}) == {"total_rows": 5, "offset": 3, "rows": [ROW_BANANA, ROW_ECLAIR]}
    assert db.all_docs(**{name: "cherry"}) == {"total_rows": 5, "offset": 4, "rows": [ROW_ECLAIR]}
    assert db.all_docs(**{name: "zzz"}) == {"total_rows": 5, "offset": 4, "rows": [ROW_ECLAIR]}
    assert db.all_docs(**{name: "\uffff"}) == {"total_rows": 5, "offset": 5, "rows": []}


@pytest.mark.parametrize("name", ["endkey", "end_key"])
def test_all_docs_endkey(db: Database, name: str) -> None:
    assert db.all_docs(**{name: "banana"}) == {
        "total_rows": 5, "offset": 0, "rows": [ROW_ZED, ROW_DESIGN, ROW_APPLE, ROW_BANANA]}
    assert db.all_docs(**{name: "_design/"}) == {"total_rows": 5, "offset": 0, "rows": [ROW_ZED]}
    assert db.all_docs(**{name: "Zed"}, startkey="Zed") == {"total_rows": 5, "offset": 0, "rows": [ROW_ZED]}


def test_all_docs_start_and_end_key_range(db: Database) -> None:
    assert db.all_docs(start_key="_design/", end_key="apple") == {
        "total_rows": 5, "offset": 1, "rows": [ROW_DESIGN, ROW_APPLE]}
    # startkey above endkey walking forward matches nothing.
    assert db.all_docs(startkey="banana", endkey="apple")["rows"] == []


def test_all_docs_inclusive_end_ascending(db: Database) -> None:
    assert db.all_docs(endkey="banana", inclusive_end=True)["rows"] == [ROW_ZED, ROW_DESIGN, ROW_APPLE, ROW_BANANA]
    assert db.all_docs(endkey="banana", inclusive_end=False) == {
        "total_rows": 5, "offset": 0, "rows": [ROW_ZED, ROW_DESIGN, ROW_APPLE]}
    assert db.all_docs(startkey="apple", endkey="apple", inclusive_end=False)["rows"] == []


def test_all_docs_descending_swaps_the_bounds_and_inclusive_end(db: Database) -> None:
    # Descending walks from startkey down to endkey: startkey is the upper bound.
    assert db.all_docs(descending=True, startkey="banana", endkey="Zed") == {
        "total_rows": 5, "offset": 1, "rows": [ROW_BANANA, ROW_APPLE, ROW_DESIGN, ROW_ZED]}
    assert db.all_docs(descending=True, startkey="banana", endkey="Zed", inclusive_end=False) == {
        "total_rows": 5, "offset": 1, "rows": [ROW_BANANA, ROW_APPLE, ROW_DESIGN]}
    assert db.all_docs(descending=True, endkey="apple") == {
        "total_rows": 5, "offset": 0, "rows": [ROW_ECLAIR, ROW_BANANA, ROW_APPLE]}
    assert db.all_docs(descending=True, end_key="apple", inclusive_end=False)["rows"] == [ROW_ECLAIR, ROW_BANANA]
    assert db.all_docs(descending=True, start_key="c") == {
        "total_rows": 5, "offset": 1, "rows": [ROW_BANANA, ROW_APPLE, ROW_DESIGN, ROW_ZED]}


def test_all_docs_key(db: Database) -> None:
    assert db.all_docs(key="apple") == {"total_rows": 5, "offset": 2, "rows": [ROW_APPLE]}
    assert db.all_docs(key="apple", include_docs=True)["rows"] == [with_doc(ROW_APPLE, DOC_APPLE)]
    # A deleted doc and an unknown id give no row (only `keys` reports them).
    assert db.all_docs(key="cherry") == {"total_rows": 5, "offset": 4, "rows": []}
    assert db.all_docs(key="nope") == {"total_rows": 5, "offset": 4, "rows": []}
    assert db.all_docs(key="_local/secret")["rows"] == []
    assert db.all_docs(key="apple", inclusive_end=False)["rows"] == [ROW_APPLE]  # key wins over inclusive_end
    assert db.all_docs(key="apple", descending=True)["rows"] == [ROW_APPLE]


def test_all_docs_keys_rows_follow_key_order(db: Database) -> None:
    keys = ["banana", "cherry", "nope", "Zed", "banana", "_local/secret"]
    assert db.all_docs(keys=keys) == {
        "total_rows": 5,
        "offset": None,  # CouchDB sends null with keys
        "rows": [ROW_BANANA, ROW_CHERRY_DELETED, ROW_NOPE, ROW_ZED, ROW_BANANA,
                 {"key": "_local/secret", "error": "not_found"}],
    }
    assert db.all_docs(keys=[]) == {"total_rows": 5, "offset": None, "rows": []}


def test_all_docs_keys_include_docs(db: Database) -> None:
    assert db.all_docs(keys=["banana", "cherry", "nope", "apple"], include_docs=True, conflicts=True)["rows"] == [
        with_doc(ROW_BANANA, DOC_BANANA_CONFLICTS),
        with_doc(ROW_CHERRY_DELETED, None),  # deleted: value.deleted and doc null
        ROW_NOPE,  # unknown: no doc member at all
        with_doc(ROW_APPLE, DOC_APPLE),
    ]
    assert db.all_docs(keys=["apple"], include_docs=True, attachments=True)["rows"] == [
        with_doc(ROW_APPLE, DOC_APPLE_DATA)]


def test_all_docs_keys_with_descending_skip_and_limit(db: Database) -> None:
    keys = ["banana", "cherry", "nope", "Zed"]
    assert db.all_docs(keys=keys, descending=True)["rows"] == [ROW_ZED, ROW_NOPE, ROW_CHERRY_DELETED, ROW_BANANA]
    assert db.all_docs(keys=keys, skip=1, limit=2) == {
        "total_rows": 5, "offset": None, "rows": [ROW_CHERRY_DELETED, ROW_NOPE]}
    # Reverse first, then slice (CouchDB's order of operations).
    assert db.all_docs(keys=keys, descending=True, skip=1, limit=2)["rows"] == [ROW_NOPE, ROW_CHERRY_DELETED]
    assert db.all_docs(keys=keys, skip=10)["rows"] == []
    assert db.all_docs(keys=keys, limit=0)["rows"] == []


def test_all_docs_limit(db: Database) -> None:
    assert db.all_docs(limit=2) == {"total_rows": 5, "offset": 0, "rows": [ROW_ZED, ROW_DESIGN]}
    assert db.all_docs(limit=0) == {"total_rows": 5, "offset": 0, "rows": []}
    assert db.all_docs(limit=99)["rows"] == ALL_ROWS
    assert db.all_docs(limit=2, descending=True)["rows"] == [ROW_ECLAIR, ROW_BANANA]


def test_all_docs_skip(db: Database) -> None:
    assert db.all_docs(skip=2) == {"total_rows": 5, "offset": 2, "rows": [ROW_APPLE, ROW_BANANA, ROW_ECLAIR]}
    assert db.all_docs(skip=10) == {"total_rows": 5, "offset": 5, "rows": []}
    assert db.all_docs(skip=0) == {"total_rows": 5, "offset": 0, "rows": ALL_ROWS}
    # offset counts the rows before startkey plus the skip.
    assert db.all_docs(startkey="_design/app", skip=1, limit=2) == {
        "total_rows": 5, "offset": 2, "rows": [ROW_APPLE, ROW_BANANA]}
    assert db.all_docs(descending=True, skip=1, limit=1) == {"total_rows": 5, "offset": 1, "rows": [ROW_BANANA]}


def test_all_docs_update_seq(db: Database) -> None:
    assert db.all_docs(update_seq=True) == {"total_rows": 5, "offset": 0, "rows": ALL_ROWS, "update_seq": 8}
    assert "update_seq" not in db.all_docs(update_seq=False)
    assert db.all_docs(keys=["Zed"], update_seq=True) == {
        "total_rows": 5, "offset": None, "rows": [ROW_ZED], "update_seq": 8}


def test_all_docs_total_rows_counts_live_docs_including_design_docs(db: Database) -> None:
    assert db.all_docs(limit=0)["total_rows"] == db.info()["doc_count"] == 5


@pytest.mark.parametrize(
    "options",
    [
        {"keys": ["a"], "key": "a"},
        {"keys": ["a"], "startkey": "a"},
        {"keys": ["a"], "start_key": "a"},
        {"keys": ["a"], "endkey": "a"},
        {"keys": ["a"], "end_key": "a"},
        {"skip": -1},
        {"limit": -1},
        {"limit": "2"},
        {"skip": 1.5},
        {"limit": True},
        {"include_docs": "true"},
        {"conflicts": 1},
        {"attachments": "yes"},
        {"descending": 1},
        {"inclusive_end": "false"},
        {"update_seq": 0},
        {"keys": "banana"},
        {"startkey": 5},
        {"key": ["a"]},
        {"reduce": False},
    ],
)
def test_all_docs_bad_options_are_400(db: Database, options: dict[str, Any]) -> None:
    with pytest.raises(BadRequest) as caught:
        db.all_docs(**options)
    assert caught.value.status == 400
    assert caught.value.error == "bad_request"
    # The stream refuses at call time, before any chunk is produced.
    with pytest.raises(BadRequest):
        db.all_docs_stream(**options)


STREAM_OPTIONS = [
    {},
    {"include_docs": True},
    {"include_docs": True, "conflicts": True, "attachments": True},
    {"descending": True, "skip": 1, "limit": 3},
    {"startkey": "apple", "endkey": "banana", "inclusive_end": False},
    {"descending": True, "start_key": "banana", "end_key": "Zed", "update_seq": True},
    {"key": "apple"},
    {"key": "nope"},
    {"keys": ["banana", "cherry", "nope", "Zed"], "include_docs": True},
    {"keys": ["banana", "cherry"], "descending": True, "update_seq": True},
    {"limit": 0},
]


@pytest.mark.parametrize("options", STREAM_OPTIONS, ids=[json.dumps(o, sort_keys=True) for o in STREAM_OPTIONS])
def test_all_docs_stream_yields_exactly_the_json_of_all_docs(db: Database, options: dict[str, Any]) -> None:
    chunks = list(db.all_docs_stream(**options))
    assert all(isinstance(chunk, str) for chunk in chunks)
    assert json.loads("".join(chunks)) == db.all_docs(**options)


def test_all_docs_stream_reads_one_snapshot(tmp_path) -> None:
    db = Database(tmp_path / "snap.sqlite")
    try:
        db.bulk_docs([{"_id": f"d{i:03d}"} for i in range(50)])
        stream = db.all_docs_stream(include_docs=True)
        first = next(stream)
        db.bulk_docs([{"_id": f"e{i:03d}"} for i in range(50)])  # written while the stream is open
        result = json.loads(first + "".join(stream))
        assert result["total_rows"] == 50
        assert [row["id"] for row in result["rows"]] == [f"d{i:03d}" for i in range(50)]
        assert db.all_docs()["total_rows"] == 100
    finally:
        db.close()
