"""The kanban domain (storyloom.project.kanban), without Qt: columns and cards moved, filters,
users, templates from the project settings (Drafft's shape) and the built-in ones."""

from __future__ import annotations

import copy
import json
from datetime import date

import pytest

from storyloom.project import kanban as k
from tests.support.fixtures import DRAFFT_PROJECTS


def board() -> dict:
    return {"columns": [
        {"id": "todo", "title": "To do", "type": "column", "cards": [
            k.new_card("Record lines", id="a", tags=["Audio"], assigned="bea"),
            k.new_card("Paint portraits", id="b", tags=["Art"]),
        ]},
        {"id": "done", "title": "Done", "type": "column", "cards": [k.new_card("Graph", id="c", tags=["Design"])]},
    ], "template": None, "settings": {"showCompleted": True}}


def titles(content: dict) -> list[list[str]]:
    return [[c["title"] for c in column["cards"]] for column in content["columns"]]


def test_every_step_returns_a_new_board_and_leaves_the_old_one() -> None:
    before = board()
    kept = copy.deepcopy(before)
    after = k.move_card(before, "a", "done", before="c")
    assert before == kept
    assert titles(after) == [["Paint portraits"], ["Record lines", "Graph"]]


def test_cards_move_within_and_between_columns() -> None:
    content = board()
    assert titles(k.move_card(content, "a", "todo")) == [["Paint portraits", "Record lines"], ["Graph"]]
    assert titles(k.move_card(content, "b", "todo", before="a")) == [["Paint portraits", "Record lines"], ["Graph"]]
    assert titles(k.move_card(content, "c", "todo", before="b")) == [["Record lines", "Graph", "Paint portraits"], []]
    assert titles(k.move_card(content, "a", "todo", before="a")) == titles(content)
    with pytest.raises(k.KanbanError, match="no card 'zzz'"):
        k.move_card(content, "zzz", "todo")


def test_columns_are_added_renamed_moved_and_removed() -> None:
    content, column_id = k.add_column(board(), "To do")
    assert column_id == "to-do" and [c["id"] for c in content["columns"]] == ["todo", "done", "to-do"]
    content = k.move_column(content, "to-do", 0)
    content = k.rename_column(content, "to-do", "Backlog")
    assert [c["title"] for c in content["columns"]] == ["Backlog", "To do", "Done"]
    content = k.remove_column(content, "todo")
    assert [c["id"] for c in content["columns"]] == ["to-do", "done"]


def test_card_fields_are_cleaned() -> None:
    content = k.update_card(board(), "a", tags=["Audio", " ", "Audio", "VO"], related=["x", "x"],
                            checklist=[{"text": "Book studio"}, {"id": "2", "text": "Send script", "done": True}])
    card = k.card(content, "a")
    assert card["tags"] == ["Audio", "VO"] and card["related"] == ["x"]
    assert [i["text"] for i in card["checklist"]] == ["Book studio", "Send script"]
    assert k.checklist_progress(card) == (1, 2)
    first = card["checklist"][0]["id"]
    assert k.checklist_progress(k.card(k.toggle_check(content, "a", first), "a")) == (2, 2)
    with pytest.raises(k.KanbanError):
        k.update_card(content, "a", id="other")


def test_filters_by_tag_assignee_and_text() -> None:
    column = board()["columns"][0]
    assert [c["id"] for c in k.visible_cards(column, k.CardFilter(tag="audio"))] == ["a"]
    assert [c["id"] for c in k.visible_cards(column, k.CardFilter(assignee="Bea"))] == ["a"]
    assert [c["id"] for c in k.visible_cards(column, k.CardFilter(assignee="-"))] == ["b"]
    assert [c["id"] for c in k.visible_cards(column, k.CardFilter(text="PORTRAIT"))] == ["b"]
    assert not k.CardFilter().active and len(k.visible_cards(column, k.CardFilter())) == 2


def test_assignable_users_come_from_the_project() -> None:
    users = [{"type": "User", "userName": "baj", "name": "baj"}, {"type": "User", "name": "Ada"}]
    assert k.assignable_users(users, board(), "ada") == ["Ada", "baj", "bea"]


def test_due_dates() -> None:
    today = date(2026, 5, 10)
    assert k.due_state({"dueDate": "2026-05-09"}, today) == "overdue"
    assert k.due_state({"dueDate": "2026-05-10"}, today) == "today"
    assert k.due_state({"dueDate": "2026-05-12"}, today) == "soon"
    assert k.due_state({"dueDate": "2026-06-12"}, today) == ""
    assert k.due_state({"dueDate": "2026-05-09", "completed": True}, today) == ""
    assert k.due_state({"dueDate": "soon"}, today) == ""


def test_templates_come_from_the_project_settings_as_drafft_writes_them() -> None:
    rows = json.loads((DRAFFT_PROJECTS / "v2" / "tgof.json").read_text(encoding="utf-8"))["rows"]
    settings = next(r["doc"] for r in rows if r["id"] == "ProjectSettings")
    boards, cards = k.board_templates(settings), k.card_templates(settings)
    assert [b["id"] for b in boards] == ["bug-tracker", "art-pipeline", "sprint-board", "simple-todo"]
    bug = k.find_template(cards, "bug-card")
    assert bug is not None
    card = k.new_card("Crash on load", bug)
    assert card["severity"] == "Low" and card["reproducible"] is False and card["template"] == "bug-card"
    assert [f["key"] for f in k.template_fields(bug)] == ["severity", "reproducible"]
    art = k.new_card("Hero", k.find_template(cards, "art-card"))
    assert art["dueDate"] == "" and "due_date" not in art
    # Without templates in the settings, the built-in ones.
    assert [b["id"] for b in k.board_templates({})] == ["simple-todo", "writing", "bug-tracker"]
    assert k.card_templates({"kanban": {"cards": []}}) == k.BUILTIN_CARDS


def test_a_board_template_lays_out_the_columns_and_keeps_the_cards() -> None:
    template = k.find_template(k.BUILTIN_BOARDS, "simple-todo")
    assert template is not None
    content = k.apply_board_template(board(), template)
    assert [c["title"] for c in content["columns"]] == ["To do", "Doing", "Done"]
    assert titles(content) == [["Record lines", "Paint portraits"], [], ["Graph"]]
    assert content["template"] == "simple-todo"
    assert k.board_tags(content, template) == ["Art", "Audio", "Design", "Idea", "Urgent"]
    assert k.tag_colours(template)["Urgent"] == "#e5484d"


def test_a_checklist_that_is_not_a_list_of_items_is_refused() -> None:
    from storyloom.project.documents import new_document
    from storyloom.project.validation import check_document

    doc = new_document("Kanban", "Board")
    doc["content"] = board()

    def errors() -> list[str]:
        return [p.field for p in check_document(doc, None) if p.severity == "error" and p.field.startswith("content")]

    assert errors() == []
    doc["content"]["columns"][0]["cards"][0]["checklist"] = [{"text": "x", "done": "yes"}]
    assert errors() == ["content.columns[0].cards[0].checklist"]
