"""``?locale=`` of ``/game-export`` (docs/api.md): the localized export, its errors, and the
API's export cache keeping locales and translation edits apart."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from storyloom.l10n.translations import write_entry
from storyloom.project import script_line_ids
from storyloom.project.manager import ProjectManager
from tests.api.support import Harness, running_server

TEXT = "::Ann:: Good morning.\n::Bob:: Bye.\n"


@pytest.fixture
def served(storyloom_home: Any) -> Iterator[tuple[Harness, str, list[str]]]:
    project = ProjectManager(username="ana").create("Saga")
    try:
        project.editor.update_settings({"targetLocales": ["fr", "pt-BR"]})
        script_id = project.editor.create("Script", "Intro", content={"script": TEXT}).id
        ids = script_line_ids(project.editor.get(script_id))
        write_entry(project.editor, "fr", script_id, "Intro", ids[0], "Bonjour.", "Good morning.")
        with running_server(project, navigation=None) as harness:
            yield harness, script_id, ids
    finally:
        project.close()


def _texts(response: Any) -> list[str]:
    assert response.status_code == 200, response.text
    return [line["text"] for line in response.json()["scripts"][0]["content"]["lines"]]


def test_game_export_locale(served: tuple[Harness, str, list[str]]) -> None:
    api, script_id, ids = served
    assert _texts(api.get("/game-export?locale=fr")) == ["Bonjour.", "Bye."]
    assert _texts(api.get("/game-export")) == ["Good morning.", "Bye."]  # the cache keeps the two apart
    assert _texts(api.get("/game-export?locale=FR")) == ["Bonjour.", "Bye."]
    assert _texts(api.get("/game-export?locale=en")) == ["Good morning.", "Bye."]
    meta = api.get("/game-export?locale=fr").json()["_meta"]
    assert meta["localization"] == {"locale": "fr", "sourceLocale": "en", "lines": 2, "translated": 1,
                                    "needsReview": 0, "untranslated": 1}
    assert "localization" not in api.get("/game-export").json()["_meta"]
    # a translation written since: the cache answers the new one (the update seq moved)
    write_entry(api.project.editor, "fr", script_id, "Intro", ids[1], "Au revoir.", "Bye.")
    assert _texts(api.get("/game-export?locale=fr")) == ["Bonjour.", "Au revoir."]
    assert api.client.head("/game-export?locale=fr").status_code == 200


def test_an_unknown_locale_is_a_400_naming_the_projects_locales(served: tuple[Harness, str, list[str]]) -> None:
    api, _, _ = served
    for query in ("locale=de", "locale=", "locale=fr&locale=fr"):
        response = api.get(f"/game-export?{query}")
        assert response.status_code == 400, (query, response.text)
        body = response.json()
        assert body["error"] == "bad_request"
        assert body["reason"].startswith("invalid query parameter 'locale': "), body
    reason = api.get("/game-export?locale=de").json()["reason"]
    assert "'de' is not one of the project's locales (source en; targets fr, pt-BR)" in reason
    assert api.get("/schema-export?locale=fr").status_code == 400  # the schema takes no locale
