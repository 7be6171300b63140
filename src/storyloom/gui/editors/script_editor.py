"""The Script editor: the script text with line numbers, highlighting and problems.

The text is ``content.script``, in a :class:`~storyloom.gui.editors.script_completer.ScriptText`
(completion of actors, directives, commands and variable paths: Ctrl+Space, or by itself after
``::``, ``@``, ``<``, ``.`` and ``${``). Problems come from parsing the whole script against the
project's variables (``known_state``), debounced while typing; they are underlined, marked in
the gutter, shown on hover and counted under the editor (click the count to go to the first)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget
from superqt.utils import qdebounced

from storyloom.diagnostics import Diagnostic
from storyloom.gui.editors.base import DocumentEditor
from storyloom.gui.editors.code_editor import CodeEditor, is_dark
from storyloom.gui.editors.script_completer import ScriptText
from storyloom.gui.editors.script_highlighter import ScriptHighlighter
from storyloom.gui.host import host_of
from storyloom.script import parse_script
from storyloom.script.completion import CompletionSource, source_for

PARSE_MS = 250


class ScriptEditor(DocumentEditor):
    def build_body(self) -> QWidget:
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        self.parsed_lines: list[Any] = []
        self.text = ScriptText(self.completion_source)
        self.text.setPlaceholderText(
            "::Actor:: A line of speech [expression]\n<Command(param)>\n@if v.player.brave\n@endif")
        self.highlighter = ScriptHighlighter(self.text.document(), dark=is_dark(self.text))
        self.text.textChanged.connect(self._typed)
        layout.addWidget(self.text, 1)
        footer = QHBoxLayout()
        footer.setContentsMargins(16, 4, 16, 4)
        footer.setSpacing(8)
        self.problems_button = QPushButton()
        self.problems_button.setObjectName("problemsSummary")
        self.problems_button.setFlat(True)
        self.problems_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.problems_button.clicked.connect(self._go_to_first_problem)
        footer.addWidget(self.problems_button)
        footer.addStretch(1)
        self.position_label = QLabel()
        self.position_label.setObjectName("cursorPosition")
        footer.addWidget(self.position_label)
        self.play_button = QPushButton("Play")
        self.play_button.setObjectName("playScript")
        self.play_button.setFlat(True)
        self.play_button.setToolTip("Play this script in the player (F5; Shift+F5 from the cursor's line)")
        self.play_button.clicked.connect(lambda _checked=False: self.play())
        footer.addWidget(self.play_button)
        layout.addLayout(footer)
        self.text.cursorPositionChanged.connect(self._show_position)
        self._parse_later = qdebounced(self.check_problems, timeout=PARSE_MS, parent=body)
        self.problems: list[Diagnostic] = []
        return body

    def apply_document(self, doc: dict[str, Any]) -> None:
        script = (doc.get("content") or {}).get("script")
        text = script if isinstance(script, str) else ""
        if text == self.text.toPlainText():
            return
        cursor = self.text.textCursor()
        position, scroll = cursor.position(), self.text.verticalScrollBar().value()
        self.text.setPlainText(text)
        cursor = self.text.textCursor()
        cursor.setPosition(min(position, len(text)))
        self.text.setTextCursor(cursor)
        self.text.verticalScrollBar().setValue(scroll)
        self.check_problems()

    def changes(self) -> dict[str, Any]:
        content = dict(self.base.get("content") or {})
        content["script"] = self.text.toPlainText()
        return {"name": self.name_edit.text(), "content": content}

    def _typed(self) -> None:
        self.mark_dirty()
        self._parse_later()

    def check_problems(self) -> list[Diagnostic]:
        """Parse the whole script now and show its problems."""
        self._parse_later.cancel()
        try:
            known = self.session.index.states()
        except Exception:  # noqa: BLE001 - the index is a convenience here: without it, paths go unchecked
            known = None
        parsed = parse_script(self.text.toPlainText(), known_state=known or None)
        self.parsed_lines = list(parsed.lines)
        self.problems = list(parsed.problems)
        by_line: dict[int, list[Diagnostic]] = defaultdict(list)
        for problem in self.problems:
            if problem.line is not None:
                by_line[problem.line].append(problem)
        self.text.problems = dict(by_line)
        self.highlighter.set_problems(dict(by_line))
        self.text.viewport().update()
        errors = sum(1 for p in self.problems if p.is_error)
        warnings = len(self.problems) - errors
        if not self.problems:
            self.problems_button.setText("No problems")
        else:
            parts = [f"{errors} error{'s' if errors != 1 else ''}"] if errors else []
            if warnings:
                parts.append(f"{warnings} warning{'s' if warnings != 1 else ''}")
            first = self.problems[0]
            self.problems_button.setText(f"{', '.join(parts)} · line {first.line}: {first.message}")
        self.problems_button.setEnabled(bool(self.problems))
        return self.problems

    def completion_source(self) -> CompletionSource:
        """What completion offers here: the project's actors, states and commands, and the
        speakers and commands of this script (as last parsed)."""
        try:
            index = self.session.index
            summaries = [s for s in map(index.get, index.ids_of_type("Actor")) if s is not None]
            states, settings = index.states(), self.session.settings()
        except Exception:  # noqa: BLE001 - completion is a help: without the index, offer what the script has
            summaries, states, settings = [], {}, {}
        return source_for(summaries, states, settings, self.parsed_lines)

    def _go_to_first_problem(self) -> None:
        if self.problems and self.problems[0].line:
            self.focus_line(self.problems[0].line)

    def _show_position(self) -> None:
        cursor: QTextCursor = self.text.textCursor()
        self.position_label.setText(f"Ln {cursor.blockNumber() + 1}, Col {cursor.positionInBlock() + 1}")

    def focus_line(self, line: int) -> None:
        self.text.go_to_line(line)

    def play(self, line: int | None = None) -> QWidget | None:
        """Play the script (saved first) in the player window, from ``line`` when given."""
        from storyloom.gui.player import open_player  # the player window, loaded when first asked for

        host = host_of(self)
        if host is None:
            return None
        if self.dirty:
            self.save()
        return open_player(host, self.doc_id, line=line)

    def field_editor(self, field: str) -> CodeEditor | None:
        return self.text if field == "content.script" else None
