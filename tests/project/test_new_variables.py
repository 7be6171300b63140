"""A new Variables or Scenario document starts from a template that validates: the state id
comes from the document's name (unique, ASCII), follows a rename while the template is untouched,
and is never an error a writer has to fill in."""

from __future__ import annotations

import pytest

from storyloom.project.content import (
    check_unique_sids,
    is_untouched_template,
    parse_scenario_doc,
    parse_variables_doc,
    sid_for,
)
from storyloom.project.editor import Editor
from storyloom.project.settings import default_settings
from storyloom.project.validation import check_document
from storyloom.store import Database


@pytest.fixture
def editor() -> Editor:
    editor = Editor(Database(":memory:"), username="ann")
    editor.create_settings(default_settings("Templates"))
    return editor


def test_the_state_id_comes_from_the_name() -> None:
    assert sid_for("Player") == "player"
    assert sid_for("Player's Bag") == "player_s_bag"
    assert sid_for("Île de Café") == "ile_de_cafe"
    assert sid_for("1st act") == "s_1st_act"
    assert sid_for("!!!") == "state"
    assert sid_for("Player", {"player", "player_2"}) == "player_3"


def test_a_new_variables_document_parses_with_no_variable_of_its_own(editor: Editor) -> None:
    doc = editor.get(editor.create("Variable", "Player's Bag").id)
    assert parse_variables_doc(doc) == {"_sid": "player_s_bag"}
    assert "v.player_s_bag.<name>" in doc["content"]["variables"]
    assert check_document(doc) == []


def test_two_new_variables_documents_of_one_name_get_two_ids(editor: Editor) -> None:
    first = editor.get(editor.create("Variable", "World").id)
    second = editor.get(editor.create("Variable", "World").id)
    assert parse_variables_doc(first)["_sid"] == "world"
    assert parse_variables_doc(second)["_sid"] == "world_2"
    assert check_unique_sids([first, second]) == []


def test_the_id_follows_a_rename_only_while_the_template_is_untouched(editor: Editor) -> None:
    doc_id = editor.create("Variable", "New Variable").id
    editor.rename(doc_id, "Player")
    assert parse_variables_doc(editor.get(doc_id))["_sid"] == "player"
    doc = editor.get(doc_id)
    doc["content"]["variables"] += "courage: 5\n"
    editor.update(doc)
    editor.rename(doc_id, "Hero")  # a variable was written: scripts may name v.player now
    assert parse_variables_doc(editor.get(doc_id)) == {"_sid": "player", "courage": 5}


def test_given_content_is_kept(editor: Editor) -> None:
    doc = editor.get(editor.create("Variable", "Mine", content={"variables": "_sid: mine\nx: 1\n"}).id)
    assert parse_variables_doc(doc) == {"_sid": "mine", "x": 1}
    assert not is_untouched_template(doc["content"]["variables"], "Mine")


def test_a_new_scenario_parses_to_no_change(editor: Editor) -> None:
    doc = editor.get(editor.create("Scenario", "Act two").id)
    assert parse_scenario_doc(doc) == {}
    assert "player: { courage: 8 }" in doc["content"]["scenario"]
