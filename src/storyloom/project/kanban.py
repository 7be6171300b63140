"""Kanban boards: columns of cards, templates and filters, Qt-free.

A board stores ``content.columns [{id, title, type: "column", cards [...]}]``, ``template`` (the
board template it was made from, or ``None``) and ``settings`` (what the cards show). A card is
``{id, type: "card", title, description (markdown), tags [..], related [document ids],
completed, dueDate ("YYYY-MM-DD" or ""), assigned (a user name or ""), checklist [{id, text,
done}]}``; a card made from a card template also carries that template's extra fields.

Every function here takes a board's ``content`` and returns a new one (the input is never
changed), so an editor keeps the content before and after each step for undo. Templates come from
``ProjectSettings.kanban`` (``{boards: [...], cards: [...]}``, Drafft's shape), or the built-in ones
when the project defines none.
"""

from __future__ import annotations

import copy
import re
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

from storyloom.errors import StoryloomError

CARD_FIELDS = ("id", "type", "title", "description", "tags", "related", "completed", "dueDate", "assigned",
               "checklist")
DEFAULT_SETTINGS = {"showDescription": True, "showTags": True, "showRelated": True, "showAssigned": True,
                    "showDueDate": True, "showCheckbox": True}


class KanbanError(StoryloomError, ValueError):
    """A step that names a column or card the board does not have."""

    code = "kanban_refused"


def _columns(content: Mapping[str, Any]) -> list[dict[str, Any]]:
    columns = content.get("columns") if isinstance(content, Mapping) else None
    return [c for c in columns if isinstance(c, dict)] if isinstance(columns, list) else []


def _copy(content: Mapping[str, Any]) -> dict[str, Any]:
    board = copy.deepcopy(dict(content)) if isinstance(content, Mapping) else {}
    board["columns"] = _columns(board)
    for column in board["columns"]:
        cards = column.get("cards")
        column["cards"] = [c for c in cards if isinstance(c, dict)] if isinstance(cards, list) else []
    return board


def _slug(title: str, taken: Iterable[str]) -> str:
    base = re.sub(r"[^0-9a-z]+", "-", title.lower()).strip("-") or "column"
    taken = set(taken)
    key, number = base, 2
    while key in taken:
        key, number = f"{base}-{number}", number + 1
    return key


# ---------------------------------------------------------------------------------------------
# Reading a board


def find_column(content: Mapping[str, Any], column_id: str) -> int:
    for index, column in enumerate(_columns(content)):
        if column.get("id") == column_id:
            return index
    raise KanbanError(f"the board has no column {column_id!r}")


def find_card(content: Mapping[str, Any], card_id: str) -> tuple[int, int]:
    """(column index, card index) of a card."""
    for col_index, column in enumerate(_columns(content)):
        for card_index, card in enumerate(column.get("cards") or []):
            if isinstance(card, dict) and card.get("id") == card_id:
                return col_index, card_index
    raise KanbanError(f"the board has no card {card_id!r}")


def card(content: Mapping[str, Any], card_id: str) -> dict[str, Any]:
    col, index = find_card(content, card_id)
    found: dict[str, Any] = _columns(content)[col]["cards"][index]  # find_card checked it is a dict
    return found


def tags_of(card_: Mapping[str, Any]) -> list[str]:
    tags = card_.get("tags")
    return [str(t) for t in tags if isinstance(t, str) and t.strip()] if isinstance(tags, list) else []


def checklist(card_: Mapping[str, Any]) -> list[dict[str, Any]]:
    items = card_.get("checklist")
    return [i for i in items if isinstance(i, dict)] if isinstance(items, list) else []


def checklist_progress(card_: Mapping[str, Any]) -> tuple[int, int]:
    """(done, total) of a card's checklist."""
    items = checklist(card_)
    return sum(1 for i in items if i.get("done") is True), len(items)


def due_state(card_: Mapping[str, Any], today: date | None = None) -> str:
    """``overdue``, ``today``, ``soon`` (within 3 days) or ``""`` (no date, a date further away,
    or a completed card)."""
    text = card_.get("dueDate")
    if not isinstance(text, str) or not text or card_.get("completed") is True:
        return ""
    try:
        due = date.fromisoformat(text[:10])
    except ValueError:
        return ""
    days = (due - (today or date.today())).days
    if days < 0:
        return "overdue"
    if days == 0:
        return "today"
    return "soon" if days <= 3 else ""


def board_tags(content: Mapping[str, Any], template: Mapping[str, Any] | None = None) -> list[str]:
    """Every tag the board's cards use, then the board template's recommended ones, sorted."""
    tags = {t for column in _columns(content) for c in column.get("cards") or [] if isinstance(c, dict)
            for t in tags_of(c)}
    if template:
        tags.update(str(t.get("label")) for t in template.get("recommendedTags") or []
                    if isinstance(t, dict) and t.get("label"))
    return sorted(tags, key=str.casefold)


def tag_colours(template: Mapping[str, Any] | None) -> dict[str, str]:
    """Tag -> colour (``#rrggbb``) from a board template's recommended tags."""
    colours: dict[str, str] = {}
    for tag in (template or {}).get("recommendedTags") or []:
        if isinstance(tag, dict) and isinstance(tag.get("label"), str) and isinstance(tag.get("color"), str):
            colours[tag["label"]] = tag["color"]
    return colours


def assignable_users(user_docs: Iterable[Mapping[str, Any]], content: Mapping[str, Any],
                     current_user: str = "") -> list[str]:
    """Who a card can be assigned to: the project's users (User documents), the current user,
    and anyone a card of the board already names; sorted, without duplicates."""
    names: dict[str, str] = {}
    for doc in user_docs:
        name = doc.get("userName") or doc.get("name")
        if isinstance(name, str) and name.strip():
            names.setdefault(name.strip().casefold(), name.strip())
    if current_user.strip():
        names.setdefault(current_user.strip().casefold(), current_user.strip())
    for column in _columns(content):
        for c in column.get("cards") or []:
            name = c.get("assigned") if isinstance(c, dict) else None
            if isinstance(name, str) and name.strip():
                names.setdefault(name.strip().casefold(), name.strip())
    return sorted(names.values(), key=str.casefold)


@dataclass(frozen=True)
class CardFilter:
    """Which cards a board shows: by tag, by assignee (``"-"``: nobody), and by text."""

    tag: str = ""
    assignee: str = ""
    text: str = ""

    @property
    def active(self) -> bool:
        return bool(self.tag or self.assignee or self.text.strip())

    def matches(self, card_: Mapping[str, Any]) -> bool:
        if self.tag and self.tag.casefold() not in {t.casefold() for t in tags_of(card_)}:
            return False
        assigned = str(card_.get("assigned") or "")
        if self.assignee == "-" and assigned:
            return False
        if self.assignee not in ("", "-") and assigned.casefold() != self.assignee.casefold():
            return False
        needle = self.text.strip().casefold()
        if needle:
            haystack = " ".join([str(card_.get("title") or ""), str(card_.get("description") or ""),
                                 *tags_of(card_)]).casefold()
            return needle in haystack
        return True


def visible_cards(column: Mapping[str, Any], filter_: CardFilter | None = None) -> list[dict[str, Any]]:
    cards = [c for c in column.get("cards") or [] if isinstance(c, dict)]
    return cards if filter_ is None or not filter_.active else [c for c in cards if filter_.matches(c)]


# ---------------------------------------------------------------------------------------------
# Changing a board (each returns a new content)


def new_card(title: str = "", template: Mapping[str, Any] | None = None, **fields: Any) -> dict[str, Any]:
    """A card with every field at its default; a card template adds its extra fields (a
    dropdown at its first option, a checkbox unchecked, anything else empty)."""
    made: dict[str, Any] = {"id": str(uuid.uuid4()), "type": "card", "title": title, "description": "",
                            "tags": [], "related": [], "completed": False, "dueDate": "", "assigned": "",
                            "checklist": []}
    for spec in (template or {}).get("fields") or []:
        if not isinstance(spec, dict) or not isinstance(spec.get("key"), str):
            continue
        spec_key: str = spec["key"]
        key = {"due_date": "dueDate", "assigned_to": "assigned"}.get(spec_key, spec_key)
        if key in made:
            continue
        kind = spec.get("type")
        options = spec.get("options") if isinstance(spec.get("options"), list) else []
        made[key] = False if kind == "checkbox" else (str(options[0]) if kind == "dropdown" and options else "")
    if template and isinstance(template.get("id"), str):
        made["template"] = template["id"]
    made.update(fields)
    return made


def add_column(content: Mapping[str, Any], title: str, at: int | None = None) -> tuple[dict[str, Any], str]:
    """Add an empty column; returns the board and the new column's id."""
    board = _copy(content)
    column_id = _slug(title, (str(c.get("id")) for c in board["columns"]))
    column = {"id": column_id, "title": title, "type": "column", "cards": []}
    board["columns"].insert(len(board["columns"]) if at is None else max(0, min(at, len(board["columns"]))), column)
    return board, column_id


def rename_column(content: Mapping[str, Any], column_id: str, title: str) -> dict[str, Any]:
    board = _copy(content)
    board["columns"][find_column(board, column_id)]["title"] = title
    return board


def remove_column(content: Mapping[str, Any], column_id: str) -> dict[str, Any]:
    """Remove a column and its cards."""
    board = _copy(content)
    del board["columns"][find_column(board, column_id)]
    return board


def move_column(content: Mapping[str, Any], column_id: str, to: int) -> dict[str, Any]:
    """Move a column to position ``to`` (of the board after the move)."""
    board = _copy(content)
    column = board["columns"].pop(find_column(board, column_id))
    board["columns"].insert(max(0, min(to, len(board["columns"]))), column)
    return board


def add_card(content: Mapping[str, Any], column_id: str, card_: Mapping[str, Any],
             before: str | None = None) -> dict[str, Any]:
    """Add ``card_`` to a column, before the card ``before`` (``None``: at the end)."""
    board = _copy(content)
    cards = board["columns"][find_column(board, column_id)]["cards"]
    made = copy.deepcopy(dict(card_))
    made.setdefault("id", str(uuid.uuid4()))
    index = next((i for i, c in enumerate(cards) if c.get("id") == before), len(cards))
    cards.insert(index, made)
    return board


def update_card(content: Mapping[str, Any], card_id: str, **changes: Any) -> dict[str, Any]:
    """Set fields of a card (tags and related ids cleaned: no blanks, no duplicates)."""
    board = _copy(content)
    col, index = find_card(board, card_id)
    target = board["columns"][col]["cards"][index]
    for key, value in changes.items():
        if key == "id":
            raise KanbanError("a card's id never changes")
        if key in ("tags", "related"):
            seen: list[str] = []
            for item in value or []:
                item = str(item).strip()
                if item and item not in seen:
                    seen.append(item)
            value = seen
        if key == "checklist":
            value = [{"id": str(i.get("id") or uuid.uuid4()), "text": str(i.get("text") or ""),
                      "done": i.get("done") is True} for i in value or [] if isinstance(i, dict)]
        target[key] = copy.deepcopy(value)
    return board


def remove_card(content: Mapping[str, Any], card_id: str) -> dict[str, Any]:
    board = _copy(content)
    col, index = find_card(board, card_id)
    del board["columns"][col]["cards"][index]
    return board


def move_card(content: Mapping[str, Any], card_id: str, column_id: str, before: str | None = None) -> dict[str, Any]:
    """Move a card into ``column_id`` (the same or another column), before the card ``before``
    (``None``: at the end). Naming the card before a filtered-out card still lands it right."""
    if before == card_id:
        return _copy(content)
    board = _copy(content)
    col, index = find_card(board, card_id)
    moving = board["columns"][col]["cards"].pop(index)
    cards = board["columns"][find_column(board, column_id)]["cards"]
    at = next((i for i, c in enumerate(cards) if c.get("id") == before), len(cards))
    cards.insert(at, moving)
    return board


def toggle_check(content: Mapping[str, Any], card_id: str, item_id: str) -> dict[str, Any]:
    items = checklist(card(content, card_id))
    return update_card(content, card_id, checklist=[{**i, "done": not i.get("done")} if i.get("id") == item_id
                                                    else i for i in items])


# ---------------------------------------------------------------------------------------------
# Templates (ProjectSettings.kanban)


BUILTIN_CARDS: list[dict[str, Any]] = [
    {"id": "task-card", "name": "Task", "fields": [
        {"key": "title", "label": "Task", "type": "text", "required": True},
        {"key": "description", "label": "Details", "type": "textarea"},
        {"key": "tags", "label": "Tags", "type": "tag-list"}]},
    {"id": "bug-card", "name": "Bug report", "fields": [
        {"key": "title", "label": "Title", "type": "text", "required": True},
        {"key": "description", "label": "Steps to reproduce", "type": "textarea"},
        {"key": "severity", "label": "Severity", "type": "dropdown", "options": ["Low", "Medium", "High"]},
        {"key": "tags", "label": "Tags", "type": "tag-list"}]},
]


def _board(board_id: str, name: str, description: str, titles: list[str], card_template: str,
           tags: list[tuple[str, str]]) -> dict[str, Any]:
    return {"id": board_id, "name": name, "description": description,
            "columns": [{"id": _slug(t, ()), "title": t, "type": "column", "cards": []} for t in titles],
            "defaultCardTemplateId": card_template,
            "recommendedTags": [{"label": label, "color": colour} for label, colour in tags]}


BUILTIN_BOARDS: list[dict[str, Any]] = [
    _board("simple-todo", "Simple to-do", "To do, doing, done.", ["To do", "Doing", "Done"], "task-card",
           [("Urgent", "#e5484d"), ("Idea", "#20b2aa")]),
    _board("writing", "Writing pipeline", "Scenes and scripts from outline to final text.",
           ["Outline", "Draft", "Review", "Final"], "task-card",
           [("Writing", "#6e56cf"), ("Dialogue", "#3e63dd"), ("Audio", "#f76b15"), ("Art", "#30a46c")]),
    _board("bug-tracker", "Bug tracker", "Triage and fix what playtests find.",
           ["Triage", "In progress", "Review", "Done"], "bug-card",
           [("Crash", "#e5484d"), ("UI", "#ffc53d"), ("Regression", "#8e4ec6")]),
]


def board_templates(settings: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """The project's board templates (``kanban.boards``), else the built-in ones."""
    kanban = (settings or {}).get("kanban")
    boards = kanban.get("boards") if isinstance(kanban, Mapping) else None
    found = [b for b in boards if isinstance(b, dict) and isinstance(b.get("id"), str)] if isinstance(boards, list) \
        else []
    return found or copy.deepcopy(BUILTIN_BOARDS)


def card_templates(settings: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """The project's card templates (``kanban.cards``), else the built-in ones."""
    kanban = (settings or {}).get("kanban")
    cards = kanban.get("cards") if isinstance(kanban, Mapping) else None
    found = [c for c in cards if isinstance(c, dict) and isinstance(c.get("id"), str)] if isinstance(cards, list) \
        else []
    return found or copy.deepcopy(BUILTIN_CARDS)


def find_template(templates: Iterable[Mapping[str, Any]], template_id: Any) -> dict[str, Any] | None:
    return next((dict(t) for t in templates if t.get("id") == template_id), None)


def apply_board_template(content: Mapping[str, Any], template: Mapping[str, Any]) -> dict[str, Any]:
    """Lay the board out as ``template``: its columns in its order. The cards are kept: each goes
    to the template column of the same title, else to the first column."""
    board = _copy(content)
    columns: list[dict[str, Any]] = [
        {"id": str(c.get("id") or _slug(str(c.get("title") or ""), ())), "title": str(c.get("title") or ""),
         "type": "column", "cards": []} for c in template.get("columns") or [] if isinstance(c, dict)]
    if not columns:
        raise KanbanError(f"the board template {template.get('name')!r} has no columns")
    by_title = {c["title"].casefold(): c for c in columns}
    for old in board["columns"]:
        target = by_title.get(str(old.get("title") or "").casefold(), columns[0])
        target["cards"].extend(old["cards"])
    board["columns"] = columns
    board["template"] = template.get("id")
    board.setdefault("settings", dict(DEFAULT_SETTINGS))
    return board


def template_fields(template: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """A card template's extra fields (not the ones every card has), for the card's form."""
    fields = []
    for spec in (template or {}).get("fields") or []:
        if not isinstance(spec, dict) or not isinstance(spec.get("key"), str):
            continue
        spec_key: str = spec["key"]
        key = {"due_date": "dueDate", "assigned_to": "assigned"}.get(spec_key, spec_key)
        if key not in CARD_FIELDS:
            fields.append({**spec, "key": key})
    return fields
