"""Parsing a script again after an edit at the cost of the lines that changed.

:class:`IncrementalParser` keeps each line's parse (its typed lines, problems and
interpolations) from the text it parsed last. Given the next text it reuses the unchanged lines
before and after the edit, parses the lines between, renumbers the lines after the edit when
the edit added or removed lines, and checks the ``@if`` structure again over the directive lines
(the one part of a line's parse that depends on the lines before it). The result equals
:func:`storyloom.script.parse_script`'s for the same text and ``known_state``.

It is meant for a worker thread: ``pause`` is called between slices of the work (1.5 to 4 ms
of CPU each on the 2-vCPU benchmark machine), so a thread that gives up the GIL there lets the GUI thread run at once
instead of after Python's switch interval; ``cancelled`` is asked at the same points, and a
cancelled parse returns None and keeps the previous text's parse. One lock makes it safe to call
from several threads (one parse at a time). A finished parse of a long script is also kept for
:func:`~storyloom.script.parse_script` of the same text and variables."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import fields
from operator import attrgetter
from typing import Any, NamedTuple

from storyloom.script.lines import ElseLine, EndIfLine, IfLine, Interpolation, Problem, ScriptLine
from storyloom.script.parser import STRUCTURE_CODES, ParsedScript, _ScriptParser, remember

__all__ = ["IncrementalParser"]

SLICE_LINES = 64
"""Lines parsed (or renumbered, eight times as many) between two calls of ``pause``: 1.5 to 4 ms
of work."""

REMEMBERED_LINES = 200
"""A parse of a script this long is kept for :func:`~storyloom.script.parse_script` of the same
text (``parser.remember``): what checks the script once it is saved reads it instead of parsing
it again."""

_UNSET: Any = object()
_DIRECTIVES = {IfLine: "if", ElseLine: "else", EndIfLine: "endif"}


class _Row(NamedTuple):
    """One line of the text and its parse (numbered for where it sits)."""

    lines: tuple[ScriptLine, ...]
    problems: tuple[Problem, ...]
    interpolations: tuple[Interpolation, ...]
    directive: tuple[str, int] | None  # ("if" | "else" | "endif", column) for the structure check


_EMPTY = _Row((), (), (), None)
_OTHER_FIELDS: dict[type, Callable[[Any], tuple[Any, ...]]] = {}


def _renumbered_line(line: ScriptLine, number: int) -> ScriptLine:
    cls = type(line)
    others = _OTHER_FIELDS.get(cls)
    if others is None:
        names = [f.name for f in fields(cls) if f.name != "line"]
        getter = attrgetter(*names) if names else (lambda _line: ())
        others = _OTHER_FIELDS[cls] = getter if len(names) != 1 else (lambda line: (getter(line),))
    return cls(number, *others(line))


def _renumbered(row: _Row, number: int) -> _Row:
    lines = tuple([_renumbered_line(line, number) for line in row.lines])
    if not row.problems and not row.interpolations:  # most lines
        return _Row(lines, (), (), row.directive)
    return _Row(
        lines,
        tuple([Problem(p.message, p.code, p.severity, p.doc_id, p.field, p.expected, number, p.column)
               for p in row.problems]),
        tuple([Interpolation(number, i.column, i.expression) for i in row.interpolations]),
        row.directive,
    )


class IncrementalParser:
    """``parse(text, known_state)`` as :func:`~storyloom.script.parse_script` parses, reusing the
    previous call's work for the lines the edit left alone. One instance per edited script."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._raws: list[str] = []
        self._rows: list[_Row] = []
        self._known: Mapping[str, Any] | None = _UNSET

    def parse(self, text: str, known_state: Mapping[str, Any] | None = None, *,
              pause: Callable[[], None] | None = None,
              cancelled: Callable[[], bool] | None = None) -> ParsedScript | None:
        """The parse of ``text``; None when ``cancelled()`` said so before it was done."""
        with self._lock:
            return self._parse(text, known_state, pause or _nothing, cancelled or _never)

    def _parse(self, text: str, known: Mapping[str, Any] | None, pause: Callable[[], None],
               cancelled: Callable[[], bool]) -> ParsedScript | None:
        if not isinstance(text, str):
            text = "" if text is None else str(text)
        if known is not self._known and known != self._known:
            # other variables: every path check may read differently
            self._raws, self._rows, self._known = [], [], known
        raws = text.splitlines()
        old_raws, old_rows = self._raws, self._rows
        limit = min(len(raws), len(old_raws))
        head = 0
        while head < limit and raws[head] == old_raws[head]:
            head += 1
        tail = 0
        while tail < limit - head and raws[-1 - tail] == old_raws[-1 - tail]:
            tail += 1
        rows = old_rows[:head]
        parser = _ScriptParser(known)
        result = parser.result
        for index in range(head, len(raws) - tail):
            if (index - head) % SLICE_LINES == SLICE_LINES - 1:
                pause()
                if cancelled():
                    return None
            raw = raws[index]
            if not raw or raw.isspace():
                rows.append(_EMPTY)
                continue
            del result.lines[:], result.problems[:], result.interpolations[:]
            try:
                parser.line(index + 1, raw)
            except RecursionError:  # pragma: no cover - as parse_script says it
                parser.problem(index + 1, 1, "bad-expression", "line too deeply nested to read")
            directive = next((_DIRECTIVES[type(line)] for line in result.lines if type(line) in _DIRECTIVES), None)
            rows.append(_Row(
                tuple(result.lines),
                tuple(p for p in result.problems if p.code not in STRUCTURE_CODES),
                tuple(result.interpolations),
                None if directive is None else (directive, raw.find("@") + 1),
            ))
            parser.if_stack.clear()
        if tail:
            shift = len(raws) - len(old_raws)
            kept = old_rows[len(old_rows) - tail:]
            if shift:
                start = len(raws) - tail
                for offset, row in enumerate(kept):
                    if offset % (8 * SLICE_LINES) == 8 * SLICE_LINES - 1:
                        pause()
                        if cancelled():
                            return None
                    rows.append(row if row is _EMPTY else _renumbered(row, start + offset + 1))
            else:
                rows.extend(kept)
        parsed = _assemble(rows, known)
        self._raws, self._rows = raws, rows
        if len(raws) >= REMEMBERED_LINES:
            remember(text, known, parsed)
        return parsed


def _assemble(rows: list[_Row], known: Mapping[str, Any] | None) -> ParsedScript:
    """The rows as one parse, with the ``@if`` structure checked again over them."""
    structure = _ScriptParser(known)
    lines: list[ScriptLine] = []
    problems: list[Problem] = []
    interpolations: list[Interpolation] = []
    for number, (row_lines, row_problems, row_interpolations, directive) in enumerate(rows, start=1):
        if row_lines:
            lines.extend(row_lines)
        if row_problems:
            problems.extend(row_problems)
        if row_interpolations:
            interpolations.extend(row_interpolations)
        if directive is not None:
            structure.nest(number, directive[1], directive[0])
    structure.close_ifs()
    problems.extend(structure.result.problems)
    problems.sort(key=lambda p: (p.line, p.column))
    return ParsedScript(lines, problems, interpolations)


def _nothing() -> None:
    return None


def _never() -> bool:
    return False
