"""A translator and a writer on one team project through a real pouchdb-server (real HTTP, the
server's lock rules): the translator's translations sync while the writer edits the same
script, and both machines converge: the writer's edits and the translator's translations are
both kept, and the line the writer changed is to be reviewed on both machines
(docs/localization.md, "Review flags")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from storyloom.l10n.catalog import CatalogEntry
from storyloom.l10n.gather import catalog
from storyloom.l10n.importing import import_translations
from storyloom.l10n.translations import translation_id
from storyloom.project import list_conflicts
from storyloom.project.manager import Project, ProjectManager
from tests.l10n.conftest import read_file
from tests.support.couch import CouchServer, couch, couch_server  # noqa: F401
from tests.team.lock_clients import team_database
from tests.team.team_sessions import Team

pytestmark = pytest.mark.integration  # pouchdb-server, real HTTP

TEXT = "::Ann:: Good morning.\n::Bob:: Is it?\n::Ann:: It was.\n"


def _project(manager: ProjectManager) -> Project:
    project = manager.create("Saga")
    project.editor.update_settings({"targetLocales": ["fr"]})
    project.editor.create("Script", "Intro", content={"script": TEXT})
    return project


def _sync(session: Any) -> None:
    outcome = session.sync_once()
    for direction, status in outcome.parts:
        assert status.ok, (direction, status.last_error_message)


def _lines(session: Any) -> list[CatalogEntry]:
    return list(catalog(session.project, "fr").entries)


def test_a_translators_work_and_a_writers_edits_of_the_same_script_converge(
        tmp_path: Path, couch: CouchServer) -> None:  # noqa: F811
    team = Team(tmp_path, couch, team_database(couch, ["writer", "translator"]), make=_project, live=False)
    try:
        writer = team.open("writer")
        _sync(writer)  # the project goes to the server
        translator = team.open("translator")
        _sync(translator)
        doc_id = next(s.id for s in writer.index.summaries() if s.name == "Intro")
        good, is_it, was = _lines(translator)

        # Both work at once, each on their machine: the translator translates every line of
        # the script while the writer edits one of them and adds one above.
        report = import_translations(translator.project, read_file(
            "fr", (good.line_id, good.source, "Bonjour."), (is_it.line_id, is_it.source, "Ah bon ?"),
            (was.line_id, was.source, "C'était.")), locale="fr")
        assert report.new == [good.line_id, is_it.line_id, was.line_id] and not report.refused
        writer.locks.lock(doc_id)
        writer.editor.patch(doc_id, {"content": {"script": "::Cid:: Hush.\n" + TEXT.replace("Is it?", "Is it, now?")}})
        writer.locks.unlock(doc_id)
        assert not any(e.needs_review for e in _lines(translator))  # nothing has reached the translator yet

        _sync(translator)
        _sync(writer)
        _sync(translator)

        for session in (writer, translator):
            doc = session.editor.get(doc_id)
            assert doc["content"]["script"] == "::Cid:: Hush.\n" + TEXT.replace("Is it?", "Is it, now?")
            assert session.editor.get(translation_id("fr", doc_id))["_rev"] == \
                translator.editor.get(translation_id("fr", doc_id))["_rev"]
            assert not list_conflicts(session.db, [doc_id, translation_id("fr", doc_id)])
            lines = {e.line_id: e for e in _lines(session)}
            assert [e.source for e in lines.values()] == ["Hush.", "Good morning.", "Is it, now?", "It was."]
            # The ids survived the edit, so every translation still meets its line.
            assert (lines[good.line_id].target, lines[good.line_id].needs_review) == ("Bonjour.", False)
            assert (lines[was.line_id].target, lines[was.line_id].needs_review) == ("C'était.", False)
            changed = lines[is_it.line_id]
            assert (changed.target, changed.needs_review, changed.previous_source) == ("Ah bon ?", True, "Is it?")
            new = next(e for e in lines.values() if e.source == "Hush.")
            assert new.target is None and new.line_id not in (good.line_id, is_it.line_id, was.line_id)
    finally:
        team.close()
