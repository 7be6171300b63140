"""The player window: play a script, a dialogue or a scene, line by line.

A transcript of what was played (actors, expressions, lines), the choices as buttons under it,
and a side panel: the state the play started from (Defaults, Live or a Scenario) and whether it
writes to Live, what is being played (the node and the script line, each with a button that
opens it), and the variables the play changed. Keys: Space or Enter continues, 1-9 choose,
Backspace steps back, Ctrl+R restarts. Every rule is :class:`~storyloom.play.play_session.PlaySession`'s.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import qtawesome as qta
from PySide6.QtCore import Qt
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from storyloom.app.attachments import read_blob
from storyloom.gui import theme
from storyloom.gui.appearance import restyle_with_theme
from storyloom.gui.style import window_style
from storyloom.gui.widgets import Banner, remember_place, set_role
from storyloom.play.play_session import PlayError, PlaySession, expression_image, read_doc, scenarios
from storyloom.play.player import PlayItem
from storyloom.words import counted

#: ``opener(doc_id, line, node)``: open a document at a script line or a dialogue node.
Opener = Callable[[str, "int | None", "str | None"], object]
#: The name the player's place is remembered under (``windows.json``).
PLACE = "player"
_KIND_LABELS = {"Script": "Script", "Dialogue": "Dialogue", "Scene": "Scene"}


class PlayerWindow(QWidget):
    """Plays ``program`` in ``session``; ``title`` names what is played (``kind`` its type)."""

    def __init__(self, session: Any, program: list[PlayItem], title: str, kind: str,
                 opener: Opener | None = None, parent: QWidget | None = None, *,
                 source: str = "defaults", scenario: str | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setObjectName("playerWindow")
        self.setWindowTitle(f"Play: {title} — Storyloom")
        self.setStyleSheet(window_style() + _STYLE.format(c=theme.colors()))
        restyle_with_theme(self)  # Options > theme while it is open: it follows (restyle)
        self.session = session
        self.opener = opener
        self.kind = kind
        self.resize(1100, 760)
        self.play = PlaySession(session, program, source=source, scenario=scenario, title=title)
        self._images: dict[tuple[str, str], bytes | None] = {}
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self._header(title, kind))
        self.banner = Banner()
        banner_row = QHBoxLayout()
        banner_row.setContentsMargins(theme.XL, 0, theme.XL, theme.S)
        banner_row.addWidget(self.banner)
        layout.addLayout(banner_row)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.setObjectName("playerSplitter")
        splitter.setHandleWidth(1)
        splitter.addWidget(self._stage())
        splitter.addWidget(self._side_panel())
        splitter.setStretchFactor(0, 1)
        splitter.setCollapsible(0, False)
        splitter.setSizes([760, 360])
        layout.addWidget(splitter, 1)
        self._shortcuts()
        self.refresh()
        self._show_start_problems()

    def restyle(self) -> None:
        """Take the theme's colours (the theme changed while the player is open): its style
        sheet, its icons (drawn in the colours of the theme they were made in) and the
        transcript (coloured HTML)."""
        colours = theme.colors()
        self.setStyleSheet(window_style() + _STYLE.format(c=colours))
        self.header_icon.setPixmap(qta.icon("ph.play-circle", color=colours.accent).pixmap(28, 28))
        self.continue_button.setIcon(qta.icon("ph.caret-right", color=colours.accent_text))
        for button, name in ((self.restart_button, "ph.arrow-counter-clockwise"),
                             (self.back_button, "ph.arrow-u-up-left"), (self.to_choice_button, "ph.fast-forward"),
                             (self.open_node_button, "ph.tree-structure"),
                             (self.open_line_button, "ph.text-align-left")):
            button.setIcon(qta.icon(name))
        for index, name in enumerate(("ph.sliders-horizontal", "ph.lightning")):
            self.source_combo.setItemIcon(index, qta.icon(name))
        for index in range(2, self.source_combo.count()):
            self.source_combo.setItemIcon(index, qta.icon("ph.flag"))
        self._show_transcript()

    def closeEvent(self, event: QCloseEvent) -> None:
        remember_place(self, PLACE)  # it opens there next time, on this machine
        super().closeEvent(event)

    # ------------------------------------------------------------------ building
    def _header(self, title: str, kind: str) -> QWidget:
        header = QWidget()
        header.setObjectName("playerHeader")
        row = QHBoxLayout(header)
        row.setContentsMargins(theme.XL, theme.L, theme.XL, theme.M)
        row.setSpacing(theme.M)
        self.header_icon = QLabel()
        self.header_icon.setPixmap(qta.icon("ph.play-circle", color=theme.colors().accent).pixmap(28, 28))
        row.addWidget(self.header_icon)
        names = QVBoxLayout()
        names.setSpacing(0)
        self.title_label = QLabel(title)
        self.title_label.setObjectName("playerTitle")
        names.addWidget(self.title_label)
        self.subtitle = set_role(QLabel(), "caption")
        names.addWidget(self.subtitle)
        row.addLayout(names, 1)
        self.restart_button = QPushButton(qta.icon("ph.arrow-counter-clockwise"), "Restart")
        self.restart_button.setToolTip("Back to the beginning, with the starting state (Ctrl+R)")
        self.restart_button.clicked.connect(lambda _c=False: self.restart())
        self.back_button = QPushButton(qta.icon("ph.arrow-u-up-left"), "Step back")
        self.back_button.setToolTip("Undo the last step, its changes to the variables included (Backspace)")
        self.back_button.clicked.connect(lambda _c=False: self.step_back())
        row.addWidget(self.restart_button)
        row.addWidget(self.back_button)
        return header

    def _stage(self) -> QWidget:
        from storyloom.gui.player.transcript import Transcript

        stage = QWidget()
        stage.setObjectName("playerStage")
        column = QVBoxLayout(stage)
        column.setContentsMargins(theme.XL, 0, theme.L, theme.L)
        column.setSpacing(theme.M)
        self.transcript = Transcript(self._image)
        self.transcript.open_requested.connect(self.open_entry)
        column.addWidget(self.transcript, 1)
        self.choice_panel = QWidget()
        self.choice_panel.setObjectName("choicePanel")
        self.choice_layout = QVBoxLayout(self.choice_panel)
        self.choice_layout.setContentsMargins(0, 0, 0, 0)
        self.choice_layout.setSpacing(theme.S)
        column.addWidget(self.choice_panel)
        self.choice_buttons: list[QPushButton] = []
        self.continue_button = QPushButton(qta.icon("ph.caret-right", color=theme.colors().accent_text), "Continue")
        self.continue_button.setProperty("primary", True)
        self.continue_button.setToolTip("Play the next line (Space)")
        self.continue_button.clicked.connect(lambda _c=False: self.advance())
        self.to_choice_button = QPushButton(qta.icon("ph.fast-forward"), "Play to next choice")
        self.to_choice_button.setToolTip("Play on until a choice waits or the play ends")
        self.to_choice_button.clicked.connect(lambda _c=False: self.play_on())
        buttons = QHBoxLayout()
        buttons.setSpacing(theme.S)
        buttons.addWidget(self.continue_button)
        buttons.addWidget(self.to_choice_button)
        buttons.addStretch(1)
        self.step_label = set_role(QLabel(), "caption")
        buttons.addWidget(self.step_label)
        column.addLayout(buttons)
        return stage

    def _side_panel(self) -> QWidget:
        panel = QWidget()
        panel.setObjectName("playerSide")
        panel.setMinimumWidth(300)
        column = QVBoxLayout(panel)
        column.setContentsMargins(theme.L, theme.S, theme.XL, theme.L)
        column.setSpacing(theme.S)
        column.addWidget(set_role(QLabel("Starting state"), "heading"))
        self.source_combo = QComboBox()
        self.source_combo.setObjectName("stateSource")
        self.source_combo.addItem(qta.icon("ph.sliders-horizontal"), "Defaults", ("defaults", None))
        self.source_combo.addItem(qta.icon("ph.lightning"), "Live state", ("live", None))
        for scenario_id, name in scenarios(self.session):
            self.source_combo.addItem(qta.icon("ph.flag"), f"Scenario: {name}", ("scenario", scenario_id))
        self._select_source()
        self.source_combo.activated.connect(lambda _i: self._source_chosen())
        column.addWidget(self.source_combo)
        self.write_live = QCheckBox("Write changes to the Live state")
        self.write_live.setObjectName("writeToLive")
        self.write_live.setToolTip("Off: the play changes a scratch copy. On: the Live state follows every step.")
        self.write_live.toggled.connect(self._write_live_toggled)
        column.addWidget(self.write_live)
        column.addSpacing(theme.M)
        column.addWidget(set_role(QLabel("Now playing"), "heading"))
        form = QFormLayout()
        form.setContentsMargins(0, 0, 0, 0)
        form.setHorizontalSpacing(theme.M)
        form.setVerticalSpacing(theme.XS)
        self.where_document = QLabel()
        self.where_node = QLabel()
        self.where_line = QLabel()
        for label in (self.where_document, self.where_node, self.where_line):
            label.setWordWrap(True)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        form.addRow(set_role(QLabel("Document"), "caption"), self.where_document)
        form.addRow(set_role(QLabel("Node"), "caption"), self.where_node)
        form.addRow(set_role(QLabel("Script line"), "caption"), self.where_line)
        column.addLayout(form)
        jumps = QHBoxLayout()
        jumps.setSpacing(theme.S)
        self.open_node_button = QPushButton(qta.icon("ph.tree-structure"), "Open node")
        self.open_node_button.setToolTip("Open the dialogue at the node being played")
        self.open_node_button.clicked.connect(lambda _c=False: self.open_position(node=True))
        self.open_line_button = QPushButton(qta.icon("ph.text-align-left"), "Open line")
        self.open_line_button.setToolTip("Open the script at the line being played")
        self.open_line_button.clicked.connect(lambda _c=False: self.open_position(node=False))
        jumps.addWidget(self.open_node_button)
        jumps.addWidget(self.open_line_button)
        jumps.addStretch(1)
        column.addLayout(jumps)
        column.addSpacing(theme.M)
        self.changes_heading = set_role(QLabel("Changed variables"), "heading")
        column.addWidget(self.changes_heading)
        self.changes_table = QTableWidget(0, 3)
        self.changes_table.setObjectName("changedVariables")
        self.changes_table.setHorizontalHeaderLabels(["Variable", "Start", "Now"])
        self.changes_table.verticalHeader().hide()
        self.changes_table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.changes_table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.changes_table.setShowGrid(False)
        self.changes_table.setWordWrap(False)
        header = self.changes_table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        column.addWidget(self.changes_table, 1)
        self.no_changes = set_role(QLabel("No variable changed yet."), "caption")
        column.addWidget(self.no_changes)
        return panel

    def _shortcuts(self) -> None:
        for keys, slot in (("Space", self.advance), ("Return", self.advance), ("Enter", self.advance),
                           ("Backspace", self.step_back), ("Ctrl+R", self.restart), ("Ctrl+W", self.close),
                           ("Escape", self.close)):
            shortcut = QShortcut(QKeySequence(keys), self)
            shortcut.activated.connect(slot)
        for number in range(1, 10):
            shortcut = QShortcut(QKeySequence(str(number)), self)
            shortcut.activated.connect(lambda n=number - 1: self._choose_key(n))

    # ------------------------------------------------------------------ intents
    def advance(self) -> None:
        player = self.play.player
        if player.waiting_for_choice or player.finished:
            return
        self.play.advance()
        self.refresh()

    def play_on(self) -> None:
        self.play.play_on()
        self.refresh()

    def choose(self, index: int) -> None:
        self.play.choose(index)
        self.refresh()

    def _choose_key(self, index: int) -> None:
        if index < len(self.play.player.choices()):
            self.choose(index)

    def step_back(self) -> None:
        if self.play.step_back():
            self.refresh()

    def restart(self) -> None:
        self.play.restart()
        self.refresh()

    def choose_source(self, source: str, scenario: str | None = None) -> bool:
        """Play again from ``source`` (``defaults``, ``live``, ``scenario`` with its id)."""
        try:
            self.play.set_source(source, scenario)
        except PlayError as exc:
            self.banner.show_message("error", str(exc))
            self._select_source()
            return False
        self.banner.hide()
        self._select_source()
        self._show_start_problems()
        self.refresh()
        return True

    def _source_chosen(self) -> None:
        data = self.source_combo.currentData()
        if isinstance(data, tuple):
            self.choose_source(data[0], data[1])

    def _select_source(self) -> None:
        wanted = (self.play.source, self.play.scenario if self.play.source == "scenario" else None)
        for index in range(self.source_combo.count()):
            if self.source_combo.itemData(index) == wanted:
                self.source_combo.setCurrentIndex(index)

    def _write_live_toggled(self, on: bool) -> None:
        self.play.set_write_to_live(on)
        self.refresh()

    def _show_start_problems(self) -> None:
        if self.play.problems:
            shown = "; ".join(self.play.problems[:3])
            more = f" (and {len(self.play.problems) - 3} more)" if len(self.play.problems) > 3 else ""
            self.banner.show_message("info", f"Playing from {self.play.start.label}; {shown}{more}.")

    def _after_live_write(self) -> None:
        if self.play.live_error:
            self.banner.show_message("error", self.play.live_error)
        elif self.play.write_to_live:
            from storyloom.gui.live_signals import live_signals  # the Variables tables follow

            live_signals().changed.emit(self.session.id)

    # ------------------------------------------------------------------ opening documents
    def open_entry(self, index: int) -> None:
        entries = self.transcript.entries
        if 0 <= index < len(entries):
            entry = entries[index]
            if entry.script and entry.line:
                self._open(entry.script, entry.line, None)
            elif entry.dialogue and entry.node:
                self._open(entry.dialogue, None, entry.node)

    def open_position(self, *, node: bool) -> None:
        position = self.play.player.position
        if position is None:
            return
        if node and position.dialogue and position.node:
            self._open(position.dialogue, None, position.node)
        elif not node and position.script:
            self._open(position.script, position.line, None)

    def _open(self, doc_id: str, line: int | None, node: str | None) -> None:
        if self.opener is not None:
            self.opener(doc_id, line, node)

    # ------------------------------------------------------------------ showing
    def _image(self, actor: str | None, expression: str | None) -> bytes | None:
        key = ((actor or "").lower(), (expression or "").lower())
        if key not in self._images:
            attachment = expression_image(self.session, actor, expression)
            self._images[key] = read_blob(self.session.db, attachment) if attachment else None
        return self._images[key]

    def refresh(self) -> None:
        """Show the play as it is now."""
        player = self.play.player
        self._show_transcript()
        self._show_choices()
        self._show_position()
        self._show_changes()
        self.back_button.setEnabled(player.can_step_back)
        self.restart_button.setEnabled(player.can_step_back)
        steps = player.steps
        self.step_label.setText(counted(steps, "step") + (" · finished" if player.finished else ""))
        self.subtitle.setText(f"{_KIND_LABELS.get(self.kind, self.kind)} · from {self.play.start.label}"
                              + (" · writing to Live" if self.play.write_to_live else " · on a scratch copy"))
        self._after_live_write()

    def _show_transcript(self) -> None:
        player = self.play.player
        waiting = ""
        if player.waiting_for_choice:
            waiting = "Choose what happens next."
        elif not player.entries:
            waiting = "Press Continue (Space) to play the first line."
        self.transcript.show_entries(player.entries, waiting)

    def _show_choices(self) -> None:
        for button in self.choice_buttons:
            self.choice_layout.removeWidget(button)
            button.hide()
            button.deleteLater()
        self.choice_buttons = []
        player = self.play.player
        for choice in player.choices():
            number = choice.index + 1
            text = f"{number}   {choice.label}" if number < 10 else choice.label
            button = QPushButton(text)
            button.setObjectName("choiceButton")
            button.setToolTip("Choose this" + (f" ({number})" if number < 10 else "")
                              + ("" if choice.leads_on else ": nothing leads on from it"))
            button.clicked.connect(lambda _c=False, i=choice.index: self.choose(i))
            self.choice_layout.addWidget(button)
            self.choice_buttons.append(button)
        self.choice_panel.setVisible(bool(self.choice_buttons))
        self.continue_button.setVisible(not player.waiting_for_choice)
        self.continue_button.setEnabled(not player.finished)
        self.to_choice_button.setVisible(not player.waiting_for_choice)
        self.to_choice_button.setEnabled(not player.finished)
        if player.finished:
            self.continue_button.setText("Finished")
        else:
            self.continue_button.setText("Continue")

    def _show_position(self) -> None:
        position = self.play.player.position
        document = node = line = "—"
        if position is not None:
            doc = read_doc(self.session, position.doc_id)
            document = str((doc or {}).get("name") or position.doc_id)
            if position.node_label:
                node = position.node_label
            if position.script:
                script = read_doc(self.session, position.script)
                name = str((script or {}).get("name") or position.script)
                line = f"{name}, line {position.line}" if position.line else name
        self.where_document.setText(document)
        self.where_node.setText(node)
        self.where_line.setText(line)
        self.open_node_button.setEnabled(bool(position and position.dialogue and position.node))
        self.open_line_button.setEnabled(bool(position and position.script))

    def _show_changes(self) -> None:
        changes = self.play.player.changes()
        self.changes_table.setRowCount(len(changes))
        for row, change in enumerate(changes):
            before, after = change.texts()
            for column, text in enumerate((change.path, before, after)):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                self.changes_table.setItem(row, column, item)
        self.changes_heading.setText(f"Changed variables ({len(changes)})" if changes else "Changed variables")
        self.changes_table.setVisible(bool(changes))
        self.no_changes.setVisible(not changes)


_STYLE = """
#playerWindow {{ background: {c.window}; }}
#playerHeader {{ background: {c.window}; }}
#playerTitle {{ font-size: 16pt; font-weight: 600; color: {c.text}; }}
#playerSplitter::handle {{ background: {c.border}; }}
#playerTranscript {{ background: {c.surface}; border: 1px solid {c.border}; border-radius: 8px; }}
#choiceButton {{ text-align: left; padding: 10px 16px; border: 1px solid {c.accent}; border-radius: 8px;
    background: {c.surface}; color: {c.text}; font-weight: 600; }}
#choiceButton:hover {{ background: {c.surface_alt}; }}
#changedVariables {{ background: {c.surface}; }}
"""
