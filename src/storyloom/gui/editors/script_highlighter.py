"""Script highlighting fed by ``storyloom.script``: one source of truth with the parser.

Each line is classified by :func:`storyloom.script.parse_script` (speech, command, comment,
``@if``/``@else``/``@endif``, ``@set``, text); the highlighter only finds where the parsed parts
sit in the line. Problems come from the whole script's parse (an unclosed ``@if`` needs the
lines after it) and are underlined from their column to the end of the line: the highlighter
reads them, per line, from ``problems()`` (the code editor's, which follow their lines through
an edit) whenever Qt highlights a line, and :meth:`ScriptHighlighter.rehighlight_lines`
highlights again only the lines whose problems a parse changed (the lines in view at once, many
others a slice at a time)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import pairwise

from PySide6.QtCore import QTimer
from PySide6.QtGui import QColor, QFont, QSyntaxHighlighter, QTextCharFormat, QTextDocument

from storyloom.app.views.editor_text import shift_lines
from storyloom.diagnostics import Diagnostic
from storyloom.script import (
    CommandLine,
    CommentLine,
    ElseLine,
    EndIfLine,
    IfLine,
    SetLine,
    SpeechLine,
    find_interpolations,
    parse_script,
)

SLICE_LINES = 40  # lines highlighted again per turn of the event loop: a few milliseconds
_TAG = re.compile(r"^\s*\[#[^\]]*\]")
_DIRECTIVE = re.compile(r"^\s*@(if|else|endif|set)\b")
_COMMAND_NAME = re.compile(r"^\s*<([A-Za-z_][\w.]*)\(")

LIGHT = {
    "comment": "#7d8790", "actor": "#6f42c1", "tag": "#0f7b83", "expression": "#b35900",
    "json": "#8a6d3b", "command": "#1f6feb", "directive": "#b0207a", "path": "#2e7d32",
    "value": "#0f7b83", "interpolation": "#2e7d32", "error": "#e5484d", "warning": "#c99400",
}
DARK = {
    "comment": "#7f8a96", "actor": "#c3a6ff", "tag": "#5fd4d4", "expression": "#ffb86b",
    "json": "#d4b483", "command": "#79b8ff", "directive": "#ff8fc8", "path": "#8ddb8c",
    "value": "#5fd4d4", "interpolation": "#8ddb8c", "error": "#ff6b6b", "warning": "#f2c94c",
}


def _trailing_json_start(text: str) -> int:
    """Where the trailing ``{...}`` of a line starts (-1 when the line does not end with one)."""
    end = len(text.rstrip())
    if end == 0 or text[end - 1] != "}":
        return -1
    depth = 0
    in_string = False
    for i in range(end - 1, -1, -1):
        ch = text[i]
        if ch == '"' and (i == 0 or text[i - 1] != "\\"):
            in_string = not in_string
        elif not in_string:
            if ch == "}":
                depth += 1
            elif ch == "{":
                depth -= 1
                if depth == 0:
                    return -1 if i > 0 and text[i - 1] == "$" else i
    return -1


class ScriptHighlighter(QSyntaxHighlighter):
    """Highlights a script document; ``problems()`` gives each line's problems to underline."""

    def __init__(self, document: QTextDocument, dark: bool = False,
                 problems: Callable[[], Mapping[int, Sequence[Diagnostic]]] | None = None) -> None:
        self._runs: list[tuple[int, int, QTextCharFormat]] = []  # before the first highlight
        self.problems = problems or dict
        super().__init__(document)
        self.pending: dict[int, None] = {}  # lines still to highlight again, in slices
        self._slices = QTimer(self)
        self._slices.setSingleShot(True)
        self._slices.setInterval(0)
        self._slices.timeout.connect(self._next_slice)
        self.set_dark(dark, rehighlight=False)

    def set_dark(self, dark: bool, *, rehighlight: bool = True) -> None:
        colors = DARK if dark else LIGHT
        self.formats: dict[str, QTextCharFormat] = {}
        for name, color in colors.items():
            fmt = QTextCharFormat()
            fmt.setForeground(QColor(color))
            if name in ("actor", "directive", "command"):
                fmt.setFontWeight(QFont.Weight.Bold)
            if name == "comment":
                fmt.setFontItalic(True)
            self.formats[name] = fmt
        self.error_color = QColor(colors["error"])
        self.warning_color = QColor(colors["warning"])
        if rehighlight:
            self.rehighlight()

    def rehighlight_lines(self, lines: Iterable[int], first: Iterable[int] = ()) -> None:
        """Highlight these lines (1-based) again: their problems changed. Those of ``first`` (the
        lines in view) now, the others SLICE_LINES at a time from the event loop, so showing the
        problems of a long script all at once (when it opens) never stalls typing."""
        document = self.document()
        wanted = set(lines)
        now = sorted(wanted & set(first))
        later = sorted(wanted.difference(now))
        if len(later) <= SLICE_LINES:
            now, later = sorted(wanted), []
        for line in now:
            block = document.findBlockByNumber(line - 1)
            if block.isValid():
                self.rehighlightBlock(block)
        if later:
            self.pending.update(dict.fromkeys(later))
            self._slices.start()

    def lines_moved(self, at: int, delta: int) -> None:
        """An edit left lines 1 to ``at`` in place and added ``delta`` lines after them: the lines
        waiting to be highlighted again move with their lines
        (:func:`storyloom.app.views.editor_text.shift_lines`)."""
        if self.pending:
            self.pending = shift_lines(self.pending, at, delta)

    def _next_slice(self) -> None:
        lines = sorted(self.pending)[:SLICE_LINES]
        for line in lines:
            del self.pending[line]
        self.rehighlight_lines(lines)
        if self.pending:
            self._slices.start()

    def setFormat(self, start: int, count: int, fmt: QTextCharFormat) -> None:  # type: ignore[override]
        """Every format set in the block is kept in ``_runs``, so the underline of a problem can
        merge with them without asking Qt for each character's format (``format(i)``, which is
        slow on long lines and, called thousands of times, crashed PySide6)."""
        self._runs.append((start, count, fmt))
        super().setFormat(start, count, fmt)

    def highlightBlock(self, text: str) -> None:
        self._runs = []
        parsed = parse_script(text)
        if parsed.lines:
            self._paint_line(parsed.lines[0], text)
        for start, end, _inner in find_interpolations(text):
            self.setFormat(start, (end if end != -1 else len(text)) - start, self.formats["interpolation"])
        self._underline(self.currentBlock().blockNumber() + 1, text)

    def _paint_line(self, line: object, text: str) -> None:
        f = self.formats
        if isinstance(line, CommentLine):
            self.setFormat(0, len(text), f["comment"])
        elif isinstance(line, SpeechLine):
            tag = _TAG.match(text) if line.tag else None
            if tag:
                self.setFormat(tag.start(), tag.end() - tag.start(), f["tag"])
            first = text.find("::")
            second = text.find("::", first + 2)
            if first != -1 and second != -1:
                self.setFormat(first, second + 2 - first, f["actor"])
            json_start = _trailing_json_start(text) if line.json is not None else -1
            if json_start != -1:
                self.setFormat(json_start, len(text) - json_start, f["json"])
            if line.expression:
                tail = text[:json_start] if json_start != -1 else text
                at = tail.rstrip().rfind("[")
                if at != -1:
                    self.setFormat(at, len(tail.rstrip()) - at, f["expression"])
        elif isinstance(line, CommandLine):
            name = _COMMAND_NAME.match(text)
            if name:
                self.setFormat(name.start(1) - 1, name.end(1) - name.start(1) + 1, f["command"])
                close = text.find(">", name.end())
                if close != -1:
                    self.setFormat(close, 1, f["command"])
            if line.json is not None:
                start = text.find("{", name.end() if name else 0)
                if start != -1:
                    end = text.rfind("}") + 1
                    self.setFormat(start, max(end - start, 1), f["json"])
            if line.comment is not None:
                at = text.rfind("//")
                if at != -1:
                    self.setFormat(at, len(text) - at, f["comment"])
        elif isinstance(line, IfLine | ElseLine | EndIfLine | SetLine):
            directive = _DIRECTIVE.match(text)
            if directive is None:
                return
            self.setFormat(directive.start(), directive.end() - directive.start(), f["directive"])
            if isinstance(line, IfLine):
                self.setFormat(directive.end(), len(text) - directive.end(), f["value"])
            elif isinstance(line, SetLine):
                path_at = text.find(line.path, directive.end())
                if path_at != -1:
                    self.setFormat(path_at, len(line.path), f["path"])
                    value_at = text.find(line.value, path_at + len(line.path) + len(line.operator))
                    if line.value and value_at != -1:
                        self.setFormat(value_at, len(line.value), f["value"])
            else:
                comment = text.find("//", directive.end())
                if comment != -1:
                    self.setFormat(comment, len(text) - comment, f["comment"])

    def _underline(self, line: int, text: str) -> None:
        problems = self.problems().get(line)
        if not problems:
            return
        if not text:
            return
        for problem in problems:
            color = self.error_color if problem.is_error else self.warning_color
            start = max(0, min(len(text) - 1, (problem.column or 1) - 1))
            # one format per stretch of the line that has one format so far
            cuts = {start, len(text)}
            for run_start, run_count, _fmt in self._runs:
                cuts.update(edge for edge in (run_start, run_start + run_count) if start < edge < len(text))
            for a, b in pairwise(sorted(cuts)):
                base = next((fmt for s, c, fmt in reversed(self._runs) if s <= a < s + c), None)
                fmt = QTextCharFormat(base) if base is not None else QTextCharFormat()
                fmt.setUnderlineStyle(QTextCharFormat.UnderlineStyle.WaveUnderline)
                fmt.setUnderlineColor(color)
                fmt.setToolTip(problem.message)
                self.setFormat(a, b - a, fmt)
