"""Stable line ids of a script's speech lines (docs/localization.md).

A speech line's id is what a translation, a recording and a game's save file name it by, so it
stays with the line while the writer edits other lines, inserts lines above it, moves it, and
while teams merge. Pure: no store, no document; the project's editor gate, the three-way merge
and the exporters call these functions.

- A speech line with Drafft's tag prefix (``[#tag]::Actor:: ...``) has the tag as its id.
- Every other speech line has an entry in the document's side table ``content.lineIds``: a
  list, in speech-line order, of ``[id, fingerprint]``, where the fingerprint is a short hash of
  the line's text (stripped). The writer never sees the table.
- :func:`anchor` re-aligns a table with the current text: lines whose fingerprint matches keep
  their ids (:class:`difflib.SequenceMatcher` alignment, then a line moved elsewhere by its
  fingerprint), an edited line in a replaced run of lines keeps the id of the line it replaced
  (positionally), and the rest get new ids. A new id is a pure function of the document id,
  the fingerprint and its occurrence (bumped past ids already used), so two machines that
  anchor the same table against the same text compute the same ids.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from difflib import SequenceMatcher
from typing import Any

__all__ = [
    "LINE_ID_LENGTH",
    "LineTable",
    "MergeOrigins",
    "anchor",
    "anchor_merged",
    "fingerprint",
    "is_current",
    "moved_apart",
    "new_line_id",
    "normalise_table",
    "reanchor",
    "speech_line_ids",
    "speech_lines",
]

#: ``[[id, fingerprint], ...]``: one entry per untagged speech line, in speech-line order.
LineTable = list[list[str]]

#: Where a merged text's lines come from: ours' text, theirs' text, and for each merged line its
#: index among ours' lines and among theirs' (``None`` for a side it does not come from) and
#: whether it replaced lines of the base (an edit) rather than being inserted.
MergeOrigins = tuple[str, str, Sequence[tuple[int | None, int | None, bool]]]

#: The length of a generated id: 12 base32 characters (60 bits), lowercase.
LINE_ID_LENGTH = 12


def speech_lines(text: str) -> list[tuple[str | None, str]]:
    """``(tag, stripped line)`` of every speech line of ``text``, in order: exactly the lines
    :func:`storyloom.script.parse_script` reads as speech (``tag`` is ``None`` without one).

    A line-level classification (no expression checks), remembered per line, so the editor
    gate, which reads the previous text and the new one at every write, pays a dictionary
    look-up for each line it saw before.
    """
    return [(found[0], found[1]) for found in _scan(text)]


def _scan(text: str) -> list[tuple[str | None, str, str]]:
    """``(tag, stripped line, fingerprint)`` of every speech line of ``text``."""
    memo = _lines
    found = []
    for raw in text.splitlines():
        info = memo.get(raw)
        if info is None:
            info = _classify_memo(raw)
        if info is not _NOT_SPEECH:
            found.append(info)
    return found


def _classify_memo(raw: str) -> tuple[str | None, str, str]:
    """:func:`_classify`, remembered."""
    info = _lines.get(raw)
    if info is None:
        info = _classify(raw)
        if len(_lines) >= _MEMO_LIMIT:
            _lines.clear()
        _lines[raw] = info
    return info


def _classify(raw: str) -> tuple[str | None, str, str]:
    """The parser's rule (storyloom.script.parser: ``line``, ``tagged``, ``speech``): the stripped
    line starts with ``::``, or with a tag ``[#name]`` (letters, digits, "_" or ".") and
    whitespace then ``::``; the actor, up to the next ``::``, is not blank."""
    stripped = raw.strip()
    if stripped[:2] == "::":
        tag, body = None, stripped
    elif stripped[:2] == "[#" and (match := _TAG_RE.match(stripped)) is not None:
        tag, body = match.group(1), stripped[match.end():]
        if body[:2] != "::":
            return _NOT_SPEECH
    else:
        return _NOT_SPEECH
    close = body.find("::", 2)
    if close < 0 or not body[2:close].strip():
        return _NOT_SPEECH
    return tag, stripped, fingerprint(stripped)


def fingerprint(line: str) -> str:
    """A short hash (12 hex digits) of a speech line's text, surrounding whitespace stripped."""
    return hashlib.blake2b(line.strip().encode("utf-8", "surrogatepass"), digest_size=6).hexdigest()


_TAG_RE = re.compile(r"\[#([\w.]+)\]\s*")
_NOT_SPEECH: tuple[str | None, str, str] = (None, "", "")
# Every write of a script reads its lines again (the previous text's and the new one's), and
# most lines did not change: a bounded memo of recent lines, speech or not (at most some 8 MB;
# emptied when full, so an export of a large project never holds every line).
_MEMO_LIMIT = 16384
_lines: dict[str, tuple[str | None, str, str]] = {}


def new_line_id(doc_id: str, key: str, occurrence: int, used: Iterable[str] | set[str] = ()) -> str:
    """A generated line id: base32 of sha256 over (document id, ``key``, ``occurrence``),
    :data:`LINE_ID_LENGTH` lowercase characters, bumped (a counter in the hash) while it is in
    ``used``. ``key`` is a line's fingerprint (scripts) or its place (dialogue objects)."""
    taken = used if isinstance(used, set) else set(used)
    bump = 0
    while True:
        seed = f"{doc_id}\x00{key}\x00{occurrence}\x00{bump}" if bump else f"{doc_id}\x00{key}\x00{occurrence}"
        digest = hashlib.sha256(seed.encode("utf-8", "surrogatepass")).digest()
        # The first 12 characters of the digest's base32 are those of its first 10 bytes (base32
        # writes each 5 bytes as 8 characters on their own): a fifth of the encoding.
        candidate = base64.b32encode(digest[:10]).decode("ascii").lower()[:LINE_ID_LENGTH]
        if candidate not in taken:
            return candidate
        bump += 1


def normalise_table(value: Any) -> LineTable:
    """A stored ``content.lineIds`` as a table: well-formed ``[id, fingerprint]`` entries of
    non-empty strings; anything else (a damaged or foreign value) is dropped."""
    if type(value) is not list:
        return []
    return [[entry[0], entry[1]] for entry in value
            if type(entry) in _PAIRS and len(entry) == 2 and type(entry[0]) is str and entry[0]
            and type(entry[1]) is str and entry[1]]


_PAIRS = (list, tuple)


def is_current(table: Any, text: str) -> bool:
    """Whether ``table`` matches ``text`` as it is: one entry per untagged speech line, same
    fingerprints, distinct ids that no tag of the text uses (so :func:`anchor` would keep it)."""
    lines = _scan(text)
    fps = [fp for tag, _, fp in lines if tag is None]
    tags = {tag for tag, _, _ in lines if tag is not None}
    return _current(table, fps, tags)


def _current(raw: Any, fps: list[str], tags: set[str], *, formed: bool = False) -> bool:
    """Whether the stored value ``raw`` is already the table of lines ``fps`` (the common case,
    checked without building a table: list comprehensions and set sizes). ``formed``: ``raw`` is
    known to be a table (the gate's own), its entries are not looked at one by one first."""
    if type(raw) is not list or len(raw) != len(fps):
        return False
    if not formed and not all(type(entry) is list and len(entry) == 2 for entry in raw):
        return False
    if [entry[1] for entry in raw] != fps:
        return False
    ids = [entry[0] for entry in raw]
    return ((formed or all(type(line_id) is str and line_id for line_id in ids)) and len(set(ids)) == len(ids)
            and tags.isdisjoint(ids))


def anchor(previous: Any, text: str, doc_id: str) -> LineTable:
    """The line table of ``text``, keeping the ids of ``previous`` (a stored table, possibly
    stale or damaged) wherever a line survives: see the module's description."""
    lines = _scan(text)
    fps = [fp for tag, _, fp in lines if tag is None]
    tags = {tag for tag, _, _ in lines if tag is not None}
    if _current(previous, fps, tags):
        return [list(entry) for entry in previous]
    return _assign([normalise_table(previous)], fps, doc_id, tags)


def reanchor(previous: Any, previous_text: str, text: str, doc_id: str, *, previous_current: bool = False) -> LineTable:
    """``anchor(anchor(previous, previous_text, doc_id), text, doc_id)``: the table of an edit's
    ``text`` from the table of the text it replaces (the editor gate's case at every write).
    A ``previous`` table current for ``previous_text`` (the gate wrote it) is read as it is,
    never copied nor normalised first: at an autosave of a 5,000-line script those copies of a
    table of thousands of entries were most of the anchoring's work. ``previous_current``: the
    caller knows it is current (the gate wrote that revision so), and it is not checked against
    ``previous_text`` either. ``previous`` is left alone."""
    if previous_current and type(previous) is list:
        base = previous  # written by the gate: a table of [id, fingerprint] strings
    else:
        lines = _scan(previous_text)
        fps = [fp for tag, _, fp in lines if tag is None]
        tags = {tag for tag, _, _ in lines if tag is not None}
        base = previous if _current(previous, fps, tags) else _assign([normalise_table(previous)], fps, doc_id, tags)
    lines = _scan(text)
    fps = [fp for tag, _, fp in lines if tag is None]
    tags = {tag for tag, _, _ in lines if tag is not None}
    if _current(base, fps, tags, formed=True):  # the gate's, checked above, or made by _assign
        return [list(entry) for entry in base]
    return _assign([base], fps, doc_id, tags)  # reads ``base``, changes nothing in it


def anchor_merged(ours: Any, theirs: Any, text: str, doc_id: str, origins: MergeOrigins | None = None) -> LineTable:
    """The line table of a merged ``text``. ``ours`` and ``theirs`` are each side's table,
    already anchored to its own text. With ``origins`` (the text merge's regions), a line takes
    the id its side gave it: first the lines of a region one side edited (an edited line keeps
    its id, as in the editor), then lines one side inserted (a pasted copy may carry the id the
    other side's edit keeps), then lines both sides hold (ours' id, else theirs'). Lines still
    without an id (or without ``origins``, as in a merge a person wrote) take a side's id by
    fingerprint (ours first), an edited line aligns with ours, and new lines get new ids."""
    lines = _scan(text)
    fps = [fp for tag, _, fp in lines if tag is None]
    tags = {tag for tag, _, _ in lines if tag is not None}
    tables = [normalise_table(ours), normalise_table(theirs)]
    preferred = None
    if origins is not None:
        ours_text, theirs_text, where = origins
        by_line = (_ids_by_line(ours_text, tables[0], doc_id), _ids_by_line(theirs_text, tables[1], doc_id))
        preferred = []
        for raw, (in_ours, in_theirs, replaces) in zip(text.splitlines(), where, strict=True):
            info = _classify_memo(raw)
            if info is _NOT_SPEECH or info[0] is not None:
                continue
            candidates = tuple(line_id for side, at in zip(by_line, (in_ours, in_theirs), strict=True)
                               if at is not None and (line_id := side[at]) is not None)
            rank = (0 if replaces else 1) if in_ours is None or in_theirs is None else 2
            preferred.append((rank, candidates))
    return _assign(tables, fps, doc_id, tags, preferred)


def _ids_by_line(text: str, table: LineTable, doc_id: str) -> list[str | None]:
    """The id of each line of ``text`` that is an untagged speech line (``None`` for others)."""
    untagged = iter(entry[0] for entry in anchor(table, text, doc_id))
    return [next(untagged) if info is not _NOT_SPEECH and info[0] is None else None
            for info in map(_classify_memo, text.splitlines())]


def moved_apart(base: tuple[str, Any], ours: Any, theirs: Any, text: str, doc_id: str,
                origins: MergeOrigins) -> list[str]:
    """The ids a merged ``text`` would give to two lines: a tag on more lines than either side
    has it, or an untagged line's id that both sides moved away from its place in the base
    (``(text, table)``) to different places, where the three-way merge keeps both (its one
    shared deletion and two insertions). A person says where such a line goes."""
    ours_text, theirs_text, where = origins
    tag_counts = [Counter(tag for tag, _, _ in _scan(side) if tag is not None) for side in (ours_text, theirs_text)]
    found = [tag for tag, count in Counter(tag for tag, _, _ in _scan(text) if tag is not None).items()
             if count > max(tag_counts[0][tag], tag_counts[1][tag])]
    base_text, base_table = base
    base_at = {line_id: i for i, line_id in enumerate(_ids_by_line(base_text, normalise_table(base_table), doc_id))
               if line_id is not None}
    sides = []
    for side_text, table in ((ours_text, ours), (theirs_text, theirs)):
        by_line = _ids_by_line(side_text, normalise_table(table), doc_id)
        sides.append((by_line, _moved(base_text.splitlines(), side_text.splitlines(), base_at, by_line)))
    claimed: dict[str, set[int]] = {}
    for in_ours, in_theirs, _ in where:
        if (in_ours is None) == (in_theirs is None):  # a line both sides hold is one line
            continue
        side, at = (0, in_ours) if in_ours is not None else (1, in_theirs)
        assert at is not None
        line_id = sides[side][0][at]
        if line_id is not None and line_id in sides[side][1]:
            claimed.setdefault(line_id, set()).add(side)
    return found + [line_id for line_id, by in claimed.items() if len(by) == 2]


def _moved(base_lines: list[str], side_lines: list[str], base_at: dict[str, int],
           by_line: list[str | None]) -> set[str]:
    """The ids of ``by_line`` (a side's lines) whose line is not where the base had it: not in
    an unchanged run at the base line's place, nor in an edited run that covers it."""
    moved = set()
    for kind, i1, i2, j1, j2 in _opcodes(base_lines, side_lines):
        for j in range(j1, j2):
            line_id = by_line[j]
            if line_id is None or line_id not in base_at:
                continue
            at = base_at[line_id]
            if (kind == "equal" and at == i1 + j - j1) or (kind == "replace" and i1 <= at < i2):
                continue
            moved.add(line_id)
    return moved


def speech_line_ids(text: str, table: Any, doc_id: str) -> list[str]:
    """The id of every speech line of ``text`` in order: its tag, else its entry of ``table``
    (anchored first when stale, as a reader must: the text may have changed without Storyloom)."""
    lines = _scan(text)
    fps = [fp for tag, _, fp in lines if tag is None]
    tags = {tag for tag, _, _ in lines if tag is not None}
    current = table if _current(table, fps, tags) else _assign([normalise_table(table)], fps, doc_id, tags)
    untagged = iter(entry[0] for entry in current)
    return [tag if tag is not None else next(untagged) for tag, _, _ in lines]


# ------------------------------------------------------------------------------- alignment


def _opcodes(old: Sequence[str], new: Sequence[str]) -> list[tuple[str, int, int, int, int]]:
    """SequenceMatcher's opcodes of ``old`` against ``new``, the common head and tail trimmed
    first (an edit touches a few lines of a long script: the matcher sees only those)."""
    head = 0
    limit = min(len(old), len(new))
    while head < limit and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < limit - head and old[len(old) - 1 - tail] == new[len(new) - 1 - tail]:
        tail += 1
    codes: list[tuple[str, int, int, int, int]] = []
    if head:
        codes.append(("equal", 0, head, 0, head))
    middle_old, middle_new = old[head:len(old) - tail], new[head:len(new) - tail]
    if middle_old or middle_new:
        matcher = SequenceMatcher(None, middle_old, middle_new, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            codes.append((tag, i1 + head, i2 + head, j1 + head, j2 + head))
    if tail:
        codes.append(("equal", len(old) - tail, len(old), len(new) - tail, len(new)))
    return codes


class _Ids:
    """The ids given so far to the lines of the new text, and every id taken (tags included)."""

    def __init__(self, count: int, tags: set[str]) -> None:
        self.ids: list[str | None] = [None] * count
        self.used: set[str] = set(tags)

    def give(self, j: int, line_id: str) -> None:
        if self.ids[j] is None and line_id not in self.used:
            self.ids[j] = line_id
            self.used.add(line_id)


def _assign(tables: list[LineTable], fps: list[str], doc_id: str, tags: set[str],
            preferred: Sequence[tuple[int, tuple[str, ...]]] | None = None) -> LineTable:
    """Ids for the lines ``fps`` from ``tables`` (the first one primary): first each line's
    ``preferred`` candidates (``(rank, ids)``: rank 0 first), then aligned runs of each
    table, fingerprints anywhere in each table (a line moved), lines of a replaced run of the
    primary table paired in order (edited lines), and new ids."""
    if not any(tables):  # no table to keep ids from (a Drafft teammate's script, an import): all new
        return _new_ids([None] * len(fps), fps, doc_id, set(tags))
    given = _Ids(len(fps), tags)
    if preferred is not None:
        for rank in sorted({rank for rank, _ in preferred}):
            for j, (line_rank, candidates) in enumerate(preferred):
                if line_rank == rank:
                    for line_id in candidates:
                        given.give(j, line_id)
    all_codes = [_opcodes([fp for _, fp in table], fps) for table in tables]
    ids, used = given.ids, given.used
    for table, codes in zip(tables, all_codes, strict=True):
        for tag, i1, i2, j1, _j2 in codes:
            if tag != "equal":
                continue
            for j, entry in zip(range(j1, j1 + i2 - i1), table[i1:i2], strict=True):  # the hot loop: inline
                line_id = entry[0]
                if ids[j] is None and line_id not in used:
                    ids[j] = line_id
                    used.add(line_id)
    for table in tables:
        _by_fingerprint(table, fps, given)
    if tables:
        for tag, i1, i2, j1, j2 in all_codes[0]:
            if tag == "replace":
                olds = [tables[0][i][0] for i in range(i1, i2) if tables[0][i][0] not in given.used]
                news = [j for j in range(j1, j2) if given.ids[j] is None]
                for j, line_id in zip(news, olds, strict=False):
                    given.give(j, line_id)
    return _new_ids(ids, fps, doc_id, used)


def _new_ids(ids: list[str | None], fps: list[str], doc_id: str, used: set[str]) -> LineTable:
    """The table of lines ``fps`` whose kept ids are ``ids``, a new id for each line without one."""
    if None not in ids:
        return [[line_id, fp] for line_id, fp in zip(ids, fps, strict=True)]  # type: ignore[list-item]
    seen: dict[str, int] = {}
    result: LineTable = []
    for j, fp in enumerate(fps):
        occurrence = seen.get(fp, 0)
        seen[fp] = occurrence + 1
        kept = ids[j]
        if kept is None:
            kept = new_line_id(doc_id, fp, occurrence, used)
            used.add(kept)
        result.append([kept, fp])
    return result


def _by_fingerprint(table: LineTable, fps: list[str], given: _Ids) -> None:
    """Lines still without an id take the id of an entry of ``table`` with their fingerprint
    that no line has yet (first come, first served): a line moved out of its aligned run."""
    waiting: dict[str, list[str]] = {}
    for line_id, fp in table:
        if line_id not in given.used:
            waiting.setdefault(fp, []).append(line_id)
    for j, fp in enumerate(fps):
        candidates = waiting.get(fp)
        if given.ids[j] is not None or not candidates:
            continue
        while candidates and candidates[0] in given.used:
            candidates.pop(0)
        if candidates:
            given.give(j, candidates.pop(0))
