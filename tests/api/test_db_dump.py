"""``/db-dump``: each ``_all_docs`` option against the same call on the store."""

from __future__ import annotations

import json
from typing import Any

import pytest


@pytest.fixture(scope="module")
def dump_api(shared_api):
    """The Garden project plus what the sample lacks: a conflict, a deleted doc, design and local docs."""
    db = shared_api.project.store
    db.bulk_docs(
        [{"_id": "zz-conflicted", "_rev": "1-" + "a" * 32, "type": "Misc", "n": 1},
         {"_id": "zz-conflicted", "_rev": "1-" + "b" * 32, "type": "Misc", "n": 2}],
        new_edits=False,
    )
    gone = db.put({"_id": "zz-gone", "type": "Misc"})
    db.remove("zz-gone", gone["rev"])
    db.put({"_id": "_design/idx-x", "views": {}})
    db.put_local({"_id": "_local/remote-settings", "password": "hunter2"})
    db.put({"_id": "zz-odd", "type": "Misc", "name": "half \ud800 of a pair, é"})
    return shared_api


def test_a_lone_surrogate_is_dumped_as_its_escape_in_valid_utf8(dump_api) -> None:
    response = dump_api.get("/db-dump", params={"include_docs": "true", "key": '"zz-odd"'})
    assert response.status_code == 200
    body = response.content
    assert b"\\ud800" in body and "é".encode() in body
    assert json.loads(body.decode("utf-8"))["rows"][0]["doc"]["name"] == "half \ud800 of a pair, é"


def _ids(project: Any) -> list[str]:
    return [row["id"] for row in project.store.all_docs()["rows"]]


def _case(ids: list[str]) -> list[tuple[dict[str, str], dict[str, Any]]]:
    """(query string parameters, the same options as Python values)."""
    a, b, c = ids[2], ids[len(ids) // 2], ids[-3]
    q = json.dumps
    return [
        ({}, {}),
        ({"include_docs": "false"}, {"include_docs": False}),
        ({"include_docs": "FALSE"}, {"include_docs": False}),
        ({"attachments": "false"}, {"attachments": False}),
        ({"include_docs": "true", "attachments": "True"}, {}),
        ({"conflicts": "true"}, {"conflicts": True}),
        ({"descending": "true"}, {"descending": True}),
        ({"startkey": q(a)}, {"startkey": a}),
        ({"start_key": q(a)}, {"start_key": a}),
        ({"endkey": q(b)}, {"endkey": b}),
        ({"end_key": q(b)}, {"end_key": b}),
        ({"startkey": q(a), "endkey": q(b)}, {"startkey": a, "endkey": b}),
        ({"startkey": q(a), "endkey": q(b), "inclusive_end": "false"},
         {"startkey": a, "endkey": b, "inclusive_end": False}),
        ({"descending": "true", "startkey": q(c), "endkey": q(a)},
         {"descending": True, "startkey": c, "endkey": a}),
        ({"key": q(b)}, {"key": b}),
        ({"key": q("missing-id")}, {"key": "missing-id"}),
        ({"keys": q([c, "missing-id", "zz-gone", a])}, {"keys": [c, "missing-id", "zz-gone", a]}),
        ({"keys": q([a, c]), "descending": "true"}, {"keys": [a, c], "descending": True}),
        ({"limit": "3"}, {"limit": 3}),
        ({"limit": "0"}, {"limit": 0}),
        ({"skip": "4"}, {"skip": 4}),
        ({"skip": "2", "limit": "2", "descending": "true"}, {"skip": 2, "limit": 2, "descending": True}),
        ({"update_seq": "true"}, {"update_seq": True}),
        ({"include_docs": "false", "keys": q([a, "zz-gone"])}, {"include_docs": False, "keys": [a, "zz-gone"]}),
        ({"limit": "99999999999999999999"}, {}),
    ]


def test_every_option_matches_the_store(dump_api):
    db = dump_api.project.store
    for params, options in _case(_ids(dump_api.project)):
        response = dump_api.get("/db-dump", params=params)
        assert response.status_code == 200, (params, response.text)
        expected = db.all_docs(**{"include_docs": True, "attachments": True, **options})
        assert response.json() == expected, params


def test_defaults_are_include_docs_and_attachments(dump_api):
    rows = dump_api.get("/db-dump").json()["rows"]
    assert all("doc" in row for row in rows)
    with_attachments = [row["doc"] for row in rows if row["doc"].get("_attachments")]
    assert with_attachments, "the Garden sample has attachments"
    for doc in with_attachments:
        for meta in doc["_attachments"].values():
            assert "data" in meta and "stub" not in meta


def test_local_documents_never_appear(dump_api):
    for params in ({}, {"keys": json.dumps(["_local/remote-settings"])}, {"startkey": json.dumps("_")}):
        text = dump_api.get("/db-dump", params=params).text
        assert "hunter2" not in text
        assert '"_local/remote-settings","key"' not in text.replace(" ", "")
        body = json.loads(text)
        for row in body["rows"]:
            assert "doc" not in row or row["doc"] is None or not row["doc"]["_id"].startswith("_local/")
    assert dump_api.get("/db-dump", params={"key": json.dumps("_local/remote-settings")}).json()["rows"] == []


def test_the_response_is_streamed(dump_api):
    with dump_api.client.stream("GET", "/db-dump") as response:
        assert response.status_code == 200
        assert response.headers.get("transfer-encoding") == "chunked"
        assert "content-length" not in response.headers
        text = b"".join(response.iter_bytes()).decode()
    assert json.loads(text)["total_rows"] == dump_api.project.store.info()["doc_count"]


@pytest.mark.parametrize(
    ("params", "name"),
    [
        ({"include_docs": "yes"}, "include_docs"),
        ({"attachments": "1"}, "attachments"),
        ({"conflicts": ""}, "conflicts"),
        ({"descending": "tru"}, "descending"),
        ({"inclusive_end": "null"}, "inclusive_end"),
        ({"update_seq": "on"}, "update_seq"),
        ({"limit": "-1"}, "limit"),
        ({"limit": "ten"}, "limit"),
        ({"limit": "1.5"}, "limit"),
        ({"skip": "-3"}, "skip"),
        ({"skip": ""}, "skip"),
        ({"startkey": "abc"}, "startkey"),
        ({"start_key": "{"}, "start_key"),
        ({"endkey": "'a'"}, "endkey"),
        ({"end_key": ""}, "end_key"),
        ({"key": "abc"}, "key"),
        ({"keys": "abc"}, "keys"),
        ({"keys": '"a"'}, "keys"),
        ({"keys": '{"a": 1}'}, "keys"),
        ({"startkey": "3"}, "startkey"),
        ({"key": "[1]"}, "key"),
        ({"includedocs": "true"}, "includedocs"),
    ],
)
def test_a_bad_value_is_a_400_naming_the_parameter(dump_api, params, name):
    response = dump_api.get("/db-dump", params=params)
    assert response.status_code == 400, response.text
    body = response.json()
    assert set(body) == {"error", "reason"}
    assert body["error"] == "bad_request"
    assert name in body["reason"]


def test_a_repeated_parameter_is_a_400(dump_api):
    response = dump_api.get("/db-dump?limit=1&limit=2")
    assert response.status_code == 400
    assert "'limit'" in response.json()["reason"]


def test_incompatible_options_are_a_400(dump_api):
    response = dump_api.get("/db-dump", params={"keys": '["a"]', "key": '"a"'})
    assert response.status_code == 400
    assert "keys" in response.json()["reason"]


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("key", '"\\ud800"'),
        ("startkey", '"a\\udfff"'),
        ("start_key", '"\\ud800"'),
        ("endkey", '"\\udc00b"'),
        ("end_key", '"\\ud800"'),
        ("keys", '["ok", "\\ud800"]'),
        ("keys", '[{"\\ud800": 1}]'),
    ],
)
def test_a_lone_surrogate_is_a_400_naming_the_parameter(dump_api, name, value):
    """JSON accepts lone surrogate escapes; UTF-8 (and so the store) cannot: 400, not a 500."""
    response = dump_api.get("/db-dump", params={name: value})
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["error"] == "bad_request"
    assert body["reason"].startswith(f"invalid query parameter '{name}':")
    assert "not valid Unicode" in body["reason"]
    assert dump_api.get("/db-dump", params={"limit": "1"}).status_code == 200  # still serving


def test_valid_non_ascii_keys_still_work(dump_api):
    db = dump_api.project.store
    db.put({"_id": "zz-café-😀", "type": "Misc"})
    for params in ({"key": json.dumps("zz-café-😀")}, {"key": '"zz-caf\\u00e9-\\ud83d\\ude00"'},
                   {"keys": json.dumps(["zz-café-😀"])}):
        rows = dump_api.get("/db-dump", params=params).json()["rows"]
        assert [row["id"] for row in rows] == ["zz-café-😀"], params


def test_null_keys_mean_not_given_as_in_the_store(dump_api):
    db = dump_api.project.store
    for name in ("key", "startkey", "endkey"):
        response = dump_api.get("/db-dump", params={name: "null", "include_docs": "false"})
        assert response.status_code == 200
        assert response.json() == db.all_docs(**{name: None})


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("keys", "[" * 2000 + "]" * 2000),
        ("key", "[" * 2000 + "]" * 2000),
        ("keys", '[{"a":' * 600 + "1" + "}]" * 600),
        ("startkey", '{"a":' * 21 + "1" + "}" * 21),
        ("keys", "[" * 21 + "]" * 21),
    ],
)
def test_deeply_nested_json_is_a_400_not_a_recursion_error(dump_api, name, value):
    response = dump_api.get("/db-dump", params={name: value})
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["error"] == "bad_request"
    assert body["reason"].startswith(f"invalid query parameter '{name}': arrays or objects nested deeper than 20")


def test_nesting_up_to_the_bound_and_brackets_inside_ids_are_accepted(dump_api):
    nested = dump_api.get("/db-dump", params={"keys": json.dumps([[[["x"]]], "[" * 50]), "include_docs": "false"})
    assert nested.status_code == 200, nested.text
    assert [row.get("error") for row in nested.json()["rows"]] == ["not_found", "not_found"]
    at_bound = dump_api.get("/db-dump", params={"keys": "[" * 20 + "]" * 20})
    assert at_bound.status_code == 200, at_bound.text
