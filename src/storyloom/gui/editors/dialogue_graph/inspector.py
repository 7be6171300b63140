"""The side panel of the dialogue graph: what the selected node holds, to edit — its label,
its script (link one, create one, open it, and write its lines right here), its condition,
switch or event, its jump target, its outputs and their port scripts, its notes — and its
problems. With nothing selected it lists the dialogue's problems (click one to go to its node).

Every edit of the graph is sent as a signal when a field is done with (Enter, leaving it); the
editor makes it an undoable command. The panel never changes the graph itself. A script
node's lines are the linked Script document's text, in a
:class:`~storyloom.gui.editors.dialogue_graph.script_writer.NodeScriptWriter` (the Script
editor, compact), which saves to that Script as its tab would.

The keyboard walks the fields in reading order (Tab from an option's text goes to its port
script, then to the next option); the buttons that delete an output take no keyboard focus, so
nothing is deleted by Tab then Space, and a deletion is one undoable step the editor announces."""

from __future__ import annotations

import itertools
from typing import Any

import qtawesome as qta
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFocusEvent, QFont
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from storyloom.gui import theme
from storyloom.gui.editors.dialogue_graph.palette import kind_icon
from storyloom.gui.editors.dialogue_graph.script_writer import NodeScriptWriter, ScriptWriters
from storyloom.project.dialogue_graph import DialogueGraph, GraphProblem, kind_of, ports

HINTS = {
    "condition": "An expression on the variables, e.g. v.player.clues >= 2",
    "switch": "An expression; each output's label is a value it may have",
    "event": "The event's name, as the game knows it",
}


#: What stays usable while the dialogue is read-only (another writer holds its lock): the
#: linked script is a document of its own, whose own lock decides; opening it; the problems.
_OWN_DOCUMENT_FIELDS = frozenset({"writerSlot", "writerLabel", "scriptText", "openScript", "preview", "problems",
                                  "problemBox"})


class NotesEdit(QPlainTextEdit):
    """A text box that says when the writer is done with it (it loses the focus)."""

    committed = Signal(str)

    def focusOutEvent(self, event: QFocusEvent) -> None:
        super().focusOutEvent(event)
        self.committed.emit(self.toPlainText())


def _field_label(text: str) -> QLabel:
    label = QLabel(text)
    label.setObjectName("fieldLabel")
    return label


def _monospace(widget: QWidget) -> None:
    font = QFont("monospace")
    font.setStyleHint(QFont.StyleHint.Monospace)
    widget.setFont(font)


class NodeInspector(QScrollArea):
    data_edited = Signal(str, dict)  # node id, data fields
    port_edited = Signal(str, str, object, object)  # node id, handle id, label or None, port script or None
    port_added = Signal(str)
    port_removed = Signal(str, str)
    new_script_requested = Signal(str)
    open_requested = Signal(str)  # a document id
    problem_chosen = Signal(str)  # a node id

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("nodeInspector")
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.node_id: str | None = None
        self._signature: Any = None
        self.scripts: list[tuple[str, str]] = []
        self.fields: dict[str, Any] = {}
        #: The writers of the linked scripts (the editor gives them its session).
        self.writers: ScriptWriters | None = None
        #: The writer the panel shows now (a script node with a readable script selected).
        self.script_writer: NodeScriptWriter | None = None
        self.graph_editable = True
        self._build_empty([], 0)

    def _page(self) -> QVBoxLayout:
        self._put_writer_away()  # before its page goes: the writer outlives it
        page = QWidget()
        page.setObjectName("inspectorPage")
        layout = QVBoxLayout(page)
        layout.setContentsMargins(theme.L, theme.M, theme.L, theme.L)
        layout.setSpacing(theme.XS)
        self.setWidget(page)
        self.fields = {}
        return layout

    # ------------------------------------------------------------------ nothing selected
    def show_graph(self, problems: list[GraphProblem], node_count: int, labels: dict[str, str] | None = None,
                   selected: int = 0) -> None:
        self.node_id = None
        self._signature = ("graph", tuple((p.code, p.node_id, p.message) for p in problems), node_count, selected)
        self._build_empty(problems, node_count, labels or {}, selected)

    def _build_empty(self, problems: list[GraphProblem], node_count: int, labels: dict[str, str] | None = None,
                     selected: int = 0) -> None:
        layout = self._page()
        title = QLabel(f"{selected} nodes selected" if selected > 1 else "Dialogue")
        title.setProperty("role", "heading")
        layout.addWidget(title)
        hint = QLabel("Select a node to edit it. Add nodes from the palette or the right-click menu; drag from "
                      "an output (right) to an input (left) to link them. Double-click a title or an output "
                      "to edit it in place.")
        hint.setWordWrap(True)
        hint.setProperty("role", "caption")
        layout.addWidget(hint)
        layout.addSpacing(theme.S)
        layout.addWidget(_field_label(f"Problems ({len(problems)})" if problems else "Problems"))
        if not problems:
            none = QLabel("None: every node is reachable and every output leads somewhere." if node_count
                          else "The dialogue is empty: add a Start node to begin.")
            none.setWordWrap(True)
            none.setProperty("role", "caption")
            layout.addWidget(none)
        else:
            listing = QListWidget()
            listing.setObjectName("graphProblems")
            listing.setWordWrap(True)
            for problem in problems:
                where = (labels or {}).get(problem.node_id or "", "")
                item = QListWidgetItem(qta.icon("ph.warning-circle" if problem.severity == "error" else "ph.warning",
                                                color=theme.colors().danger if problem.severity == "error"
                                                else theme.colors().warning),
                                       f"{where}: {problem.message}" if where else problem.message)
                item.setData(Qt.ItemDataRole.UserRole, problem.node_id)
                listing.addItem(item)
            listing.itemActivated.connect(self._problem_clicked)
            listing.itemClicked.connect(self._problem_clicked)
            layout.addWidget(listing, 1)
            self.fields["problems"] = listing
            return
        layout.addStretch(1)

    def _problem_clicked(self, item: QListWidgetItem) -> None:
        node_id = item.data(Qt.ItemDataRole.UserRole)
        if node_id:
            self.problem_chosen.emit(node_id)

    # ------------------------------------------------------------------ one node
    def show_node(self, node: dict[str, Any], graph: DialogueGraph, problems: list[GraphProblem],
                  preview: list[str] | None) -> None:
        """Show ``node``; when it is the node already shown with the same ports, only the
        values change (a field being typed in keeps its text and focus)."""
        kind = kind_of(node)
        signature = (node.get("id"), kind.type, tuple(h["id"] for h in ports(node, "source")),
                     tuple(graph.jump_targets(node.get("id"))) if kind.type == "jump" else ())
        if signature != self._signature:
            self._signature = signature
            self.node_id = str(node.get("id"))
            self._build_node(node, graph)
        self._fill(node)
        self._fill_notes(problems, preview)
        self._follow_editable()

    def set_graph_editable(self, editable: bool) -> None:
        """The dialogue is read-only (``False``) or editable again: the graph's fields follow;
        the linked script's text follows that script's own lock."""
        self.graph_editable = editable
        self._follow_editable()

    def _follow_editable(self) -> None:
        for key, value in self.fields.items():
            if key in _OWN_DOCUMENT_FIELDS:
                continue
            for widget in value if isinstance(value, tuple) else (value,):
                if isinstance(widget, QWidget):
                    widget.setEnabled(self.graph_editable)

    def _fill_notes(self, problems: list[GraphProblem], preview: list[str] | None) -> None:
        """The script's first lines and the node's problems, changed in place (no field loses focus)."""
        shown = self.fields.get("preview")
        if isinstance(shown, QLabel):  # the first lines, when there is no text to write in
            shown.setText("\n".join(preview or []))
            shown.setVisible(bool(preview) and self.script_writer is None)
        box = self.fields.get("problemBox")
        if not isinstance(box, QWidget):
            return
        layout = box.layout()
        while layout.count():
            item = layout.takeAt(0)
            if item.widget() is not None:
                item.widget().deleteLater()
        box.setVisible(bool(problems))
        if problems:
            layout.addWidget(_field_label("Problems"))
        for problem in problems:
            line = QLabel(problem.message)
            line.setWordWrap(True)
            line.setProperty("role", "error")
            layout.addWidget(line)

    def _build_node(self, node: dict[str, Any], graph: DialogueGraph) -> None:
        kind = kind_of(node)
        node_id = str(node["id"])
        layout = self._page()
        header = QHBoxLayout()
        header.setSpacing(theme.S)
        chip = QLabel()
        chip.setPixmap(kind_icon(kind.type).pixmap(14, 14))
        header.addWidget(chip)
        title = QLabel(kind.title)
        title.setProperty("role", "heading")
        header.addWidget(title, 1)
        layout.addLayout(header)
        about = QLabel(kind.description)
        about.setWordWrap(True)
        about.setProperty("role", "caption")
        layout.addWidget(about)
        layout.addWidget(_field_label("Label"))
        label = QLineEdit()
        label.setObjectName("nodeLabel")
        label.editingFinished.connect(lambda: self.data_edited.emit(node_id, {"label": label.text()}))
        layout.addWidget(label)
        self.fields["label"] = label
        if kind.type == "script":
            self._script_fields(layout, node_id)
        elif kind.type == "jump":
            layout.addWidget(_field_label("Jump to"))
            target = QComboBox()
            target.setObjectName("jumpTarget")
            target.addItem("(pick a node)", None)
            for target_id, text in graph.jump_targets(node_id):
                target.addItem(text, target_id)
            target.activated.connect(lambda _i: self.data_edited.emit(node_id, {"jumpTo": target.currentData()}))
            layout.addWidget(target)
            self.fields["jumpTo"] = target
        elif kind.field:
            layout.addWidget(_field_label(kind.field_label))
            value = QLineEdit()
            value.setObjectName(f"node_{kind.field}")
            _monospace(value)
            value.setPlaceholderText(HINTS.get(kind.type, ""))
            value.setToolTip(HINTS.get(kind.type, ""))
            field = kind.field
            value.editingFinished.connect(lambda: self.data_edited.emit(node_id, {field: value.text()}))
            layout.addWidget(value)
            self.fields[kind.field] = value
        outputs = ports(node, "source")
        if outputs:
            layout.addWidget(_field_label("Outputs and port scripts" if kind.ports_editable else "Output"))
            for handle in outputs:
                layout.addWidget(self._port_row(node_id, handle, kind.ports_editable and len(outputs) > 1,
                                                kind.ports_editable))
            if kind.ports_editable:
                add = QPushButton(qta.icon("ph.plus"), "Add option" if kind.type == "choice" else "Add case")
                add.setObjectName("addPort")
                add.clicked.connect(lambda: self.port_added.emit(node_id))
                layout.addWidget(add, 0, Qt.AlignmentFlag.AlignLeft)
                self.fields["addPort"] = add
        layout.addWidget(_field_label("Notes"))
        notes = NotesEdit()
        notes.setObjectName("nodeNotes")
        notes.setPlaceholderText("Notes for the team (not played)")
        notes.setMinimumHeight(72 if kind.type != "note" else 140)
        notes.setMaximumHeight(120 if kind.type != "note" else 260)
        notes.committed.connect(lambda text: self.data_edited.emit(node_id, {"notes": text}))
        layout.addWidget(notes)
        self.fields["notes"] = notes
        problem_box = QWidget()
        box = QVBoxLayout(problem_box)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(theme.XS)
        layout.addWidget(problem_box)
        self.fields["problemBox"] = problem_box
        if kind.type != "script":
            layout.addStretch(1)  # a script node's text takes the height instead
        self._chain_tab_order()

    def _chain_tab_order(self) -> None:
        """Tab walks the fields as they read, top to bottom: an option's text, its port script,
        the next option... (the order widgets were made in is not that)."""
        chain: list[QWidget] = []
        for value in self.fields.values():
            for widget in value if isinstance(value, tuple) else (value,):
                if isinstance(widget, QWidget) and widget.focusPolicy() & Qt.FocusPolicy.TabFocus:
                    chain.append(widget)
        for before, after in itertools.pairwise(chain):
            QWidget.setTabOrder(before, after)

    def _script_fields(self, layout: QVBoxLayout, node_id: str) -> None:
        layout.addWidget(_field_label("Script"))
        combo = QComboBox()
        combo.setObjectName("scriptChoice")
        combo.addItem("(no script)", None)
        for script_id, name in self.scripts:
            combo.addItem(name, script_id)
        combo.activated.connect(lambda _i: self.data_edited.emit(node_id, {"scriptId": combo.currentData()}))
        layout.addWidget(combo)
        self.fields["scriptId"] = combo
        buttons = QHBoxLayout()
        buttons.setSpacing(theme.S)
        create = QPushButton(qta.icon("ph.file-plus"), "New script")
        create.setObjectName("newScript")
        create.setToolTip("Create a script named after this node, in the dialogue's script folder, link it and "
                          "write its lines here")
        create.clicked.connect(lambda: self._new_script(node_id))
        buttons.addWidget(create)
        self.fields["newScript"] = create
        open_button = QPushButton(qta.icon("ph.arrow-square-out"), "Open")
        open_button.setObjectName("openScript")
        open_button.clicked.connect(lambda: combo.currentData() and self.open_requested.emit(combo.currentData()))
        buttons.addWidget(open_button)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        self.fields["openScript"] = open_button
        shown = QLabel()
        shown.setObjectName("scriptPreview")
        shown.setWordWrap(True)
        shown.setProperty("role", "caption")
        layout.addWidget(shown)
        self.fields["preview"] = shown
        slot = QWidget()
        slot.setObjectName("scriptWriterSlot")
        slot_layout = QVBoxLayout(slot)
        slot_layout.setContentsMargins(0, theme.S, 0, 0)
        slot_layout.setSpacing(theme.XS)
        lines = _field_label("Lines")
        lines.setToolTip("The linked script's text: written here, saved to the script")
        lines.hide()
        slot_layout.addWidget(lines)
        layout.addWidget(slot, 1)
        self.fields["writerSlot"] = slot
        self.fields["writerLabel"] = lines

    def _new_script(self, node_id: str) -> None:
        """The label being typed is the node's first (the script is named after it), then the
        script is made and its text gets the focus."""
        label = self.fields.get("label")
        if isinstance(label, QLineEdit):
            self.data_edited.emit(node_id, {"label": label.text()})
        self.new_script_requested.emit(node_id)
        if self.script_writer is not None and self.node_id == node_id:
            self.script_writer.text.setFocus()

    # ------------------------------------------------------------------ the script's text
    def _show_writer(self, script_id: str | None) -> None:
        """Show the text of ``script_id`` in the panel (none: no text box)."""
        slot = self.fields.get("writerSlot")
        current = self.script_writer
        if current is not None and current.doc_id == script_id and current.parent() is slot:
            return
        self._put_writer_away()
        if not isinstance(slot, QWidget) or not script_id or self.writers is None:
            return
        writer = self.writers.writer(script_id)
        if writer is None:
            return
        slot_layout = slot.layout()
        if slot_layout is not None:
            slot_layout.addWidget(writer)
        writer.show()
        self.script_writer = writer
        self.fields["scriptText"] = writer.text
        self.fields["writerLabel"].show()
        self._chain_tab_order()

    def _put_writer_away(self) -> None:
        writer, self.script_writer = self.script_writer, None
        self.fields.pop("scriptText", None)
        if isinstance(self.fields.get("writerLabel"), QLabel):
            self.fields["writerLabel"].hide()
        if writer is not None and self.writers is not None:
            self.writers.put_away(writer)

    def _port_row(self, node_id: str, handle: dict[str, Any], removable: bool, renamable: bool) -> QWidget:
        row = QWidget()
        box = QVBoxLayout(row)
        box.setContentsMargins(0, theme.XS, 0, theme.XS)
        box.setSpacing(2)
        top = QHBoxLayout()
        top.setSpacing(theme.XS)
        handle_id = str(handle["id"])
        label = QLineEdit()
        label.setObjectName("portLabel")
        label.setReadOnly(not renamable)
        label.editingFinished.connect(lambda: self.port_edited.emit(node_id, handle_id, label.text(), None))
        top.addWidget(label, 1)
        if removable:
            remove = QToolButton()
            remove.setObjectName("removePort")
            remove.setProperty("handle", handle_id)
            remove.setIcon(qta.icon("ph.x"))
            remove.setToolTip("Delete this output and its link (Ctrl+Z brings it back)")
            remove.setAutoRaise(True)
            # Out of the Tab chain: Tab then Space must never delete an option.
            remove.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            remove.clicked.connect(lambda: self._remove_port(node_id, handle_id))
            top.addWidget(remove)
        box.addLayout(top)
        script = QLineEdit()
        script.setObjectName("portScript")
        _monospace(script)
        script.setPlaceholderText("@set v.path = value  (port script)")
        script.editingFinished.connect(lambda: self.port_edited.emit(node_id, handle_id, None, script.text()))
        box.addWidget(script)
        self.fields[f"port:{handle_id}"] = (label, script)
        return row

    def _remove_port(self, node_id: str, handle_id: str) -> None:
        """Delete an output; the keyboard's place in the panel, when it was in the deleted row,
        moves to "Add option" (where Ctrl+Z reaches the graph's undo and Space adds)."""
        focus = QApplication.focusWidget()
        row = self.fields.get(f"port:{handle_id}")
        self.port_removed.emit(node_id, handle_id)
        adder = self.fields.get("addPort")
        if isinstance(adder, QWidget) and (focus in (row or ()) or QApplication.focusWidget() is None):
            adder.setFocus(Qt.FocusReason.OtherFocusReason)

    def _fill_scripts(self, combo: QComboBox) -> None:
        """The list of scripts as they are named now (a rename elsewhere shows at once); the
        chosen one stays chosen."""
        wanted = [("(no script)", None), *((name, script_id) for script_id, name in self.scripts)]
        shown = [(combo.itemText(i), combo.itemData(i)) for i in range(combo.count())]
        if shown == wanted:
            return
        if [data for _text, data in shown] == [data for _text, data in wanted]:
            for index, (text, _data) in enumerate(wanted):
                combo.setItemText(index, text)
            return
        current = combo.currentData()
        blocked = combo.blockSignals(True)
        combo.clear()
        for text, data in wanted:
            combo.addItem(text, data)
        combo.setCurrentIndex(max(0, combo.findData(current)) if current else 0)
        combo.blockSignals(blocked)

    def _fill(self, node: dict[str, Any]) -> None:
        data = node.get("data") if isinstance(node.get("data"), dict) else {}

        def text(widget: QLineEdit | QPlainTextEdit, value: Any) -> None:
            value = value if isinstance(value, str) else ""
            if widget.hasFocus():
                return
            if isinstance(widget, QLineEdit) and widget.text() != value:
                widget.setText(value)
                widget.setCursorPosition(0)  # a long script shows its start
            elif isinstance(widget, QPlainTextEdit) and widget.toPlainText() != value:
                widget.setPlainText(value)

        for key, widget in self.fields.items():
            if key in ("label", "notes", "condition", "switch", "event"):
                text(widget, data.get(key))
            elif key in ("scriptId", "jumpTo"):
                if key == "scriptId":
                    self._fill_scripts(widget)
                index = widget.findData(data.get(key)) if data.get(key) else 0
                widget.setCurrentIndex(max(index, 0))
            elif key.startswith("port:"):
                handle = next((h for h in ports(node, "source") if h["id"] == key[5:]), None)
                if handle is not None:
                    text(widget[0], handle.get("label"))
                    text(widget[1], handle.get("portScript"))
        if "openScript" in self.fields:
            self.fields["openScript"].setEnabled(bool(data.get("scriptId")))
        if "writerSlot" in self.fields:
            script_id = data.get("scriptId")
            self._show_writer(script_id if isinstance(script_id, str) else None)
