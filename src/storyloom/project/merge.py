"""Three-way merge of document revisions (docs/locks-and-conflicts.md, "Conflicts").

Pure: ``merge_documents(base, ours, theirs)`` looks at three bodies and nothing else. ``ours``
is the winning revision and ``theirs`` another leaf; ``base`` is their nearest common ancestor
whose body is kept (``None`` when there is none: both sides then count as additions).

- Each field is merged by value: a side that left it as in ``base`` takes the other side's
  value; two equal values are one; nested objects are merged key by key; lists are values.
- Text fields (:data:`TEXT_FIELDS`: script text, GDD markdown, property text...) that both
  sides changed are merged line by line with the ``merge3`` library (the diff3 rule: hunks that
  touch or overlap conflict).
- ``modified``/``modifiedBy`` come from the side with the later ``modified`` (the winner on a
  tie), so a merge is a pure function of its inputs.
- The lock fields move together: the side that changed them gives them; if both changed them
  differently the winner's lock is kept (every machine decides alike).
- A Script's line table (``content.lineIds``, :mod:`storyloom.project.line_ids`) is not merged
  as a value (both sides' tables differ whenever both edited): after the text merge, the merged
  table is anchored to the merged text from ours' table, then theirs'
  (:func:`storyloom.script.line_ids.anchor_merged`), so every line either side has keeps its id.
- A deleted side (``None`` or ``_deleted``): both deleted, or deleted against an unchanged
  other side, gives a deletion; deleted against an edit is a conflict.

Every other difference both sides made is a :class:`FieldConflict`; a merge with any conflict
has no ``merged`` body.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import merge3

from storyloom.project.line_ids import LINE_IDS
from storyloom.project.locks import lock_info
from storyloom.script.line_ids import MergeOrigins, anchor, anchor_merged, moved_apart

#: Text fields per document type, as paths into the body: merged line by line.
TEXT_FIELDS: dict[str, tuple[tuple[str, ...], ...]] = {
    "Script": (("content", "script"),),
    "Gdd": (("content", "gdd"),),
    "Actor": (("content", "bio"), ("content", "properties")),
    "Quest": (("content", "properties"), ("content", "conditions"), ("content", "notes")),
    "Item": (("content", "item"), ("content", "notes")),
    "Misc": (("content", "properties"), ("content", "notes")),
    "Variable": (("content", "variables"),),
    "Scenario": (("content", "scenario"),),
    "Attachment": (("content", "notes"),),
}
#: Text fields of every document type.
COMMON_TEXT_FIELDS: tuple[tuple[str, ...], ...] = (("comments",),)

#: The fields that hold a document's lock (storyloom.project.locks.LOCK_FIELDS), merged as one.
LOCK_FIELDS: tuple[str, ...] = ("locked", "lockedBy", "lockedAt", "lockBroken")
#: The stamps of the last edit, taken together from the later side.
STAMP_FIELDS: tuple[str, ...] = ("modified", "modifiedBy")

_ABSENT: Any = object()  # a field a revision does not have


@dataclass(frozen=True)
class FieldConflict:
    """A field both sides changed differently: its dotted ``path`` ("content.script",
    "_deleted" for an edit against a deletion) and the three values (``None`` when absent)."""

    path: str
    base: Any
    ours: Any
    theirs: Any

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "base": self.base, "ours": self.ours, "theirs": self.theirs}


@dataclass
class MergeOutcome:
    """``merged``: the merged body (``{"_deleted": True}`` for a deletion), or ``None`` when
    there are ``conflicts``. ``partial`` is the merge with the winner's value at each conflict
    (for a person to finish)."""

    merged: dict[str, Any] | None
    conflicts: list[FieldConflict] = field(default_factory=list)
    partial: dict[str, Any] | None = None

    @property
    def clean(self) -> bool:
        return not self.conflicts

    @property
    def deleted(self) -> bool:
        return bool(self.merged and self.merged.get("_deleted"))


def text_fields(doc_type: Any) -> tuple[tuple[str, ...], ...]:
    """The paths merged line by line in a document of ``doc_type``."""
    return TEXT_FIELDS.get(doc_type, ()) + COMMON_TEXT_FIELDS if isinstance(doc_type, str) else COMMON_TEXT_FIELDS


def body(doc: dict[str, Any] | None) -> dict[str, Any] | None:
    """A revision's fields without the store's ``_`` fields (``_attachments`` stays); ``None``
    for a deletion."""
    if doc is None or doc.get("_deleted"):
        return None
    return {k: v for k, v in doc.items() if not k.startswith("_") or k == "_attachments"}


def merge_text(base: str, ours: str, theirs: str) -> str | None:
    """The line-by-line three-way merge of three texts, or ``None`` when they do not merge
    (:func:`merge_lines`)."""
    if ours == theirs or theirs == base:
        return ours
    if ours == base:
        return theirs
    lines = merge_lines(base.splitlines(True), ours.splitlines(True), theirs.splitlines(True))
    return None if lines is None else "".join(line[0] for line in lines)


#: A merged line and where it comes from: its index among ours' lines and among theirs' (``None``
#: for a side it does not come from: a region only the other side changed), and whether its
#: region replaced lines of the base (an edit, rather than lines inserted).
MergedLine = tuple[str, int | None, int | None, bool]


def merge_lines(base: list[str], ours: list[str], theirs: list[str]) -> list[MergedLine] | None:
    """The three-way merge of three texts' lines (merge3's diff3 regions), each merged line with
    its origin; ``None`` when hunks touch or overlap, or when the merge would hold a line more
    often than either side does and than both sides' changes add up to: both sides moved that
    line, to different places (diff3 keeps both insertions and the one shared deletion), and a
    person says where it goes rather than the merge copying it."""
    out: list[MergedLine] = []
    ia = ib = iz = 0
    for zmatch, zend, amatch, aend, bmatch, bend in merge3.Merge3(base, ours, theirs).find_sync_regions():
        if amatch > ia or bmatch > ib:
            ours_part, theirs_part, base_part = ours[ia:amatch], theirs[ib:bmatch], base[iz:zmatch]
            replaces = zmatch > iz
            if ours_part == theirs_part:
                out.extend((line, ia + k, ib + k, replaces) for k, line in enumerate(ours_part))
            elif ours_part == base_part:
                out.extend((line, None, ib + k, replaces) for k, line in enumerate(theirs_part))
            elif theirs_part == base_part:
                out.extend((line, ia + k, None, replaces) for k, line in enumerate(ours_part))
            else:
                return None
        out.extend((ours[amatch + k], amatch + k, bmatch + k, False) for k in range(zend - zmatch))
        ia, ib, iz = aend, bend, zend
    return None if _copies_lines(base, ours, theirs, [line[0] for line in out]) else out


def _copies_lines(base: list[str], ours: list[str], theirs: list[str], merged: list[str]) -> bool:
    """Whether ``merged`` holds a (non-blank) line more often than ours, than theirs and than
    ``ours + theirs - base``: a clean diff3 merge adds both sides' changes, except that a change
    both sides made counts once, so only a shared deletion with separate insertions (one line
    moved two ways) goes over."""
    counts = [Counter(line.strip() for line in lines) for lines in (base, ours, theirs)]
    in_base, in_ours, in_theirs = counts
    for line, count in Counter(line.strip() for line in merged).items():
        if line and count > max(in_ours[line], in_theirs[line], in_ours[line] + in_theirs[line] - in_base[line]):
            return True
    return False


def merge_documents(base: dict[str, Any] | None, ours: dict[str, Any] | None,
                    theirs: dict[str, Any] | None) -> MergeOutcome:
    """Merge ``theirs`` into ``ours`` (the winner) from their common ancestor ``base``."""
    base_body, ours_body, theirs_body = body(base), body(ours), body(theirs)
    if ours_body is None or theirs_body is None:
        return _merge_deletion(base_body, ours_body, theirs_body)
    base_body = base_body or {}
    doc_id = str((ours or {}).get("_id") or (theirs or {}).get("_id") or "")
    tables = None
    if "Script" in (ours_body.get("type"), theirs_body.get("type")):
        tables, (base_body, ours_body, theirs_body) = _line_tables(base_body, ours_body, theirs_body, doc_id)
    conflicts: list[FieldConflict] = []
    texts = {path for path in text_fields(ours_body.get("type") or theirs_body.get("type"))}
    merged = _merge_dicts(base_body, ours_body, theirs_body, (), texts, conflicts, skip=LOCK_FIELDS + STAMP_FIELDS)
    _merge_group(merged, LOCK_FIELDS, base_body, ours_body, theirs_body, state=_lock_state)
    _take_stamps(merged, ours_body, theirs_body)
    if tables is not None and not _merged_line_table(merged, tables, doc_id, (base_body, ours_body, theirs_body)):
        scripts = (_script_of(side) for side in (base_body, ours_body, theirs_body))
        conflicts.append(FieldConflict("content.script", *scripts))
        merged["content"]["script"] = ours_body["content"]["script"]
        merged["content"][LINE_IDS] = copy.deepcopy(tables[1])
    if conflicts:
        return MergeOutcome(None, conflicts, merged)
    return MergeOutcome(merged, [], merged)


def _line_tables(base: dict[str, Any], ours: dict[str, Any], theirs: dict[str, Any], doc_id: str
                 ) -> tuple[tuple[Any, Any, Any] | None, tuple[dict[str, Any], dict[str, Any], dict[str, Any]]]:
    """The base's and each side's line table anchored to its own text (a side a Drafft teammate wrote may hold a
    stale one), ``None`` when no side has a table; and the three bodies without the tables (the
    bodies given are not changed)."""
    found = []
    stripped = []
    for side in (base, ours, theirs):
        content = side.get("content")
        if isinstance(content, dict) and LINE_IDS in content:
            table = content[LINE_IDS]
            script = content.get("script")
            found.append(anchor(table, script, doc_id) if isinstance(script, str) else None)
            side = {**side, "content": {k: v for k, v in content.items() if k != LINE_IDS}}
        else:
            found.append(None)
        stripped.append(side)
    tables = None if found[1] is None and found[2] is None else (found[0], found[1], found[2])
    return tables, (stripped[0], stripped[1], stripped[2])


def _merged_line_table(merged: dict[str, Any], tables: tuple[Any, Any, Any], doc_id: str,
                       sides: tuple[dict[str, Any], dict[str, Any], dict[str, Any]]) -> bool:
    """Give the merged script its line table: each line keeps the id its side gave it, found
    through the text merge's regions (a line only one side changed has that side's id first).
    False, with no table given, when the merge would put one id on two lines (both sides moved a
    line, to different places: :func:`storyloom.script.line_ids.moved_apart`)."""
    content = merged.get("content")
    if not isinstance(content, dict) or not isinstance(content.get("script"), str):
        return True
    text = content["script"]
    base, ours, theirs = (_script_of(side) for side in sides)
    origins: MergeOrigins | None = None
    if ours is not None and theirs is not None:
        lines: list[MergedLine] | None
        if text == ours and (ours == theirs or theirs == base):
            lines = [(line, i, i if ours == theirs else None, False) for i, line in enumerate(ours.splitlines(True))]
        elif text == theirs and ours == base:
            lines = [(line, None, i, False) for i, line in enumerate(theirs.splitlines(True))]
        else:
            lines = merge_lines((base or "").splitlines(True), ours.splitlines(True), theirs.splitlines(True))
        if lines is not None and "".join(line[0] for line in lines) == text:
            origins = (ours, theirs, [(i, j, replaces) for _, i, j, replaces in lines])
            if moved_apart((base or "", tables[0]), tables[1], tables[2], text, doc_id, origins):
                return False
    content[LINE_IDS] = anchor_merged(tables[1], tables[2], text, doc_id, origins)
    return True


def _script_of(side: dict[str, Any]) -> str | None:
    content = side.get("content")
    script = content.get("script") if isinstance(content, dict) else None
    return script if isinstance(script, str) else None


def _merge_deletion(base: dict[str, Any] | None, ours: dict[str, Any] | None,
                    theirs: dict[str, Any] | None) -> MergeOutcome:
    if ours is None and theirs is None:
        return MergeOutcome({"_deleted": True})
    alive = ours if ours is not None else theirs
    assert alive is not None
    ignored = STAMP_FIELDS + LOCK_FIELDS
    if base is not None and _same(_without(alive, ignored), _without(base, ignored)):
        return MergeOutcome({"_deleted": True})
    conflict = FieldConflict("_deleted", False, ours is None, theirs is None)
    return MergeOutcome(None, [conflict], copy.deepcopy(alive))


def _without(doc: dict[str, Any], keys: Iterable[str]) -> dict[str, Any]:
    skipped = set(keys)
    return {k: v for k, v in doc.items() if k not in skipped}


def _same(a: Any, b: Any) -> bool:
    # JSON equality: 1 and True (or 1 and 1.0) are different values in a document.
    return type(a) is type(b) and a == b if not isinstance(a, dict | list) else _json_equal(a, b)


def _json_equal(a: Any, b: Any) -> bool:
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(_json_equal(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def _merge_dicts(base: dict[str, Any], ours: dict[str, Any], theirs: dict[str, Any], path: tuple[str, ...],
                 texts: set[tuple[str, ...]], conflicts: list[FieldConflict],
                 skip: tuple[str, ...] = ()) -> dict[str, Any]:
    """Key by key; the result lists ``ours``' keys in their order, then the keys only
    ``theirs`` has, in theirs' order (the order is part of the stored body)."""
    merged: dict[str, Any] = {}
    for key in [*ours, *(k for k in theirs if k not in ours)]:
        if key in skip:
            continue
        value = _merge_value(base.get(key, _ABSENT), ours.get(key, _ABSENT), theirs.get(key, _ABSENT),
                             (*path, key), texts, conflicts)
        if value is not _ABSENT:
            merged[key] = value
    return merged


def _merge_value(base: Any, ours: Any, theirs: Any, path: tuple[str, ...], texts: set[tuple[str, ...]],
                 conflicts: list[FieldConflict]) -> Any:
    if _same(ours, theirs) or _same(theirs, base):
        return _copied(ours)
    if _same(ours, base):
        return _copied(theirs)
    if isinstance(ours, dict) and isinstance(theirs, dict):
        return _merge_dicts(base if isinstance(base, dict) else {}, ours, theirs, path, texts, conflicts)
    if path in texts and isinstance(ours, str) and isinstance(theirs, str):
        merged = merge_text(base if isinstance(base, str) else "", ours, theirs)
        if merged is not None:
            return merged
    conflicts.append(FieldConflict(".".join(path), _plain(base), _plain(ours), _plain(theirs)))
    return _copied(ours)


def _copied(value: Any) -> Any:
    return value if value is _ABSENT else copy.deepcopy(value)


def _plain(value: Any) -> Any:
    return None if value is _ABSENT else copy.deepcopy(value)


def _lock_state(doc: dict[str, Any]) -> dict[str, Any]:
    """The lock a body means, not how it spells it: a free document is free whether it has
    ``lockedAt: null`` or no ``lockedAt`` (documents are created without it, an unlock writes
    null). Otherwise a released lost lock would count as a lock change and beat the holder's
    lock on the other side."""
    info = lock_info(doc)
    return {"holder": info.holder if info else None, "since": info.since if info else None,
            "broken": doc.get("lockBroken")}


def _merge_group(merged: dict[str, Any], keys: tuple[str, ...], base: dict[str, Any], ours: dict[str, Any],
                 theirs: dict[str, Any], *, state: Any = None) -> None:
    """The fields ``keys`` as one value: from the side that changed them, the winner's when
    both did (differently). ``state(doc)`` is what is compared (default: the fields as they are)."""

    def group(doc: dict[str, Any]) -> Any:
        return state(doc) if state is not None else {k: doc[k] for k in keys if k in doc}

    source = theirs if _same(group(ours), group(base)) and not _same(group(theirs), group(base)) else ours
    for key in keys:
        if key in source:
            merged[key] = copy.deepcopy(source[key])


def _take_stamps(merged: dict[str, Any], ours: dict[str, Any], theirs: dict[str, Any]) -> None:
    """``modified``/``modifiedBy`` of the later edit (ISO-8601 UTC strings compare as times);
    the winner's on a tie or when a side has no usable stamp."""
    ours_at, theirs_at = ours.get("modified"), theirs.get("modified")
    later = theirs if isinstance(theirs_at, str) and (not isinstance(ours_at, str) or theirs_at > ours_at) else ours
    for key in STAMP_FIELDS:
        if key in later:
            merged[key] = copy.deepcopy(later[key])
