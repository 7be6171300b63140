"""``GET /attachments/{doc_id}/{name}``: an attachment's bytes over real HTTP, on the Garden sample."""

from __future__ import annotations

import base64
import json
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from tests.api.support import GARDEN

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


def _fixture_attachments() -> list[tuple[str, str, dict[str, Any]]]:
    """(document id, attachment name, the fixture's attachment entry) of the Garden's Attachment docs."""
    rows = json.loads(GARDEN.read_text(encoding="utf-8"))["rows"]
    return [
        (row["doc"]["_id"], name, meta)
        for row in rows
        if row["doc"].get("type") == "Attachment"
        for name, meta in (row["doc"].get("_attachments") or {}).items()
    ]


def _url(doc_id: str, name: str) -> str:
    return f"/attachments/{quote(doc_id, safe='')}/{quote(name, safe='')}"


def _assert_error(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    assert set(body) == {"error", "reason"} and body["error"] == code
    return body


def test_the_fixture_has_attachment_documents():
    assert len(_fixture_attachments()) >= 5


def test_every_attachment_of_the_fixture_is_served_byte_for_byte(shared_api):
    for doc_id, name, meta in _fixture_attachments():
        response = shared_api.get(_url(doc_id, name))
        assert response.status_code == 200, (doc_id, response.text)
        expected = base64.b64decode(meta["data"])
        assert response.content == expected, doc_id
        assert response.headers["content-type"] == meta["content_type"]
        assert response.headers["content-length"] == str(len(expected))
        stored = shared_api.project.store.get(doc_id)["_attachments"][name]
        assert response.headers["etag"] == f'"{stored["digest"]}"'
        assert response.headers.get_list("cache-control") == ["no-cache"]  # not also no-store
        assert response.headers["x-content-type-options"] == "nosniff"


def test_if_none_match_with_the_etag_is_a_304(shared_api):
    doc_id, name, _meta = _fixture_attachments()[0]
    etag = shared_api.get(_url(doc_id, name)).headers["etag"]
    for header in (etag, f"W/{etag}", f'"other", {etag}', "*"):
        response = shared_api.get(_url(doc_id, name), headers={"if-none-match": header})
        assert response.status_code == 304, header
        assert response.content == b""
        assert response.headers["etag"] == etag
        assert response.headers["cache-control"] == "no-cache"
    assert shared_api.get(_url(doc_id, name), headers={"if-none-match": '"other"'}).status_code == 200


def test_ids_and_names_with_slashes_spaces_and_accents(api):
    doc_id, name = "act/1", "expression défaut/1.png"
    api.project.store.put({"_id": doc_id, "type": "Attachment", "_attachments": {
        name: {"content_type": "image/png", "data": base64.b64encode(PNG).decode()},
    }})
    response = api.get(_url(doc_id, name))
    assert response.status_code == 200, response.text
    assert response.content == PNG
    assert response.headers["content-type"] == "image/png"
    # Unquoted, the slashes make other paths: no such endpoint.
    body = _assert_error(api.get(f"/attachments/{doc_id}/{name}"), 404, "not_found")
    assert "no endpoint" in body["reason"]


def test_the_winning_revision_is_served_and_its_etag_changes(api):
    doc_id, name, _meta = _fixture_attachments()[0]
    before = api.get(_url(doc_id, name))
    doc = api.project.store.get(doc_id)
    doc["_attachments"] = {name: {"content_type": "image/png", "data": base64.b64encode(PNG).decode()}}
    api.project.store.put(doc)
    after = api.get(_url(doc_id, name))
    assert after.content == PNG and after.headers["content-type"] == "image/png"
    assert after.headers["etag"] != before.headers["etag"]
    revalidated = api.get(_url(doc_id, name), headers={"if-none-match": before.headers["etag"]})
    assert revalidated.status_code == 200 and revalidated.content == PNG


def test_an_unusable_content_type_is_served_as_octet_stream(api):
    api.project.store.put({"_id": "odd-type", "_attachments": {
        "a.bin": {"content_type": "not a media type", "data": base64.b64encode(b"\x00\x01").decode()},
    }})
    response = api.get(_url("odd-type", "a.bin"))
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/octet-stream"
    assert response.content == b"\x00\x01"


def test_unknown_document_or_attachment_is_a_404(api):
    doc_id, name, _meta = _fixture_attachments()[0]
    body = _assert_error(api.get(_url("no-such-doc", "blob")), 404, "not_found")
    assert "no document with id 'no-such-doc'" in body["reason"]
    body = _assert_error(api.get(_url(doc_id, "nope.png")), 404, "not_found")
    assert "no attachment named 'nope.png'" in body["reason"] and repr(name) in body["reason"]
    script = next(r["doc"] for r in api.project.store.all_docs(include_docs=True)["rows"]
                  if r["doc"].get("type") == "Script")
    body = _assert_error(api.get(_url(script["_id"], "blob")), 404, "not_found")
    assert "its attachments: none" in body["reason"]
    doc = api.project.store.get(doc_id)
    api.project.store.remove(doc_id, doc["_rev"])
    body = _assert_error(api.get(_url(doc_id, name)), 404, "not_found")
    assert "deleted" in body["reason"]


@pytest.mark.parametrize("doc_id", ["_design/idx", "_local/remote", "_all_docs"])
def test_design_local_and_reserved_ids_are_a_400(api, doc_id):
    api.project.store.put({"_id": "_design/idx", "views": {},
                        "_attachments": {"a.txt": {"content_type": "text/plain", "data": "aGk="}}})
    body = _assert_error(api.get(_url(doc_id, "a.txt")), 400, "bad_request")
    assert repr(doc_id) in body["reason"]


def test_attachments_need_the_key(shared_api):
    doc_id, name, _meta = _fixture_attachments()[0]
    response = httpx.get(shared_api.url + _url(doc_id, name), timeout=20)
    _assert_error(response, 401, "unauthorized")


def test_head_gives_the_headers_without_the_bytes(shared_api):
    doc_id, name, _meta = _fixture_attachments()[0]
    get = shared_api.get(_url(doc_id, name))
    head = shared_api.client.head(_url(doc_id, name))
    assert head.status_code == 200 and head.content == b""
    for header in ("content-type", "content-length", "etag", "cache-control"):
        assert head.headers[header] == get.headers[header]


def test_the_game_export_stubs_resolve_to_their_bytes(api):
    """The attachment stubs of the game export name a path of this endpoint."""
    item = next(r["doc"] for r in api.project.store.all_docs(include_docs=True)["rows"]
                if r["doc"].get("type") == "Item")
    item["_attachments"] = {"icon large.png": {"content_type": "image/png",
                                               "data": base64.b64encode(PNG).decode()}}
    api.project.store.put(item)
    export = api.get("/game-export?collections=Items").json()
    stubs = [(doc["_id"], name, stub) for doc in export["items"]
             for name, stub in (doc.get("_attachments") or {}).items()]
    assert [(doc_id, name) for doc_id, name, _stub in stubs] == [(item["_id"], "icon large.png")]
    prefix = "storyloom://attachment/"
    for doc_id, name, stub in stubs:
        assert stub["permalink"].startswith(prefix)
        path = "/attachments/" + stub["permalink"][len(prefix):]
        assert path == _url(doc_id, name)
        if "url" in stub:
            assert stub["url"] == path
        response = api.get(path)
        assert response.status_code == 200
        assert response.content == PNG
        assert response.headers["etag"] == f'"{stub["digest"]}"'
