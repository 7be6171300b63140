"""The problems panel's rules: every problem of a project (validation and scripts), sorted,
kept up to date from the session's change events by rechecking only what a change can affect."""

from __future__ import annotations

import pytest

from storyloom.app import AppOptions, DocumentChanged, Workspace
from storyloom.app.views.problems import SCRIPT, UNKNOWN_ACTOR, VALIDATION, ProjectProblems, apply_quick_fix
from storyloom.drafft import import_backup
from tests.support.fixtures import DRAFFT_PROJECTS
from tests.support.session_changes import Changes

GARDEN = DRAFFT_PROJECTS / "v2" / "the-garden-of-fading-memories.json"


@pytest.fixture
def workspace():  # type: ignore[no-untyped-def]
    ws = Workspace(options=AppOptions(username="ana"))
    yield ws
    ws.close()


@pytest.fixture
def session(workspace):  # type: ignore[no-untyped-def]
    workspace.manager.create("Problems").close()
    with workspace.open_session("Problems") as opened:
        yield opened


def test_the_garden_sample_lists_its_script_problems_with_names_and_lines(workspace) -> None:  # type: ignore[no-untyped-def]
    project, _report = import_backup(workspace.manager, GARDEN, name="Garden")
    project.close()
    with workspace.open_session("Garden") as session:
        problems = ProjectProblems(session.db, session.index).rebuild()
        assert problems, "the sample has scripts reading variable paths it does not define"
        first = problems[0]
        assert first.source == SCRIPT and first.doc_type == "Script"
        assert first.doc_name == session.index.get(first.doc_id).name
        assert first.line is not None and "variables.player" in first.message
        assert all(p.diagnostic.doc_id == p.doc_id for p in problems)


def test_broken_documents_are_listed_errors_first_then_by_document(session) -> None:  # type: ignore[no-untyped-def]
    editor = session.editor
    editor.create("Actor", "Ana")  # the scripts' speaker is an actor: no unknown-actor warning
    good = editor.create("Script", "Fine", content={"script": "::Ana:: Hello.\n"}).id
    broken = editor.create("Script", "Broken", content={"script": "::Ana:: Hi\n@if v.x\n::Ana:: never closed\n"}).id
    dangling = editor.create("Script", "Orphan", parent="no-such-folder").id
    problems = ProjectProblems(session.db, session.index)
    rows = problems.rebuild()
    assert good not in {p.doc_id for p in rows}
    unclosed = [p for p in rows if p.doc_id == broken and p.diagnostic.code == "unclosed-if"]
    assert len(unclosed) == 1 and unclosed[0].line == 2 and unclosed[0].doc_name == "Broken"
    orphan = [p for p in rows if p.doc_id == dangling]
    assert orphan and all(p.source == VALIDATION and not p.is_error for p in orphan)
    assert "no-such-folder" in orphan[0].message and not orphan[0].message.startswith("document ")
    assert [p.is_error for p in rows] == sorted((p.is_error for p in rows), reverse=True)
    errors, warnings = problems.counts()
    assert errors >= 1 and warnings >= 1 and errors + warnings == len(rows)


def test_a_hand_made_invalid_document_shows_its_validation_errors(session) -> None:  # type: ignore[no-untyped-def]
    from storyloom.project.documents import new_document

    doc = new_document("Script", "Bad shape", content={"script": 12})
    session.editor.db.put(doc)  # straight into the store: the gate would refuse it
    rows = ProjectProblems(session.db, session.index).rebuild()
    bad = [p for p in rows if p.doc_id == doc["_id"]]
    assert bad and bad[0].is_error and bad[0].diagnostic.field == "content.script"
    assert bad[0].doc_name == "Bad shape"


def test_changes_recheck_only_the_changed_documents(session) -> None:  # type: ignore[no-untyped-def]
    editor = session.editor
    editor.create("Actor", "A")
    ids = [editor.create("Script", f"S{i}", content={"script": "::A:: fine\n"}).id for i in range(20)]
    changes = Changes(session)
    problems = ProjectProblems(session.db, session.index)
    problems.rebuild()
    changes.take()
    assert len(problems) == 0
    editor.patch(ids[3], {"content": {"script": "@if v.a\n"}})
    assert problems.apply(changes.take()) == {ids[3]}
    assert [p.doc_name for p in problems.problems()] == ["S3"]
    editor.patch(ids[3], {"content": {"script": "::A:: fixed\n"}})
    problems.apply(changes.take())
    assert len(problems) == 0


def test_a_created_or_deleted_document_rechecks_those_that_mention_it(session) -> None:  # type: ignore[no-untyped-def]
    editor = session.editor
    folder = editor.create("Folder", "Chapter", collection="Script").id
    child = editor.create("Script", "Inside", parent=folder).id
    others = [editor.create("Script", f"Other {i}").id for i in range(5)]
    changes = Changes(session)
    problems = ProjectProblems(session.db, session.index)
    problems.rebuild()
    changes.take()
    assert len(problems) == 0
    # As replication would delete it: straight into the store, its child left behind.
    session.editor.db.bulk_docs([{"_id": folder, "_rev": session.db.get(folder)["_rev"], "_deleted": True}])
    checked = problems.apply(changes.take())
    assert child in checked and folder in checked and not checked & set(others)
    assert [p.doc_id for p in problems.problems()] == [child]


def test_an_edited_script_keeps_the_index_of_what_documents_mention_as_a_rebuild_makes_it(session) -> None:  # type: ignore[no-untyped-def]
    """The index of mentions is updated by difference after each check; a Script's line table
    (line ids and fingerprints, thousands in a long script) names lines, never documents, and
    is not in it."""
    editor = session.editor
    actor = editor.create("Actor", "Ann").id
    folder = editor.create("Folder", "Chapter", collection="Script").id
    lines = "".join(f"::Ann:: Line {n}.\n" for n in range(40))
    script = editor.create("Script", "Long", parent=folder, content={"script": lines, "actor": actor}).id
    changes = Changes(session)
    problems = ProjectProblems(session.db, session.index)
    problems.rebuild()
    changes.take()
    for text, parent in ((lines + "::Ann:: One more.\n", folder), (lines, None), ("::Ann:: Short.\n", folder)):
        doc = session.db.get(script)
        editor.patch(script, {"content": {**doc["content"], "script": text}, "parent": parent})
        problems.apply(changes.take())
        fresh = ProjectProblems(session.db, session.index)
        fresh.rebuild()
        assert problems._mentioners == fresh._mentioners and problems._mentioned == fresh._mentioned
        table = session.db.get(script)["content"]["lineIds"]
        assert table and not {text for entry in table for text in entry} & problems._mentioned[script]
        assert (folder in problems._mentioned[script]) == (parent == folder)
        assert actor in problems._mentioned[script]


def test_a_check_gives_way_between_slices_and_finds_the_same_problems(session, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """``pause`` (a worker gives up the GIL there) is called every SLICE_S of a check, also inside
    one long script's problems; what is found does not change."""
    from storyloom.app.views import problems as problems_module

    monkeypatch.setattr(problems_module, "SLICE_S", 0.0)  # every look at the clock pauses
    editor = session.editor
    script = editor.create("Script", "Long", content={"script": "@endif\n" * 600}).id
    pauses: list[int] = []
    changes = Changes(session)
    slow = ProjectProblems(session.db, session.index, pause=lambda: pauses.append(1))
    slow.rebuild()
    assert len(pauses) >= 600 // 64
    editor.patch(script, {"content": {"script": "@endif\n" * 598}})
    pauses.clear()
    slow.apply(changes.take())
    assert len(pauses) >= 598 // 64
    plain = ProjectProblems(session.db, session.index)
    plain.rebuild()
    assert slow.problems() == plain.problems() and len(plain) >= 598


def test_a_variable_change_rechecks_the_scripts_paths(session) -> None:  # type: ignore[no-untyped-def]
    editor = session.editor
    player = editor.create("Variable", "Player", content={"variables": "_sid: player\ncourage: 5"}).id
    script = editor.create("Script", "Uses luck", content={"script": "@if v.player.luck > 1\n@endif\n"}).id
    unrelated = editor.create("Actor", "Ana").id
    changes = Changes(session)
    problems = ProjectProblems(session.db, session.index)
    problems.rebuild()
    changes.take()
    assert [(p.doc_id, p.diagnostic.code, p.line) for p in problems.problems()] == [(script, "unknown-path", 1)]
    editor.patch(player, {"content": {"variables": "_sid: player\ncourage: 5\nluck: 2"}})
    checked = problems.apply(changes.take())
    assert {player, script} <= checked and unrelated not in checked
    assert len(problems) == 0


def test_local_and_design_documents_are_not_checked(session) -> None:  # type: ignore[no-untyped-def]
    problems = ProjectProblems(session.db, session.index)
    problems.rebuild()
    assert problems.apply([DocumentChanged("_local/x", "1-a", 1, None, False, "local")]) == set()  # type: ignore[arg-type]


# -- speakers who are not actors -----------------------------------------------------------------


def test_a_speaker_who_is_not_an_actor_is_a_problem_with_a_create_actor_fix(session) -> None:  # type: ignore[no-untyped-def]
    editor = session.editor
    editor.create("Actor", "Mara", alias="mara_v")
    script = editor.create("Script", "Scene", content={"script": (
        "::Mara:: Hello. [angry]\n"
        "[#t1] ::MARA :: Case and spaces do not matter.\n"
        "::mara_v:: An alias names her too.\n"
        "  ::Nobody:: Hello\n"
        "::Nobody:: Again\n")}).id
    problems = ProjectProblems(session.db, session.index).rebuild()
    unknown = [p for p in problems if p.diagnostic.code == UNKNOWN_ACTOR]
    assert [(p.doc_id, p.line, p.column) for p in unknown] == [(script, 4, 5), (script, 5, 3)]
    first = unknown[0]
    assert not first.is_error and first.source == SCRIPT and "Nobody" in first.message
    assert first.fix is not None and first.fix.label == "Create actor" and first.fix.name == "Nobody"
    assert all(p.fix is None for p in problems if p.diagnostic.code != UNKNOWN_ACTOR)


def test_create_actor_makes_the_actor_and_the_problem_goes(session) -> None:  # type: ignore[no-untyped-def]
    editor = session.editor
    script = editor.create("Script", "Scene", content={"script": "::Nobody:: Hello\n::Ana:: Hi\n"}).id
    editor.create("Actor", "Ana")
    changes = Changes(session)
    problems = ProjectProblems(session.db, session.index)
    problems.rebuild()
    changes.take()
    (problem,) = problems.problems()
    created = apply_quick_fix(session, problem.fix)
    actor = session.db.get(created)
    assert actor["type"] == "Actor" and actor["name"] == "Nobody" and actor["collection"] == "Actor"
    assert actor.get("parent") is None
    checked = problems.apply(changes.take())
    assert script in checked and created in checked
    assert problems.problems() == []


def test_renaming_or_deleting_an_actor_rechecks_the_scripts_that_name_it(session) -> None:  # type: ignore[no-untyped-def]
    editor = session.editor
    actor = editor.create("Actor", "Mara").id
    speaks = editor.create("Script", "Speaks", content={"script": "::Mara:: Hi\n"}).id
    silent = [editor.create("Script", f"Silent {i}", content={"script": "// nobody\n"}).id for i in range(5)]
    changes = Changes(session)
    problems = ProjectProblems(session.db, session.index)
    problems.rebuild()
    changes.take()
    assert len(problems) == 0
    editor.patch(actor, {"name": "Mira"})
    checked = problems.apply(changes.take())
    assert speaks in checked and not checked & set(silent)
    assert problems.checked == 1  # the Actor itself: the Script's speakers are rechecked without a parse
    assert [(p.doc_id, p.diagnostic.code) for p in problems.problems()] == [(speaks, UNKNOWN_ACTOR)]
    editor.patch(actor, {"name": "Mara"})
    problems.apply(changes.take())
    assert len(problems) == 0
    session.editor.db.bulk_docs([{"_id": actor, "_rev": session.db.get(actor)["_rev"], "_deleted": True}])
    checked = problems.apply(changes.take())
    assert speaks in checked
    assert [p.doc_id for p in problems.problems()] == [speaks]


def test_the_drafft_samples_speakers_are_their_actors(workspace) -> None:  # type: ignore[no-untyped-def]
    """Tgof's speakers are all its actors; the Garden's one speaker without an Actor, Memory Echo,
    is a real one (no Actor of that name or alias), flagged on its two lines."""
    for path, name in ((DRAFFT_PROJECTS / "v2" / "tgof.json", "Tgof"), (GARDEN, "Garden")):
        project, _report = import_backup(workspace.manager, path, name=name)
        project.close()
        with workspace.open_session(name) as session:
            unknown = [p for p in ProjectProblems(session.db, session.index).rebuild()
                       if p.diagnostic.code == UNKNOWN_ACTOR]
            names = {p.fix.name for p in unknown if p.fix is not None}
            assert (len(unknown), names) == ((0, set()) if name == "Tgof" else (2, {"Memory Echo"}))


def test_the_built_in_sample_has_no_speaker_without_an_actor(workspace: Workspace) -> None:
    from storyloom.project.sample import create_sample_project

    create_sample_project(workspace.manager).close()
    with workspace.open_session("The Lighthouse Keeper") as session:
        problems = ProjectProblems(session.db, session.index).rebuild()
        assert [p for p in problems if p.diagnostic.code == UNKNOWN_ACTOR] == []


@pytest.mark.parametrize("language", ["hjson", "yaml", "json", "toml", "text"])
def test_new_variables_and_scenarios_start_without_a_problem_whatever_the_default_language(
        session, language: str) -> None:  # type: ignore[no-untyped-def]
    """Issue 24: a new Variables or Scenarios document, made as the sidebar's New makes it, starts
    from a template that validates, in a project of any default property language."""
    from storyloom.app.views.outline import create_in

    session.editor.update_settings({"defaultEditorLanguage": language})
    session.editor.create("Variable", "Player", content={"variables": "_sid: player\ncourage: 5\n"})
    made = {create_in(session.editor, collection, None).id for collection in ("Variable", "Scenario", "Scenario")}
    problems = ProjectProblems(session.db, session.index).rebuild()
    assert [p.message for p in problems if p.doc_id in made] == []


def test_an_expression_written_in_the_speaker_s_place_says_where_it_goes(session) -> None:  # type: ignore[no-untyped-def]
    """``::Mara (angry)::`` is no actor; creating an actor "Mara (angry)" would be the wrong fix."""
    session.editor.create("Actor", "Mara")
    session.editor.create("Script", "Scene", content={"script": "::Mara (angry):: Out!\n::Bo (tired):: Hm.\n"})
    rows = [p for p in ProjectProblems(session.db, session.index).rebuild() if p.diagnostic.code == UNKNOWN_ACTOR]
    assert [(p.line, p.fix is None) for p in rows] == [(1, True), (2, False)]
    assert rows[0].message.endswith("an expression goes at the end of the line, ::Mara:: … [angry]")
    assert rows[1].fix is not None and rows[1].fix.name == "Bo (tired)"


def test_translation_documents_are_not_listed_a_writer_cannot_open_them(session) -> None:  # type: ignore[no-untyped-def]
    """A Translation whose document is gone warns at the gate (dangling reference), but it is no
    document a writer opens or fixes from the Problems list: the Localization view shows its
    lines. Neither the whole check nor the changes list it."""
    from storyloom.l10n.translations import translation_id, write_entry

    editor = session.editor
    editor.update_settings({"targetLocales": ["fr"]})
    editor.create("Actor", "A")
    doc_id = editor.create("Script", "S", content={"script": "::A:: fine\n"}).id
    changes = Changes(session)
    problems = ProjectProblems(session.db, session.index)
    problems.rebuild()
    write_entry(editor, "fr", "gone", "Gone", "line_1", "Bonjour.", "Hello.")  # its document does not exist
    problems.apply(changes.take())
    assert [p.doc_id for p in problems.problems()] == []
    problems.rebuild()
    assert [p.doc_id for p in problems.problems()] == []
    assert translation_id("fr", "gone") in {s.id for s in session.index.summaries()}
    editor.patch(doc_id, {"content": {"script": "@if v.a\n"}})
    problems.apply(changes.take())
    assert [p.doc_id for p in problems.problems()] == [doc_id]
