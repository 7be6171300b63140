"""The Variable and Scenario editors.

A Variable's source (``content.variables``, in its ``editorLanguage`` or detected when it names
none) sits above a read-only table of every property of its state: path, type, default and the
live value when a live state exists (``_local/live-state``). The table follows the text as it
parses. A Scenario's diff (``content.scenario``) is type-checked against the variables' states
as typed: unknown states, unknown properties and changed types are listed with their line (and
marked in the gutter); the text is saved as typed either way. The rules are in
:mod:`storyloom.play.variable_rows`."""

from __future__ import annotations

from typing import Any

import qtawesome as qta
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)
from superqt.utils import qdebounced

from storyloom.diagnostics import Diagnostic
from storyloom.errors import StoryloomError
from storyloom.gui import theme
from storyloom.gui.editors.base import DocumentEditor
from storyloom.gui.editors.code_editor import CodeEditor
from storyloom.gui.live_signals import live_signals
from storyloom.gui.widgets import ElidedLabel
from storyloom.play.live_state import (
    LoadedScenario,
    live_diff,
    read_live,
    render_scenario,
    scenario_into_live,
    scenario_language,
    write_live,
)
from storyloom.play.variable_rows import (
    LIVE_STATE_ID,
    ScenarioStatus,
    VariableRow,
    VariablesStatus,
    live_states,
    scenario_status,
    variable_rows,
    variables_status,
)
from storyloom.project.content import LANGUAGES, ContentError
from storyloom.store import Conflict
from storyloom.words import counted

CHECK_MS = 250
_LANGUAGE_NAMES = {"": "Detect", "json": "JSON", "hjson": "HJSON", "yaml": "YAML", "toml": "TOML",
                   "text": "Plain text"}
_ERROR_STYLE = "color: #e5484d;"
_Index = QModelIndex | QPersistentModelIndex


class VariableTableModel(QAbstractTableModel):
    HEADERS = ("Property", "Type", "Default", "Live value")

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.rows: list[VariableRow] = []

    def set_rows(self, rows: list[VariableRow]) -> None:
        self.beginResetModel()
        self.rows = rows
        self.endResetModel()

    def rowCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return self.HEADERS[section]
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.row() >= len(self.rows):
            return None
        row = self.rows[index.row()]
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            value = (row.path, row.type, row.default, row.live)[index.column()]
            if index.column() == 0 and role == Qt.ItemDataRole.DisplayRole:
                return "    " * row.depth + value
            return value
        return None


def _count_leaves(value: Any) -> int:
    return sum(_count_leaves(v) for v in value.values()) if isinstance(value, dict) and value else 1


def _label(text: str) -> QLabel:
    label = ElidedLabel(text)  # a long caption elides rather than widening the window
    label.setToolTip(text)
    label.setObjectName("fieldLabel")
    return label


def _status_label() -> QLabel:
    status = QLabel()
    status.setObjectName("parseStatus")
    status.setWordWrap(True)
    status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return status


class _SourceEditor(DocumentEditor):
    """A typed source (``content.<field>``) with its language list and a checked status line."""

    field = "variables"
    title_text = "Source"

    def _source_panel(self) -> QWidget:
        panel = QWidget()
        layout = QVBoxLayout(panel)
        layout.setContentsMargins(24, 0, 24, 8)
        layout.setSpacing(6)
        top = QHBoxLayout()
        top.addWidget(_label(self.title_text), 1)
        self.language = QComboBox()
        self.language.setObjectName("editorLanguage")
        for code in ("", *LANGUAGES):
            self.language.addItem(_LANGUAGE_NAMES[code], code)
        self.language.setToolTip("The language of the source (editorLanguage); Detect reads it from the text")
        self.language.currentIndexChanged.connect(self._language_chosen)
        top.addWidget(QLabel("Language"))
        top.addWidget(self.language)
        self.add_actions(top)
        layout.addLayout(top)
        self.source = CodeEditor()
        self.source.setObjectName(f"{self.field}Text")
        self.source.textChanged.connect(self._typed)
        layout.addWidget(self.source, 1)
        self.status = _status_label()
        layout.addWidget(self.status)
        self.text = self.source  # the tab focuses ``text``
        self._check_later = qdebounced(self.check, timeout=CHECK_MS, parent=panel)
        return panel

    def add_actions(self, row: QHBoxLayout) -> None:
        """Buttons of this editor beside the language list (none by default)."""

    def language_code(self) -> str:
        return str(self.language.currentData() or "")

    def _language_chosen(self, _index: int) -> None:
        self.mark_dirty()
        self.check()

    def _typed(self) -> None:
        self.mark_dirty()
        self._check_later()

    def check(self) -> Any:
        raise NotImplementedError

    def _show_status(self, ok: bool, message: str, problems: dict[int, list[Diagnostic]]) -> None:
        self.status.setText(message)
        self.status.setProperty("ok", ok)
        self.status.setStyleSheet("" if ok else _ERROR_STYLE)
        self.source.problems = problems
        self.source.viewport().update()

    def apply_document(self, doc: dict[str, Any]) -> None:
        content = doc.get("content") if isinstance(doc.get("content"), dict) else {}
        language = doc.get("editorLanguage")
        index = max(0, self.language.findData(language if language in LANGUAGES else ""))
        if index != self.language.currentIndex():
            self.language.setCurrentIndex(index)
        text = content.get(self.field)
        text = text if isinstance(text, str) else ""
        if self.source.toPlainText() != text:
            position = self.source.textCursor().position()
            self.source.setPlainText(text)
            cursor = self.source.textCursor()
            cursor.setPosition(min(position, len(text)))
            self.source.setTextCursor(cursor)
        self.check()

    def changes(self) -> dict[str, Any]:
        content = dict(self.base.get("content") or {})
        content[self.field] = self.source.toPlainText()
        changes: dict[str, Any] = {self.name_field: self.name_edit.text(), "content": content}
        language = self.language_code()
        if language or self.base.get("editorLanguage") in LANGUAGES:
            changes["editorLanguage"] = language or None
        return changes

    def focus_line(self, line: int) -> None:
        self.source.go_to_line(line)

    def field_editor(self, field: str) -> CodeEditor | None:
        return self.source if field == f"content.{self.field}" else None


class VariablesEditor(_SourceEditor):
    """``source`` is the variables text, ``status`` its parse line, ``table`` the state's properties."""

    field = "variables"
    title_text = "Variables"

    def build_body(self) -> QWidget:
        self.parsed = VariablesStatus(True, "")
        self.model = VariableTableModel(self)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.setObjectName("variablesSplitter")
        splitter.setHandleWidth(1)
        splitter.addWidget(self._source_panel())
        lower = QWidget()
        layout = QVBoxLayout(lower)
        layout.setContentsMargins(24, 8, 24, 16)
        layout.setSpacing(6)
        layout.addWidget(_label("State"))
        self.table = QTableView()
        self.table.setObjectName("variablesTable")
        self.table.setModel(self.model)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        layout.addWidget(self.table, 1)
        splitter.addWidget(lower)
        splitter.setSizes([420, 420])
        live_signals().changed.connect(self._live_changed)
        return splitter

    def _live_changed(self, project_id: str) -> None:
        if project_id == self.session.id and not self.session.closed:
            self.check()

    def live_state(self, sid: str) -> dict[str, Any] | None:
        """The live state of ``sid`` (``_local/live-state``), ``None`` when there is none."""
        try:
            doc = self.session.db.get_local(LIVE_STATE_ID)
        except Exception:  # noqa: BLE001 - no live state (or an unreadable one): the column shows "—"
            return None
        return live_states(doc).get(sid)

    def check(self) -> VariablesStatus:
        """Parse the source now, show the status and, when it parses, the state's table."""
        self._check_later.cancel()
        self.parsed = variables_status(self.source.toPlainText(), self.language_code())
        problems: dict[int, list[Diagnostic]] = {}
        if not self.parsed.ok and self.parsed.line is not None:
            problems[self.parsed.line] = [Diagnostic(self.parsed.message, "parse-error", line=self.parsed.line,
                                                     column=self.parsed.column)]
        message = self.parsed.message
        if not self.parsed.ok:
            message += " (the table shows the last state that parsed)"
        self._show_status(self.parsed.ok, message, problems)
        if self.parsed.state is not None:
            self.model.set_rows(variable_rows(self.parsed.state, self.live_state(self.parsed.state["_sid"])))
            self.table.resizeColumnsToContents()
        return self.parsed


class ScenarioEditor(_SourceEditor):
    """``source`` is the diff, ``status`` its check against the variables, ``problems`` the list."""

    field = "scenario"
    title_text = "Scenario (overrides of the variables' defaults)"

    def build_body(self) -> QWidget:
        self.checked = ScenarioStatus(True, "")
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self._source_panel(), 3)
        self.problem_list = QListWidget()
        self.problem_list.setObjectName("scenarioProblems")
        self.problem_list.itemActivated.connect(self._go_to_problem)
        self.problem_list.itemClicked.connect(self._go_to_problem)
        wrapper = QWidget()
        wrap = QVBoxLayout(wrapper)
        wrap.setContentsMargins(24, 0, 24, 16)
        wrap.addWidget(self.problem_list)
        layout.addWidget(wrapper, 1)
        return body

    def states(self) -> dict[str, dict[str, Any]]:
        try:
            return self.session.index.states()
        except Exception:  # noqa: BLE001 - no index: nothing to check against (the gate still checks on save)
            return {}

    # ------------------------------------------------------------------ the Live state
    def add_actions(self, row: QHBoxLayout) -> None:
        row.addSpacing(16)
        self.load_button = QPushButton(qta.icon("ph.play", color=theme.colors().text), "Load into Live")
        self.load_button.setObjectName("loadIntoLive")
        self.load_button.setToolTip("Set the Live state to the variables' defaults with this scenario's overrides")
        self.load_button.clicked.connect(lambda _checked=False: self.load_into_live())
        self.save_live_button = QPushButton(qta.icon("ph.download-simple", color=theme.colors().text),
                                            "Save Live as scenario")
        self.save_live_button.setObjectName("saveLiveAsScenario")
        self.save_live_button.setToolTip("Replace this scenario with what the Live state changes of the defaults "
                                         "(Ctrl+Z undoes)")
        self.save_live_button.clicked.connect(lambda _checked=False: self.save_live())
        row.addWidget(self.load_button)
        row.addWidget(self.save_live_button)

    def load_into_live(self) -> LoadedScenario | None:
        """Live := the defaults with this scenario's valid overrides (the text as typed)."""
        try:
            loaded = scenario_into_live(self.states(), self.source.toPlainText(), self.language_code(), self.doc_id)
        except ContentError as exc:
            self.banner.show_message("error", f"Not loaded into Live: the scenario does not parse ({exc}).")
            return None
        try:
            write_live(self.session.editor, loaded.states, read_live(self.session.db).rev, scenario=self.doc_id)
        except Conflict:
            self.banner.show_message("error", "Not loaded: the Live state changed at the same moment. Try again.")
            return None
        except StoryloomError as exc:
            self.banner.show_message("error", f"Not loaded into Live: {exc}")
            return None
        message = (f"Loaded into Live: the defaults of {counted(len(loaded.states), 'state')} with "
                   f"{counted(loaded.applied, 'override')}.")
        if loaded.problems:
            message += f" {len(loaded.problems)} left out (listed below)."
        self.banner.show_message("info", message)
        live_signals().changed.emit(self.session.id)
        return loaded

    def save_live(self) -> str | None:
        """Replace this scenario's text with the Live state's differences from the defaults, in
        the scenario's language, and save it (one undoable edit). ``None`` when nothing changed."""
        live = read_live(self.session.db)
        if not live.exists:
            self.banner.show_message("info", "There is no Live state yet: load a scenario into Live first.")
            return None
        diff = live_diff(self.states(), live.states)
        if not diff:
            self.banner.show_message("info", "The Live state equals the defaults: there is nothing to save.")
            return None
        current = self.source.toPlainText()
        try:
            text = render_scenario(diff, scenario_language(self.language_code(), current))
        except StoryloomError as exc:
            self.banner.show_message("error", f"Not saved: {exc}")
            return None
        if text != current:
            cursor = self.source.textCursor()
            cursor.beginEditBlock()
            cursor.select(QTextCursor.SelectionType.Document)
            cursor.insertText(text)
            cursor.endEditBlock()
            self.source.setTextCursor(cursor)
        self.check()
        if self.dirty and not self.save():
            return text
        count = sum(_count_leaves(overrides) for overrides in diff.values())
        self.banner.show_message("info", f"Saved the Live state here: {counted(count, 'value')} differ from the "
                                         "defaults (Ctrl+Z in the text undoes).")
        return text

    def check(self) -> ScenarioStatus:
        """Check the diff now against the variables' states and show what is wrong, line by line."""
        self._check_later.cancel()
        self.checked = scenario_status(self.source.toPlainText(), self.language_code(), self.states(), self.doc_id)
        problems: dict[int, list[Diagnostic]] = {}
        for problem in self.checked.problems:
            if problem.line is not None:
                problems.setdefault(problem.line, []).append(problem)
        self._show_status(self.checked.ok, self.checked.message, problems)
        self.problem_list.clear()
        for problem, text in zip(self.checked.problems, self.checked.lines(), strict=True):
            item = QListWidgetItem(text)
            item.setData(Qt.ItemDataRole.UserRole, problem.line or 0)
            self.problem_list.addItem(item)
        self.problem_list.setVisible(bool(self.checked.problems))
        return self.checked

    def _go_to_problem(self, item: QListWidgetItem) -> None:
        line = int(item.data(Qt.ItemDataRole.UserRole) or 0)
        if line:
            self.focus_line(line)
            self.source.setFocus()
