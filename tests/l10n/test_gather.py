"""Gathering a project's translatable lines into a catalog (docs/localization.md)."""

from __future__ import annotations

from storyloom.drafft import import_backup
from storyloom.l10n.gather import catalog
from storyloom.project import script_line_ids
from storyloom.project.dialogue_graph import new_node
from storyloom.project.manager import Project, ProjectManager
from storyloom.project.sample import create_sample_project
from tests.l10n.conftest import script
from tests.support.fixtures import DRAFFT_PROJECTS

INTRO = """// Ann has just woken up.
// She is cross.
::ann:: Where am I? [angry] {"vo": true}
<Wait(1)>

[#bob_hi]::Bob:: Hi!
::Nobody Known:: Who said that?
::Ann::
"""


def test_a_catalog_holds_every_speech_line_and_choice_option_in_tree_order(project: Project) -> None:
    editor = project.editor
    editor.create("Actor", "Ann Reyes", alias="Ann")
    script(project, "Early", "::Bob:: Early.\n")  # before the folder, but the explorer lists folders first
    act = editor.create("Folder", "Act 1", collection="Script").id
    later = script(project, "Zulu", "::Bob:: Last.\n")  # top level, after the folder
    intro = script(project, "Intro", INTRO, parent=act, comments="Keep it short.")
    choice = new_node("choice", 0, 0)
    choice["data"]["handles"][1]["label"] = "Yes, gladly"
    choice["data"]["handles"][2]["label"] = ""
    talk = editor.create("Dialogue", "Talk", content={"tree": {"nodes": [choice], "edges": []}}).id

    found = catalog(project, "fr")

    assert (found.project, found.source_locale, found.target_locale) == ("Saga", "en", "fr")
    lines = [(e.document, e.location, e.speaker, e.source, e.kind) for e in found.entries]
    option_place = f"{choice['id']}/{choice['data']['handles'][1]['id']}"
    assert lines == [
        ("Act 1/Intro", "3", "Ann Reyes", "Where am I?", "speech"),  # the actor's name, by alias
        ("Act 1/Intro", "6", "Bob", "Hi!", "speech"),
        ("Act 1/Intro", "7", "Nobody Known", "Who said that?", "speech"),  # the name as written
        ("Early", "1", "Bob", "Early.", "speech"),
        ("Zulu", "1", "Bob", "Last.", "speech"),
        ("Talk", option_place, None, "Yes, gladly", "option"),  # the empty option is left out
    ]
    ids = script_line_ids(editor.get(intro))
    assert [e.line_id for e in found.entries[:3]] == ids[:3] and ids[1] == "bob_hi"
    assert found.entries[0].notes == ("Ann has just woken up.", "She is cross.", "Keep it short.")
    assert found.entries[1].notes == ("Keep it short.",)  # a blank line is not a comment
    option = editor.get(talk)["content"]["tree"]["nodes"][0]["data"]["handles"][1]
    assert found.entries[-1].line_id == option["lineId"] and found.entries[4].document_id == later
    assert all(e.target is None and not e.needs_review for e in found.entries)


def test_the_sample_projects_catalog_names_its_documents_by_their_paths(manager: ProjectManager) -> None:
    project = create_sample_project(manager, "Sample")
    try:
        found = catalog(project, "de")
        assert found.entries and len({(e.document_id, e.line_id) for e in found.entries}) == len(found.entries)
        kinds = {e.kind for e in found.entries}
        assert kinds == {"speech", "option"}
        speech = [e for e in found.entries if e.kind == "speech"]
        assert all(e.speaker and "/" in e.document and int(e.location) >= 1 for e in speech)
        assert all("::" not in e.source for e in found.entries)
    finally:
        project.close()


def test_a_drafft_projects_lines_have_its_tags_as_ids(manager: ProjectManager) -> None:
    project, _report = import_backup(manager, DRAFFT_PROJECTS / "v1" / "one-bullet.json")
    try:
        found = catalog(project, "fr")
        tagged = [e for e in found.entries if "_" in e.line_id and len(e.line_id) != 12]
        assert len(tagged) == 7  # Drafft's own tags (docs/localization.md: 7 tagged, 17 untagged)
        assert len([e for e in found.entries if e.kind == "speech"]) == 24
        assert all(e.document and e.source.strip() for e in found.entries)
    finally:
        project.close()
