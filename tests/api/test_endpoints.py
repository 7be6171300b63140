"""Every endpoint over real HTTP, on the Garden sample project (Drafft import)."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx
import pytest

import storyloom
from storyloom.api.endpoints import API_VERSION
from storyloom.project.collections import EXPORT_NAMES
from tests.api.support import KEY


def _without_time(payload: dict[str, Any]) -> dict[str, Any]:
    payload = json.loads(json.dumps(payload))
    payload.get("_meta", {}).pop("exportedAt", None)
    return payload


def _settings_doc(project: Any) -> dict[str, Any]:
    return project.store.get("ProjectSettings")


# ---------------------------------------------------------------------- /info


def test_info_describes_app_user_project_and_collections(api):
    response = api.get("/info")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert body["app"] == {"name": "Storyloom", "version": storyloom.__version__}
    assert body["apiVersion"] == API_VERSION
    assert body["user"] == {"username": "tester"}
    settings = _settings_doc(api.project)
    assert body["project"]["id"] == api.project.id
    assert body["project"]["name"] == api.project.name
    assert body["project"]["description"] == settings["projectDescription"]
    assert body["project"]["version"] == settings["projectVersion"]
    assert body["collections"] == list(EXPORT_NAMES)
    shown = body["project"]["settings"]
    assert shown["projectName"] == settings["projectName"]
    assert not any(key.startswith("_") for key in shown)


def test_info_never_shows_secrets_or_machine_local_settings(api):
    settings = _settings_doc(api.project)
    settings.update({
        "remoteDbUrl": "http://couch.example:5984",
        "remoteDbUsername": "admin",
        "remoteDbPassword": "changeme",
        "dbName": "drafft_2_gof",
        "nested": {"apiKey": "k", "token": "t", "kept": 1},
    })
    api.project.store.put(settings)
    text = api.get("/info").text
    for secret in ("changeme", "remoteDb", "couch.example", "drafft_2_gof", "apiKey", "token", '"_rev"'):
        assert secret not in text
    assert api.get("/info").json()["project"]["settings"]["nested"] == {"kept": 1}


def test_info_and_the_export_hide_the_same_settings(api):
    settings = _settings_doc(api.project)
    settings.update({"smtpPasswd": "pw", "syncInterval": 5, "DBNAME": "x", "kept": True})
    api.project.store.put(settings)
    shown = api.get("/info").json()["project"]["settings"]
    exported = api.get("/game-export?collections=ProjectSettings").json()["projectSettings"][0]
    for hidden in ("smtpPasswd", "syncInterval", "DBNAME"):
        assert hidden not in shown and hidden not in exported
    assert shown["kept"] is True and exported["kept"] is True
    assert {k for k in exported if not k.startswith("_")} >= set(shown)


def test_info_username_follows_the_options(api):
    api.options.username = "renamed"
    assert api.get("/info").json()["user"] == {"username": "renamed"}


# ---------------------------------------------------------------------- /game-export


def test_game_export_equals_the_export_layer_payload(api):
    from storyloom.export.game_export import build_game_export

    response = api.get("/game-export")
    assert response.status_code == 200
    expected = build_game_export(api.project, None, "tester")
    assert _without_time(response.json()) == _without_time(expected)
    assert response.json()["_meta"]["exportedBy"] == "tester"


def test_game_export_bytes_are_the_cli_serialisation(api):
    from storyloom.export.game_export import build_game_export, dumps_export

    response = api.get("/game-export?collections=Scripts")
    expected = build_game_export(api.project, ["Scripts"], "tester")
    expected["_meta"]["exportedAt"] = response.json()["_meta"]["exportedAt"]
    assert response.text == dumps_export(expected)


@pytest.mark.parametrize("query", ["Scripts,Dialogues", " Scripts , Dialogues ", "dialogues,SCRIPTS"])
def test_game_export_collections_filter(api, query):
    from storyloom.export.game_export import build_game_export

    body = api.get("/game-export", params={"collections": query}).json()
    expected = build_game_export(api.project, ["Scripts", "Dialogues"], "tester")
    assert _without_time(body) == _without_time(expected)
    assert "scripts" in body and "dialogues" in body and "actors" not in body


@pytest.mark.parametrize("path", ["/game-export", "/schema-export"])
@pytest.mark.parametrize("query", ["Scripts,Nope", "", "Scripts,,Items", "Scripts,"])
def test_unknown_or_empty_collections_are_a_400_listing_valid_names(api, path, query):
    response = api.get(path, params={"collections": query})
    assert response.status_code == 400
    body = response.json()
    assert body["error"] == "unknown_collections"
    assert set(body) == {"error", "reason"}
    for name in EXPORT_NAMES:
        assert name in body["reason"]


# ---------------------------------------------------------------------- /schema-export


def test_schema_export_equals_the_export_layer_schema(api):
    from storyloom.export.schema_export import build_schema

    response = api.get("/schema-export")
    assert response.status_code == 200
    assert response.json() == json.loads(json.dumps(build_schema(api.project, None)))
    filtered = api.get("/schema-export?collections=Scripts").json()
    assert filtered == json.loads(json.dumps(build_schema(api.project, ["Scripts"])))


def test_schema_export_validates_the_game_export(api):
    import jsonschema

    schema = api.get("/schema-export?collections=Scripts,Dialogues").json()
    export = api.get("/game-export?collections=Scripts,Dialogues").json()
    jsonschema.Draft202012Validator(schema).validate(export)


# ---------------------------------------------------------------------- /navigate


def _first(project: Any, predicate) -> dict[str, Any]:
    for row in project.store.all_docs(include_docs=True)["rows"]:
        if predicate(row["doc"]):
            return row["doc"]
    raise AssertionError("no such document in the fixture")


@pytest.mark.parametrize("collection", ["Script", "Dialogue", "Actor", "Gdd", "Item", "Variable", "Scenario"])
def test_navigate_opens_the_route_through_the_port(api, collection):
    doc = _first(api.project, lambda d: d.get("type") == collection)
    response = api.get("/navigate", params={"id": doc["_id"]})
    assert response.status_code == 200
    route = f"/{collection.lower()}/{doc['_id']}"
    assert response.json() == {"success": True, "id": doc["_id"], "collection": collection, "route": route}
    assert api.navigation.calls == [(route, doc["_id"])]


def test_navigate_headless_is_409_with_success_false(headless):
    doc = _first(headless.project, lambda d: d.get("type") == "Script")
    response = headless.get("/navigate", params={"id": doc["_id"]})
    assert response.status_code == 409
    body = response.json()
    assert body["success"] is False
    assert body["error"] == "navigation_unavailable"
    assert "headless" in body["reason"]
    assert body["route"] == f"/script/{doc['_id']}"


def test_navigate_refused_by_the_app_is_409(api):
    api.navigation.refuse = "the editor is showing a modal dialog"
    doc = _first(api.project, lambda d: d.get("type") == "Gdd")
    response = api.get("/navigate", params={"id": doc["_id"]})
    assert response.status_code == 409
    assert response.json()["success"] is False
    assert "modal dialog" in response.json()["reason"]


@pytest.mark.parametrize("params", [{}, {"id": ""}])
def test_navigate_without_id_is_400(api, params):
    response = api.get("/navigate", params=params)
    assert response.status_code == 400
    body = response.json()
    assert body["error"] == "bad_request" and "'id'" in body["reason"] and body["success"] is False
    assert api.navigation.calls == []


def test_navigate_unknown_or_deleted_id_is_404(api):
    response = api.get("/navigate", params={"id": "no-such-doc"})
    assert response.status_code == 404
    assert response.json()["error"] == "not_found" and response.json()["success"] is False
    doc = _first(api.project, lambda d: d.get("type") == "Item")
    api.project.store.remove(doc["_id"], doc["_rev"])
    response = api.get("/navigate", params={"id": doc["_id"]})
    assert response.status_code == 404
    assert "deleted" in response.json()["reason"]
    assert api.navigation.calls == []


def test_navigate_refuses_what_is_not_a_document(api):
    api.project.store.put({"_id": "_design/idx", "views": {}})
    api.project.store.put_local({"_id": "_local/remote", "url": "x"})
    folder = _first(api.project, lambda d: d.get("type") == "Folder")
    attachment = _first(api.project, lambda d: d.get("type") == "Attachment")
    user = _first(api.project, lambda d: d.get("type") == "User")
    for doc_id in ("_design/idx", "_local/remote", "_local/missing", folder["_id"], attachment["_id"],
                   user["_id"], "ProjectSettings"):
        response = api.get("/navigate", params={"id": doc_id})
        assert response.status_code == 400, doc_id
        body = response.json()
        assert body["error"] == "not_navigable"
        assert body["reason"].startswith("only documents can be navigated to")
        assert body["success"] is False
    assert api.navigation.calls == []


def test_not_navigable_reasons_name_what_the_document_is(api):
    db = api.project.store
    folder = _first(api.project, lambda d: d.get("type") == "Folder")
    attachment = _first(api.project, lambda d: d.get("type") == "Attachment")
    user = _first(api.project, lambda d: d.get("type") == "User")
    db.put({"_id": "odd-one", "type": "Blueprint"})
    db.put({"_id": "untyped-one", "name": "no type"})
    db.put({"_id": "l10n.fr.x", "type": "Translation", "collection": "Translation", "locale": "fr",
            "document": "x", "content": {"entries": {}}})
    prefix = "only documents can be navigated to: "
    expected = {
        "ProjectSettings": "'ProjectSettings' is the project settings, which are edited in the settings "
                           "dialog, not in a tab",
        folder["_id"]: f"{folder['_id']!r} is a folder, which does not open in a tab",
        attachment["_id"]: f"{attachment['_id']!r} is an attachment (a file stored in the project), which "
                           "does not open in a tab",
        user["_id"]: f"{user['_id']!r} is a user, which does not open in a tab",
        "odd-one": "'odd-one' is a document of type 'Blueprint', which does not open in a tab",
        "untyped-one": "'untyped-one' is a document without a type or collection, which does not open in a tab",
        "_design/idx": "'_design/idx' is a design document",
        "l10n.fr.x": "'l10n.fr.x' is a translation (its lines show in the Localization view; navigate to "
                     "the translated document 'x' instead), which does not open in a tab",
    }
    for doc_id, reason in expected.items():
        body = api.get("/navigate", params={"id": doc_id}).json()
        assert body["reason"] == prefix + reason
        assert " a untyped" not in body["reason"] and " a Attachment" not in body["reason"]


# ---------------------------------------------------------------------- /openapi.json


def test_openapi_is_public_and_reveals_nothing_about_the_project(api):
    response = httpx.get(api.url + "/openapi.json")
    assert response.status_code == 200
    doc = response.json()
    assert doc["openapi"].startswith("3.")
    assert set(doc["paths"]) == {"/info", "/game-export", "/schema-export", "/db-dump", "/navigate",
                                 "/attachments/{doc_id}/{name}", "/events", "/openapi.json"}
    text = response.text
    settings = _settings_doc(api.project)
    for secret in (api.project.id, api.project.name, settings["projectName"], KEY, "tester"):
        assert secret not in text


def test_openapi_documents_every_error_and_the_key(api):
    doc = api.get("/openapi.json").json()
    assert doc["components"]["securitySchemes"]["apiKey"] == {
        "type": "apiKey", "in": "header", "name": "x-api-key",
        "description": doc["components"]["securitySchemes"]["apiKey"]["description"],
    }
    assert doc["security"] == [{"apiKey": []}]
    for path, item in doc["paths"].items():
        assert set(item) == {"get", "head"}, path  # every endpoint answers GET and HEAD
        operation = item["get"]
        statuses = set(operation["responses"])
        assert "422" not in statuses
        assert {"200", "403", "405"} <= statuses, path
        if path != "/openapi.json":
            assert {"400", "401", "503", "500"} <= statuses, path
        else:
            assert operation["security"] == []
        head = item["head"]
        assert set(head["responses"]) == statuses, path
        assert head["operationId"] != operation["operationId"]
        assert head.get("parameters") == operation.get("parameters"), path
        assert not any("content" in response for response in head["responses"].values()), path
    assert {"404", "409"} <= set(doc["paths"]["/navigate"]["get"]["responses"])
    assert {"304", "404"} <= set(doc["paths"]["/attachments/{doc_id}/{name}"]["get"]["responses"])
    navigate_errors = doc["paths"]["/navigate"]["get"]["responses"]
    for status in ("400", "401", "403", "404", "405", "409", "500", "503"):
        schema = navigate_errors[status]["content"]["application/json"]["schema"]
        assert schema == {"$ref": "#/components/schemas/NavigateErrorBody"}, status
    assert "success" in doc["components"]["schemas"]["NavigateErrorBody"]["required"]
    db_dump_params = {p["name"] for p in doc["paths"]["/db-dump"]["get"]["parameters"]}
    assert db_dump_params == {"include_docs", "attachments", "conflicts", "descending", "startkey", "start_key",
                              "endkey", "end_key", "key", "keys", "limit", "skip", "inclusive_end",
                              "update_seq"}
    error_schema = doc["components"]["schemas"]["ErrorBody"]
    assert set(error_schema["required"]) == {"error", "reason"}


# ---------------------------------------------------------------------- payload cache


def test_repeated_exports_are_fresh_after_every_change(api):
    from storyloom.export.game_export import build_game_export, dumps_export

    first = api.get("/game-export?collections=Items")
    time.sleep(0.005)
    second = api.get("/game-export?collections=Items")
    assert first.json()["_meta"]["exportedAt"] != second.json()["_meta"]["exportedAt"]
    expected = build_game_export(api.project, ["Items"], "tester")
    expected["_meta"]["exportedAt"] = second.json()["_meta"]["exportedAt"]
    assert second.text == dumps_export(expected)  # a cache hit has the exact CLI bytes
    # A committed change shows at once.
    item = _first(api.project, lambda d: d.get("type") == "Item")
    item["name"] = "Renamed by the test"
    api.project.store.put(item)
    names = [d.get("name") for d in api.get("/game-export?collections=Items").json()["items"]]
    assert "Renamed by the test" in names
    assert "Renamed by the test" in api.get("/db-dump").text
    # Settings are a document too: a new default selection shows at once.
    settings = _settings_doc(api.project)
    settings["exportSections"] = ["Actors"]
    api.project.store.put(settings)
    assert set(api.get("/game-export").json()) == {"_meta", "actors"}
    # A different user name is a different payload.
    api.options.username = "other"
    assert api.get("/game-export?collections=Items").json()["_meta"]["exportedBy"] == "other"


def test_repeated_schema_exports_follow_changes(api):
    from storyloom.export.schema_export import build_schema

    before = api.get("/schema-export").json()
    assert api.get("/schema-export").json() == before
    variable = _first(api.project, lambda d: d.get("type") == "Variable")
    api.project.store.remove(variable["_id"], variable["_rev"])
    after = api.get("/schema-export").json()
    assert after == json.loads(json.dumps(build_schema(api.project, None)))
