"""The merge view's rules, Qt-free: the versions of a document side by side, field by field,
what each field will be, and writing the result.

Two uses:

- a **conflict** (:func:`conflict_form`): the leaves of a conflicted document (the winner
  first); saving writes the resolution through :func:`storyloom.project.conflicts.resolve`,
  which supersedes every other leaf in one transaction, so the next sync carries one answer
  to every machine;
- **unsaved text against a remote change** (:func:`unsaved_form`): the revision that arrived
  and the editor's unsaved version, from the revision the editor started from; the result goes
  back to the editor (:meth:`MergeForm.merged_document`), which saves it like typed text.

Each field where the versions differ is a :class:`FieldRow`. From their common ancestor
(``base``), a field only one version changed takes that version; a field several changed
differently is a conflict: text fields (:func:`storyloom.project.merge.text_fields`: script, GDD,
property text...) get a three-way line merge (``merge3``) whose conflicting passages are kept
between markers for a person to settle (:func:`conflict_blocks`, :func:`settle_block`), other
fields keep the winner's value until a person chooses. A row's ``choice`` is a version's index,
:data:`MERGED` (the line merge) or :data:`EDITED` (typed by the person).
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import merge3

from storyloom.errors import StoryloomError
from storyloom.project import (
    LINE_IDS,
    NOT_COMPARED,
    Conflict,
    common_ancestor,
    field_label,
    flatten_fields,
    is_text_field,
    list_refused,
    when_text,
)
from storyloom.project import resolve as resolve_conflict
from storyloom.script.line_ids import anchor, anchor_merged
from storyloom.words import counted

MERGED = "merged"
EDITED = "edited"
#: The markers around a passage both versions changed (git's, which writers may know).
START, MIDDLE, END = "<<<<<<<", "=======", ">>>>>>>"
_ABSENT: Any = object()
LINE_TABLE_PATH = f"content.{LINE_IDS}"


class MergeFormError(StoryloomError):
    """What stops a merge from being saved (a passage still in conflict, a value that is not
    JSON), said so that the person knows what to do."""

    code = "merge_refused"


@dataclass(frozen=True)
class Side:
    """One version: ``doc`` is ``None`` for a deletion; ``rev`` ``None`` for unsaved text;
    ``refused`` is the server's reason when this version is an edit it refused."""

    label: str
    rev: str | None
    author: str | None
    time: str | None
    doc: dict[str, Any] | None
    winner: bool = False
    refused: str | None = None

    @property
    def deleted(self) -> bool:
        return self.doc is None


@dataclass
class FieldRow:
    """A field where the versions differ. ``values[i]``/``present[i]``: version ``i``'s value
    and whether it has the field. ``changed[i]``: version ``i`` changed it from the base.
    ``conflict``: several versions changed it differently (a person should look)."""

    path: str
    text: bool
    values: list[Any]
    present: list[bool]
    base: Any
    base_present: bool
    changed: list[bool]
    conflict: bool
    choice: int | str = 0
    merged: str | None = None  # the line merge, with markers where passages conflict
    edited: Any = None

    @property
    def label(self) -> str:
        return field_label(self.path)

    def value(self) -> tuple[bool, Any]:
        """What the field will be: ``(present, value)``."""
        if self.choice == MERGED:
            return True, self.merged
        if self.choice == EDITED:
            return self.edited is not _ABSENT, self.edited
        index = int(self.choice)
        return self.present[index], copy.deepcopy(self.values[index])

    def open_passages(self) -> int:
        """How many conflicting passages the chosen text still has."""
        present, value = self.value()
        return len(conflict_blocks(value)) if self.text and present and isinstance(value, str) else 0


@dataclass
class MergeForm:
    """The state of one merge view. ``sides[0]`` is the current version (the winner, or the
    revision that arrived); ``compare`` the other version the text merge uses."""

    doc_id: str
    name: str
    sides: list[Side]
    base: dict[str, Any] | None
    rows: list[FieldRow] = field(default_factory=list)
    take_deleted: int | None = None  # a deleted version chosen for the whole document
    compare: int = 1

    # -- choosing ------------------------------------------------------------------------------
    def row(self, path: str) -> FieldRow:
        for row in self.rows:
            if row.path == path:
                return row
        raise KeyError(path)

    def choose(self, path: str, choice: int | str) -> None:
        """Take version ``choice`` (an index), :data:`MERGED` or :data:`EDITED` for ``path``."""
        row = self.row(path)
        if choice == MERGED and row.merged is None:
            raise MergeFormError(f"{row.label} has no line merge")
        if isinstance(choice, int) and not 0 <= choice < len(self.sides):
            raise MergeFormError(f"there is no version {choice}")
        if choice == EDITED and row.edited is None:
            present, value = row.value()
            row.edited = copy.deepcopy(value) if present else _ABSENT
        row.choice = choice

    def choose_all(self, index: int) -> None:
        """Take every field from version ``index`` (a deleted version deletes the document)."""
        if self.sides[index].deleted:
            self.take_deleted = index
            return
        self.take_deleted = None
        for row in self.rows:
            row.choice = index

    def keep_document(self) -> None:
        """Keep the document (undo choosing a deleted version)."""
        self.take_deleted = None

    def edit(self, path: str, text: str) -> None:
        """Set ``path`` to what the person typed: text fields take it as it is; other fields as
        text when the versions hold text, else as JSON (``MergeFormError`` when it is not)."""
        row = self.row(path)
        if row.text or all(isinstance(v, str) for v, p in zip(row.values, row.present, strict=True) if p):
            row.edited = text
        else:
            try:
                row.edited = json.loads(text)
            except ValueError as exc:
                raise MergeFormError(f"{row.label}: not a JSON value ({exc.args[0].split(':')[0]}); "
                                     "type text in quotes, a number, true, false, a list or an object") from None
        row.choice = EDITED

    def settle(self, path: str, block: int, take: str) -> None:
        """Settle conflicting passage ``block`` of the text of ``path`` with ``take`` (``ours``,
        ``theirs`` or ``both``); the text becomes an edit of the merge."""
        row = self.row(path)
        present, value = row.value()
        if not present or not isinstance(value, str):
            raise MergeFormError(f"{row.label} has no text to settle")
        row.edited = settle_block(value, block, take)
        row.choice = EDITED

    # -- the result ----------------------------------------------------------------------------
    def open_passages(self) -> dict[str, int]:
        """Text fields whose chosen text still has conflicting passages: label → count."""
        if self.take_deleted is not None:
            return {}
        return {row.label: row.open_passages() for row in self.rows if row.open_passages()}

    def undecided(self) -> list[FieldRow]:
        """Conflicting fields still on the current version's value (allowed: a hint to look)."""
        return [row for row in self.rows if row.conflict and row.choice == 0 and not row.text]

    def merged_document(self) -> dict[str, Any] | None:
        """The document the choices make (``None``: a deletion), on top of the current version.
        Raises ``MergeFormError`` while a text still has conflicting passages."""
        if self.take_deleted is not None:
            return None
        left = self.open_passages()
        if left:
            detail = ", ".join(f"{count} in {label}" for label, count in left.items())
            total = sum(left.values())
            raise MergeFormError(f"{counted(total, 'conflicting passage')} left ({detail}): "
                                 "choose a side for each, or edit the text")
        current = next((side.doc for side in self.sides if side.doc is not None), None)
        doc = copy.deepcopy(current) if current is not None else {"_id": self.doc_id}
        for row in self.rows:
            present, value = row.value()
            _set_path(doc, row.path.split("."), present, value)
        self._line_table(doc)
        return doc

    def _line_table(self, doc: dict[str, Any]) -> None:
        """A Script's line table for the merged text: the ids of the current version's table,
        then the compared version's (storyloom.script.line_ids.anchor_merged)."""
        content = doc.get("content")
        if not isinstance(content, dict) or not isinstance(content.get("script"), str):
            return
        tables = []
        for index in (0, self.compare):
            side = self.sides[index].doc if 0 <= index < len(self.sides) else None
            side_content = side.get("content") if isinstance(side, dict) else None
            if isinstance(side_content, dict) and isinstance(side_content.get("script"), str):
                tables.append(anchor(side_content.get(LINE_IDS), side_content["script"], self.doc_id))
            else:
                tables.append([])
        if any(tables) or LINE_IDS in content:
            content[LINE_IDS] = anchor_merged(tables[0], tables[1], content["script"], self.doc_id)

    def chosen_side(self) -> int | None:
        """The version the result equals field for field (every choice the same version), else
        ``None``; a resolution then takes that leaf as it is (its stamps too)."""
        if self.take_deleted is not None:
            return self.take_deleted
        chosen = {row.choice for row in self.rows}
        if len(chosen) == 1 and isinstance(next(iter(chosen)), int):
            return int(next(iter(chosen)))
        if not self.rows:
            return 0
        return None

    def resolve(self, editor: Any) -> str:
        """Write the result as the conflict's resolution (through the editor's gate: a lock
        held by someone else refuses it); returns the new revision."""
        taken = self.chosen_side()
        if taken is not None and self.sides[taken].rev is not None:
            return resolve_conflict(editor, self.doc_id, take=self.sides[taken].rev)
        merged = self.merged_document()
        assert merged is not None
        merged.pop("_rev", None)
        return resolve_conflict(editor, self.doc_id, merged=merged)


# -- building --------------------------------------------------------------------------------


def side_label(author: str | None, time: str | None, me: str | None, *, now: datetime | None = None) -> str:
    who = "You" if author and me and author == me else (author or "Someone")
    return f"{who} · {when_text(time, now)}" if time else who


def conflict_form(db: Any, conflict: Conflict, *, me: str | None = None, compare: int = 1,
                  now: datetime | None = None) -> MergeForm:
    """The merge of a conflicted document: its leaves, the winner first; the text merge and
    the "who changed what" use the nearest kept common ancestor of the winner and leaf
    ``compare``; leaves the server refused carry its reason."""
    refused = {rev: edit.reason for edit in list_refused(db) if edit.doc_id == conflict.doc_id for rev in edit.revs}
    sides = []
    for index, leaf in enumerate(conflict.leaves):
        label = side_label(leaf.author, leaf.time, me, now=now) if not leaf.deleted else "Deleted"
        if index == 0:
            label += " (current)"
        sides.append(Side(label, leaf.rev, leaf.author, leaf.time, None if leaf.deleted else leaf.doc,
                          winner=index == 0, refused=refused.get(leaf.rev)))
    compare = compare if 0 < compare < len(sides) else 1
    base = common_ancestor(db, conflict.doc_id, conflict.winner_rev, sides[compare].rev or "")
    return build_form(conflict.doc_id, conflict.name or conflict.doc_id, sides, base, compare=compare)


def unsaved_form(base: dict[str, Any], theirs: dict[str, Any], mine: dict[str, Any], *,
                 theirs_label: str = "Their version", mine_label: str = "Your unsaved text") -> MergeForm:
    """The merge of an editor's unsaved version (``mine``) with the revision that arrived
    (``theirs``), both from ``base`` (the revision the editor started from)."""
    sides = [Side(theirs_label, theirs.get("_rev"), theirs.get("modifiedBy"), theirs.get("modified"), theirs,
                  winner=True),
             Side(mine_label, None, None, None, mine)]
    name = theirs["name"] if isinstance(theirs.get("name"), str) else str(theirs.get("_id"))
    return build_form(str(theirs.get("_id")), name, sides, base)


def build_form(doc_id: str, name: str, sides: list[Side], base: dict[str, Any] | None, *,
               compare: int = 1) -> MergeForm:
    """The rows of the fields where the live versions differ, each with its default choice."""
    form = MergeForm(doc_id, name, sides, base, compare=compare)
    live = [i for i, side in enumerate(sides) if side.doc is not None]
    flats = {i: _fields(sides[i].doc) for i in live}
    base_flat = _fields(base)
    doc_type = next((sides[i].doc.get("type") for i in live if sides[i].doc), None)  # type: ignore[union-attr]
    paths: list[str] = []
    for i in live:
        paths.extend(p for p in flats[i] if p not in paths)
    for path in paths:
        if path == LINE_TABLE_PATH:
            continue  # never a person's choice: the merged document's table follows its text
        values = [flats[i].get(path, _ABSENT) if i in flats else _ABSENT for i in range(len(sides))]
        live_values = [values[i] for i in live]
        if all(_same(v, live_values[0]) for v in live_values[1:]):
            continue
        base_value = base_flat.get(path, _ABSENT)
        changed = [i in flats and (base is None or not _same(values[i], base_value)) for i in range(len(sides))]
        distinct: list[Any] = []
        for i in live:
            if changed[i] and not any(_same(values[i], d) for d in distinct):
                distinct.append(values[i])
        plain = [None if v is _ABSENT else v for v in values]
        text = is_text_field(path, doc_type, *(v for v in plain if v is not None))
        row = FieldRow(path, text, plain, [v is not _ABSENT for v in values],
                       None if base_value is _ABSENT else base_value, base_value is not _ABSENT,
                       changed, conflict=len(distinct) > 1)
        if not row.conflict:
            row.choice = next((i for i in live if changed[i]), live[0])
        else:
            row.choice = live[0]
            if text and compare in flats and live[0] in flats:
                ours, theirs = plain[live[0]] or "", plain[compare] or ""
                row.merged = merge_with_markers(base_value if isinstance(base_value, str) else "", ours, theirs,
                                                sides[live[0]].label, sides[compare].label)
                row.choice = MERGED
        form.rows.append(row)
    return form


def _fields(doc: dict[str, Any] | None) -> dict[str, Any]:
    if doc is None:
        return {}
    body = {k: v for k, v in doc.items() if (not k.startswith("_") or k == "_attachments") and k not in NOT_COMPARED}
    return flatten_fields(body)


def _same(a: Any, b: Any) -> bool:
    if a is _ABSENT or b is _ABSENT:
        return a is b
    return type(a) is type(b) and json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _set_path(doc: dict[str, Any], keys: list[str], present: bool, value: Any) -> None:
    target = doc
    for key in keys[:-1]:
        if not isinstance(target.get(key), dict):
            if not present:
                return
            target[key] = {}
        target = target[key]
    if present:
        target[keys[-1]] = copy.deepcopy(value)
    else:
        target.pop(keys[-1], None)


# -- text: the line merge with markers ---------------------------------------------------------


@dataclass(frozen=True)
class ConflictBlock:
    """A passage both versions changed, between markers: lines ``start`` (the ``<<<<<<<``
    line), ``middle`` and ``end`` (0-based, in the text's lines), and each version's lines."""

    start: int
    middle: int
    end: int
    ours_label: str
    theirs_label: str
    ours: list[str]
    theirs: list[str]


def merge_with_markers(base: str, ours: str, theirs: str, ours_label: str = "current",
                       theirs_label: str = "other") -> str:
    """The three-way line merge of ``ours`` and ``theirs`` from ``base`` (``merge3``): changes
    one side made are taken, passages both changed differently are kept between markers."""
    if ours == theirs or theirs == base:
        return ours
    if ours == base:
        return theirs
    out: list[str] = []
    merger = merge3.Merge3(base.splitlines(), ours.splitlines(), theirs.splitlines())
    for group in merger.merge_groups():
        if group[0] == "conflict":
            out.append(f"{START} {ours_label}")
            out.extend(group[2])
            out.append(MIDDLE)
            out.extend(group[3])
            out.append(f"{END} {theirs_label}")
        else:
            out.extend(group[1])
    ending = "\n" if ours.endswith("\n") or theirs.endswith("\n") else ""
    return "\n".join(out) + ending


def conflict_blocks(text: str) -> list[ConflictBlock]:
    """The passages still between markers in ``text`` (an unfinished block is not one)."""
    lines = text.split("\n")
    blocks: list[ConflictBlock] = []
    index = 0
    while index < len(lines):
        if not _marker(lines[index], START):
            index += 1
            continue
        middle = next((j for j in range(index + 1, len(lines)) if lines[j] == MIDDLE or _marker(lines[j], START)), None)
        if middle is None or lines[middle] != MIDDLE:
            index = middle if middle is not None else len(lines)
            continue
        end = next((j for j in range(middle + 1, len(lines)) if _marker(lines[j], END) or _marker(lines[j], START)),
                   None)
        if end is None or not _marker(lines[end], END):
            index = end if end is not None else len(lines)
            continue
        blocks.append(ConflictBlock(index, middle, end, lines[index][len(START):].strip(),
                                    lines[end][len(END):].strip(), lines[index + 1:middle], lines[middle + 1:end]))
        index = end + 1
    return blocks


def _marker(line: str, marker: str) -> bool:
    return line == marker or line.startswith(marker + " ")


def settle_block(text: str, block: int, take: str) -> str:
    """``text`` with passage ``block`` replaced by ``ours``, ``theirs`` or ``both`` (ours then theirs)."""
    blocks = conflict_blocks(text)
    if not 0 <= block < len(blocks):
        raise MergeFormError(f"there is no conflicting passage {block + 1}")
    chosen = blocks[block]
    if take not in ("ours", "theirs", "both"):
        raise MergeFormError(f"take one of ours, theirs or both, not {take!r}")
    lines = text.split("\n")
    replacement = {"ours": chosen.ours, "theirs": chosen.theirs, "both": chosen.ours + chosen.theirs}[take]
    return "\n".join(lines[:chosen.start] + replacement + lines[chosen.end + 1:])
