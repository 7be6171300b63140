"""The Script editor: the script text with line numbers, highlighting and problems.

The text is ``content.script``, in a :class:`~storyloom.gui.editors.script_completer.ScriptText`
(completion of actors, directives, commands and variable paths: Ctrl+Space, or by itself after
``::``, ``@``, ``<``, ``.`` and ``${``). Problems come from parsing the whole script against the
project's variables (``known_state``) when typing pauses; they are underlined, marked in the
gutter, shown on hover and counted under the editor (click the count to go to the first).

The whole script's parse runs on a worker thread, never on the GUI thread (a 5,000-line script
took 60 to 200 ms there, a stall under the writer's fingers): the editor sends the text and its
version, the worker parses it with the editor's
:class:`~storyloom.script.incremental.IncrementalParser` (only the lines an edit touched are
parsed again, and the worker gives up the GIL between slices of a few milliseconds, so the GUI
thread is never kept waiting for it; the full garbage collections that a parse's new objects may
set off in the worker are kept short by the app's ``QuietCollections``) and hands the result
back through a queued signal. A result for an older version of the text than the one on screen
is dropped (a newer parse is on its way), and a parse still running when the text changes again
is cancelled at its next slice. One parse runs at a time per editor. Only a script under
SHOWN_WITH_TEXT_LINES lines is parsed on the GUI thread, when it is opened or replaced, so its
problems show with its text.

The autosave writes on a worker thread too: the gate's write of a 5,000-line script (its line
ids anchored again, the document checked, encoded and stored) is some 20 ms of CPU, a stall
under the writer's fingers on the GUI thread. The editor sends the changes (without the line
table it holds: the gate anchors from the stored revision) and the revision they are based on;
the result comes back by a queued signal and is taken as a
save's (a refusal shows why, as a save's does). Text typed while it is written stays unsaved and
is saved by the next autosave; a save asked for meanwhile (Ctrl+S, closing the tab or the window,
playing) waits for the write first; and the session's events for this document that arrive while
it is written are looked at once its result is taken, so its own revision is never taken for a
change made elsewhere."""

from __future__ import annotations

import logging
import threading
import time
from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from storyloom.app import DocumentChanged
from storyloom.diagnostics import Diagnostic
from storyloom.errors import StoryloomError
from storyloom.gui.appearance import follow_theme
from storyloom.gui.editors.base import DocumentEditor
from storyloom.gui.editors.code_editor import CodeEditor, is_dark
from storyloom.gui.editors.script_completer import ScriptText
from storyloom.gui.editors.script_highlighter import ScriptHighlighter
from storyloom.gui.host import host_of
from storyloom.gui.widgets import ElidedButton
from storyloom.project import LINE_IDS, WriteResult
from storyloom.script import ParsedScript
from storyloom.script.completion import CompletionSource, source_for
from storyloom.script.incremental import IncrementalParser

PARSE_MS = 250
# A script this short is parsed on the GUI thread when it is opened or replaced (a few
# milliseconds), so its problems show with its text; a longer one, and every edit, on a worker.
SHOWN_WITH_TEXT_LINES = 300
# What the worker sleeps between two slices of its parse: long enough for a GUI thread waiting
# for the GIL to take it (instead of waiting out Python's 5 ms switch interval), short enough
# that a 5,000-line first parse is not noticeably slower.
YIELD_S = 0.0002


class _Delivery(QObject):
    """Carries a worker's result to the GUI thread. Owned by Python, not by the editor, so a
    worker still running when the editor's tab closes emits on a live object (the editor's
    connection is gone with it; the result is dropped)."""

    # (text version, ParsedScript or None when cancelled, {"thread": name, "variables": s, "parse": s})
    parsed = Signal(int, object, object)


log = logging.getLogger(__name__)


class _Write:
    """One autosave written on a worker: what it writes, and what came of it."""

    def __init__(self, changes: dict[str, Any], rev: str | None, edits: int) -> None:
        self.changes = changes
        self.rev = rev
        self.edits = edits  # the editor's count of edits when the changes were taken
        self.result: WriteResult | None = None
        self.error: Exception | None = None
        self.thread: threading.Thread | None = None


class _SaveDelivery(QObject):
    """Carries a finished write to the GUI thread (owned by Python, as :class:`_Delivery`)."""

    written = Signal(object)  # the _Write


class ScriptEditor(DocumentEditor):
    problems_shown = Signal()  # a parse's problems are shown (underlines, gutter, count)

    def build_body(self) -> QWidget:
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        self.parsed_lines: list[Any] = []
        self.text = ScriptText(self.completion_source)
        self.text.setPlaceholderText(
            "::Actor:: A line of speech [expression]\n<Command(param)>\n@if v.player.brave\n@endif")
        self.highlighter = ScriptHighlighter(self.text.document(), dark=is_dark(self.text),
                                             problems=lambda: self.text.problems)
        follow_theme(self.text, self.highlighter)
        self.text.lines_moved.connect(self.highlighter.lines_moved)
        # Only a change of the text (typing, undo, a paste) is an edit: highlighting a line
        # changes its formats, which textChanged reports too.
        self.text.document().contentsChange.connect(self._typed)
        self.version = 0  # of the text: one more at each change
        self.parse_thread: str | None = None  # the thread the last parse shown ran on
        self.worker: threading.Thread | None = None  # the last one started
        self.parse_times: dict[str, Any] = {}  # of the last parse shown: its thread, seconds spent
        self.shown = False  # a parse's problems are shown
        self._parser = IncrementalParser()
        self._parsing: int | None = None  # the version a worker is parsing
        self._parse_again = False  # asked for while a worker was parsing
        self._latest = [0]  # the version on screen, as the worker reads it (a list: no Qt object)
        self._delivery = _Delivery()
        self._delivery.parsed.connect(self._parsed)
        self._edits = 0  # edits of the text or the name: one more at each
        self._writing: _Write | None = None  # the autosave being written on a worker
        self._held: list[DocumentChanged] = []  # the session's events for this document meanwhile
        self._written = _SaveDelivery()
        self._written.written.connect(self._autosave_written)
        # A tab closed while its script is parsed: the worker stops at its next slice.
        latest = self._latest
        self.destroyed.connect(lambda *_: latest.__setitem__(0, -1))
        layout.addWidget(self.text, 1)
        self.footer = footer = QHBoxLayout()
        footer.setContentsMargins(16, 4, 16, 4)
        footer.setSpacing(8)
        # Elided to the room left beside the cursor's position: a long problem message never
        # widens the footer, the editor or the sidebars.
        self.problems_button = ElidedButton()
        self.problems_button.setObjectName("problemsSummary")
        self.problems_button.setFlat(True)
        self.problems_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.problems_button.clicked.connect(self._go_to_first_problem)
        self.problems_button.setEnabled(False)
        footer.addWidget(self.problems_button, 1)
        self.position_label = _PositionLabel()
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
        # A plain timer restarted per key (a debounced callable makes a Future per call).
        self._parse_later = QTimer(body)
        self._parse_later.setSingleShot(True)
        self._parse_later.setInterval(PARSE_MS)
        self._parse_later.timeout.connect(self.parse_soon)
        self.problems: list[Diagnostic] = []
        return body

    def apply_document(self, doc: dict[str, Any]) -> None:
        script = (doc.get("content") or {}).get("script")
        text = script if isinstance(script, str) else ""
        if text != self.text.toPlainText():
            cursor = self.text.textCursor()
            position, scroll = cursor.position(), self.text.verticalScrollBar().value()
            self.text.setPlainText(text)
            cursor = self.text.textCursor()
            cursor.setPosition(min(position, len(text)))
            self.text.setTextCursor(cursor)
            self.text.verticalScrollBar().setValue(scroll)
        elif self.shown:
            return
        if text.count("\n") < SHOWN_WITH_TEXT_LINES:
            self.check_problems()  # a few milliseconds: the problems show with the text
        else:
            self.parse_soon()

    def changes(self) -> dict[str, Any]:
        content = dict(self.base.get("content") or {})
        content["script"] = self.text.toPlainText()
        return {"name": self.name_edit.text(), "content": content}

    def _typed(self, _position: int = 0, _removed: int = 0, _added: int = 0) -> None:
        self.version += 1
        self._latest[0] = self.version
        self.mark_dirty()
        self._parse_later.start()

    def parse_soon(self) -> None:
        """Parse the text as it is now on a worker thread; its problems show when it is done
        (unless the text changed meanwhile: then the next parse shows them)."""
        self._parse_later.stop()
        if self._parsing is not None:
            self._parse_again = True  # after the one running: its text is already older
            return
        if not self.shown:
            self.problems_button.setText("Checking…")  # a long script opening
        session = self.session
        version, text = self.version, self.text.toPlainText()
        self._parsing = version
        latest, parser, delivery = self._latest, self._parser, self._delivery

        def work() -> None:
            parsed: ParsedScript | None = None
            started = time.perf_counter()
            times = {"variables": 0.0, "parse": 0.0}
            try:
                known = _known_state(session)
                times["variables"] = time.perf_counter() - started
                parsed = parser.parse(text, known, pause=_give_way, cancelled=lambda: latest[0] != version)
                times["parse"] = time.perf_counter() - started - times["variables"]
            finally:
                delivery.parsed.emit(version, parsed, {"thread": threading.current_thread().name, **times})

        self.worker = threading.Thread(target=work, name="storyloom-script-parse", daemon=True)
        self.worker.start()

    def _parsed(self, version: int, parsed: ParsedScript | None, done: dict[str, Any]) -> None:
        self._parsing = None
        if self._parse_again:
            self._parse_again = False
            self.parse_soon()
        if parsed is None or version != self.version:
            return  # cancelled, or the parse of an older text: a newer one is coming
        self.parse_thread = done["thread"]
        self.parse_times = done
        self.show_parse(parsed)

    def wait_for_parse(self, timeout_s: float = 10.0) -> None:
        """Process events until no parse is running or asked for and its problems are all
        underlined (tests, benchmarks, screenshots)."""
        from PySide6.QtCore import QCoreApplication

        deadline = time.monotonic() + timeout_s
        while ((self._parsing is not None or self._parse_later.isActive() or self.highlighter.pending)
               and time.monotonic() < deadline):
            QCoreApplication.processEvents()
            time.sleep(0.001)

    def check_problems(self) -> list[Diagnostic]:
        """Parse the whole script now (a worker parsing runs first) and show its problems."""
        self._parse_later.stop()
        parsed = self._parser.parse(self.text.toPlainText(), _known_state(self.session))
        assert parsed is not None  # never cancelled
        self.show_parse(parsed)
        return self.problems

    def show_parse(self, parsed: ParsedScript) -> None:
        """Show a parse of the text on screen: its problems, and its lines for completion."""
        self.parsed_lines = list(parsed.lines)
        self.problems = list(parsed.problems)
        by_line: dict[int, list[Diagnostic]] = defaultdict(list)
        for problem in self.problems:
            if problem.line is not None:
                by_line[problem.line].append(problem)
        self.highlighter.rehighlight_lines(self.text.set_problems(dict(by_line)), first=self.text.visible_lines())
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
        self.shown = True
        self.problems_shown.emit()

    def stop(self) -> None:
        super().stop()
        self._parse_later.stop()
        self._latest[0] = -1  # a running parse stops at its next slice
        self.wait_for_autosave()  # before the session closes under it

    # ------------------------------------------------------------------ the autosave, on a worker
    def mark_dirty(self, *args: Any) -> None:
        if not self._loading:
            self._edits += 1
        super().mark_dirty(*args)

    def autosave(self) -> None:
        """Write the edits through the gate on a worker thread; the result is taken on the GUI
        thread when it is done (:meth:`_take_write`)."""
        if self._writing is not None or not self.dirty or self.deleted:
            return  # a write is on its way: typing meanwhile asks for the next when it is done
        changes = self.changes()
        # The gate anchors the line table from the revision the write replaces: the one the
        # editor holds need not be copied into the write (thousands of entries in a long script).
        changes["content"].pop(LINE_IDS, None)
        write = _Write(changes, self.base.get("_rev"), self._edits)
        session, doc_id, delivery = self.session, self.doc_id, self._written

        def work() -> None:
            try:
                write.result = session.editor.patch(doc_id, write.changes, rev=write.rev)
            except Exception as exc:  # noqa: BLE001 - taken on the GUI thread, as a save's refusal
                write.error = exc
            finally:
                delivery.written.emit(write)

        write.thread = threading.Thread(target=work, name="storyloom-script-save", daemon=True)
        self._writing = write
        write.thread.start()

    @property
    def autosaving(self) -> bool:
        """An autosave is being written on a worker."""
        return self._writing is not None

    def wait_for_autosave(self) -> None:
        """Wait for the autosave being written, if any, and take its result now."""
        write = self._writing
        if write is not None:
            assert write.thread is not None
            write.thread.join()
            self._take_write(write)

    def _autosave_written(self, write: _Write) -> None:
        if write is self._writing:  # not already taken by a save that waited for it
            self._take_write(write)

    def _take_write(self, write: _Write) -> None:
        self._writing = None
        if write.result is not None:
            self._saved(write.result)
            if self._edits != write.edits:  # typed on while it was written: that is unsaved
                self.dirty = True
                self.state_changed.emit()
                self._autosave()
        elif isinstance(write.error, StoryloomError):
            self._not_saved(write.error)
        else:
            log.error("the autosave of %s failed", self.doc_id, exc_info=write.error)
            self._refused(f"Not saved: {write.error}")
        held, self._held = self._held, []
        for change in held:
            self.external_change(change)

    def save(self) -> bool:
        self.wait_for_autosave()
        return super().save()

    def external_change(self, change: DocumentChanged) -> None:
        if self._writing is not None:
            # Maybe the write's own revision, which the editor knows once it takes the result.
            self._held.append(change)
            return
        super().external_change(change)

    def _load(self, doc: dict[str, Any]) -> None:
        self.wait_for_autosave()  # what is shown and its base revision change together
        super()._load(doc)

    def keep_mine(self) -> None:
        self.wait_for_autosave()
        super().keep_mine()

    def apply_merge(self, merged: dict[str, Any] | None, theirs: dict[str, Any]) -> None:
        self.wait_for_autosave()
        super().apply_merge(merged, theirs)

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


class _PositionLabel(QLabel):
    """The cursor's line and column, at a fixed size that fits the widest position: a label
    whose size follows its text asks the layouts above it to run again at every key, and the
    document tabs then repaint the whole document (the tab bar, the header, the text), a frame's
    work on the GUI thread per keystroke. The size follows the font."""

    WIDEST = "Ln 88888, Col 8888"

    def __init__(self) -> None:
        super().__init__()
        self.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self._fit()

    def _fit(self) -> None:
        margins = self.contentsMargins()
        metrics = self.fontMetrics()
        self.setFixedSize(metrics.horizontalAdvance(self.WIDEST) + margins.left() + margins.right() + 2,
                          metrics.height() + margins.top() + margins.bottom())

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._fit()


def _known_state(session: Any) -> Mapping[str, Any] | None:
    """The project's variable states the parse checks paths against (None: paths go unchecked)."""
    try:
        return session.index.states() or None
    except Exception:  # noqa: BLE001 - the index is a convenience here: without it, paths go unchecked
        return None


def _give_way() -> None:
    time.sleep(YIELD_S)
