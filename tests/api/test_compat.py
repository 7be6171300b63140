"""``?compat=`` of ``/game-export`` and ``/schema-export`` (docs/api.md)."""

from __future__ import annotations

from typing import Any

from storyloom.export.compat import DRAFFT_VERSION


def test_compat_drafft_adds_the_version_and_the_schema_requires_it(api: Any) -> None:
    plain = api.get("/game-export")
    compat = api.get("/game-export?compat=drafft")
    plain_again = api.get("/game-export")  # the cache keeps the two apart
    none = api.get("/game-export?compat=none")
    assert plain.status_code == compat.status_code == plain_again.status_code == none.status_code == 200
    assert compat.json()["_meta"]["drafftVersion"] == DRAFFT_VERSION
    for response in (plain, plain_again, none):
        assert "drafftVersion" not in response.json()["_meta"]
    assert compat.json()["scripts"] == plain.json()["scripts"]

    schema = api.get("/schema-export?compat=drafft").json()
    assert "drafftVersion" in schema["properties"]["_meta"]["required"]
    assert "drafftVersion" not in api.get("/schema-export").json()["properties"]["_meta"]["required"]
    assert "drafftVersion" in api.get("/schema-export?compat=drafft&collections=Items").json()[
        "properties"]["_meta"]["required"]


def test_the_setting_applies_unless_the_request_says_none(api: Any) -> None:
    api.project.editor.update_settings({"exportCompat": "drafft"})
    assert api.get("/game-export").json()["_meta"]["drafftVersion"] == DRAFFT_VERSION
    assert "drafftVersion" not in api.get("/game-export?compat=none").json()["_meta"]


def test_an_unknown_compat_value_is_a_400(api: Any) -> None:
    for path in ("/game-export", "/schema-export"):
        for query in ("compat=godot", "compat=", "compat=DRAFFT", "compat=drafft&compat=drafft"):
            response = api.get(f"{path}?{query}")
            assert response.status_code == 400, (path, query, response.text)
            body = response.json()
            assert body["error"] == "bad_request"
            assert body["reason"].startswith("invalid query parameter 'compat': ")
        assert "allowed values: drafft, none" in api.get(f"{path}?compat=godot").json()["reason"]
    # Checked after `collections`, like the other parameters, and before the project.
    assert api.get("/game-export?collections=Nope&compat=godot").json()["error"] == "unknown_collections"


def test_openapi_states_the_allowed_values(api: Any) -> None:
    doc = api.get("/openapi.json").json()
    for path in ("/game-export", "/schema-export"):
        for method in ("get", "head"):
            params = {p["name"]: p for p in doc["paths"][path][method]["parameters"]}
            assert params["compat"]["schema"] == {"type": "string", "enum": ["drafft", "none"]}
            assert params["compat"]["in"] == "query" and not params["compat"].get("required")
