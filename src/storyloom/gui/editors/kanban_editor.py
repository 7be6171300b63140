"""The Kanban editor: a board of columns and cards, and the selected card's details beside it.

Cards are dragged between and within columns, columns by their header; a card's title,
markdown description, tags, related documents, due date, assignee (the project's users) and
checklist are edited in the panel on the right. Boards are laid out from the board templates of
the project settings (``kanban.boards``) and cards made from its card templates
(``kanban.cards``); the built-in templates stand in when the project has none. The filter shows
the cards of one tag or one assignee. Every step is undoable (Ctrl+Z, Ctrl+Shift+Z): the editor
keeps the board before and after each one, as :mod:`storyloom.project.kanban` returns a new
board per step. It saves through the gate like every editor.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import qtawesome as qta
from PySide6.QtCore import QDate, Qt
from PySide6.QtGui import QAction, QKeySequence, QUndoCommand, QUndoStack
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDateEdit,
    QFormLayout,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QTextBrowser,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)
from superqt.utils import qdebounced

from storyloom.gui import theme
from storyloom.gui.editors.base import DocumentEditor
from storyloom.gui.editors.kanban_board import BoardView
from storyloom.gui.editors.markdown_pane import open_document
from storyloom.gui.widgets import add_stretch, tool_strip
from storyloom.project import NOT_LINKABLE_TYPES
from storyloom.project import kanban as k

TEXT_MS = 600
_ANYONE, _NOBODY = "", "-"


def board_style() -> str:
    """Columns as quiet lanes, cards as raised tiles, chips as small pills (light and dark)."""
    c = theme.colors()
    lane = c.surface_alt
    return f"""
#kanbanBoard, #kanbanBoardInner {{ background: transparent; }}
#kanbanColumn {{ background: {lane}; border-radius: 8px; }}
#kanbanColumn[dropTarget="true"] {{ border: 1px dashed {c.accent}; }}
#kanbanColumnTitle {{ font-weight: 600; color: {c.text}; }}
#kanbanColumnCount {{ color: {c.muted}; }}
#kanbanCard {{ background: {c.surface}; border: 1px solid {c.border}; border-radius: 6px; }}
#kanbanCard:hover {{ border-color: {c.muted}; }}
#kanbanCard[selected="true"] {{ border: 2px solid {c.accent}; }}
#kanbanCard[completed="true"] #kanbanCardTitle {{ color: {c.muted}; }}
#kanbanCardText {{ color: {c.muted}; }}
#kanbanChip {{ border: 1px solid {c.border}; border-radius: 8px; padding: 1px 8px; color: {c.text}; }}
#kanbanAddCard {{ color: {c.muted}; padding: 4px; }}
#cardPanel, #cardPanelInner {{ background: transparent; }}
#cardChecklist::item, #cardRelated::item {{ padding: 4px 4px; }}
"""


class BoardCommand(QUndoCommand):
    """One step: the board before and after it."""

    def __init__(self, editor: KanbanEditor, before: dict[str, Any], after: dict[str, Any], label: str,
                 select: str | None) -> None:
        super().__init__(label)
        self.editor, self.before, self.after, self.select = editor, before, after, select

    def redo(self) -> None:
        self.editor.set_board(self.after, self.select)

    def undo(self) -> None:
        self.editor.set_board(self.before, self.select)


def _label(text: str) -> QLabel:
    label = QLabel(text)
    label.setObjectName("fieldLabel")
    return label


class CardPanel(QScrollArea):
    """The selected card's fields. Each finished edit is one step on the editor's undo stack."""

    def __init__(self, editor: KanbanEditor) -> None:
        super().__init__()
        self.editor = editor
        self.setObjectName("cardPanel")
        self.setWidgetResizable(True)
        self.setFrameShape(QScrollArea.Shape.NoFrame)
        self.card_id = ""
        self._filling = False
        inner = QWidget()
        inner.setObjectName("cardPanelInner")
        outer = QVBoxLayout(inner)
        outer.setContentsMargins(theme.L, 0, theme.S, theme.L)
        outer.setSpacing(theme.S)
        self.empty = QLabel("Select a card to see and edit it here.\nDrag cards between columns to move them.")
        self.empty.setObjectName("emptyState")
        self.empty.setWordWrap(True)
        outer.addWidget(self.empty)
        self.form = QWidget()
        layout = QVBoxLayout(self.form)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(6)
        top = QHBoxLayout()
        self.completed = QCheckBox("Completed")
        self.completed.toggled.connect(lambda on: self._set("completed", on, "Mark card completed" if on
                                                            else "Mark card not completed"))
        top.addWidget(self.completed)
        top.addStretch(1)
        delete = QToolButton()
        delete.setIcon(qta.icon("ph.trash"))
        delete.setToolTip("Delete this card")
        delete.setAutoRaise(True)
        delete.clicked.connect(lambda _c=False: self.editor.remove_card(self.card_id))
        top.addWidget(delete)
        layout.addLayout(top)
        self.title = QLineEdit()
        self.title.setObjectName("cardTitle")
        self.title.setPlaceholderText("Card title")
        font = self.title.font()
        font.setPointSizeF(font.pointSizeF() * 1.15)
        font.setWeight(font.Weight.DemiBold)
        self.title.setFont(font)
        self.title.editingFinished.connect(lambda: self._set("title", self.title.text(), "Rename card"))
        layout.addWidget(self.title)
        form = QFormLayout()
        form.setContentsMargins(0, theme.XS, 0, 0)
        form.setHorizontalSpacing(theme.M)
        form.setVerticalSpacing(theme.S)
        self.column = QComboBox()
        self.column.activated.connect(self._column_chosen)
        form.addRow("Column", self.column)
        self.assigned = QComboBox()
        self.assigned.activated.connect(lambda _i: self._set("assigned", self.assigned.currentData() or "",
                                                             "Assign card"))
        form.addRow("Assignee", self.assigned)
        due_row = QHBoxLayout()
        self.has_due = QCheckBox()
        self.has_due.setToolTip("The card has a due date")
        self.due = QDateEdit()
        self.due.setCalendarPopup(True)
        self.due.setDisplayFormat("yyyy-MM-dd")
        self.due.setMinimumDate(QDate(1900, 1, 1))
        self.due.setSpecialValueText("No due date")  # shown at the minimum date
        self.has_due.toggled.connect(self._due_changed)
        self.due.dateChanged.connect(lambda _d: self._due_changed())
        due_row.addWidget(self.has_due)
        due_row.addWidget(self.due, 1)
        form.addRow("Due", due_row)
        self.tags = QLineEdit()
        self.tags.setPlaceholderText("Tags, separated by commas")
        self.tags.editingFinished.connect(
            lambda: self._set("tags", [t.strip() for t in self.tags.text().split(",")], "Change tags"))
        form.addRow("Tags", self.tags)
        layout.addLayout(form)
        self.extra_form = QFormLayout()
        self.extra_form.setHorizontalSpacing(theme.M)
        layout.addLayout(self.extra_form)
        # Description: markdown, written or previewed.
        head = QHBoxLayout()
        head.addWidget(_label("Description"), 1)
        self.write_button = QPushButton("Write")
        self.preview_button = QPushButton("Preview")
        for index, button in enumerate((self.write_button, self.preview_button)):
            button.setCheckable(True)
            button.setProperty("flat", True)
            button.clicked.connect(lambda _c=False, i=index: self.show_description(i))
            head.addWidget(button)
        layout.addLayout(head)
        self.description_stack = QStackedWidget()
        self.description_stack.setFixedHeight(120)
        self.description = QPlainTextEdit()
        self.description.setObjectName("cardDescription")
        self.description.setPlaceholderText("What needs doing, in markdown")
        self.description.setFixedHeight(120)
        self._description_later = qdebounced(self.commit_description, timeout=TEXT_MS, parent=self)
        self.description.textChanged.connect(lambda: None if self._filling else self._description_later())
        self.preview = QTextBrowser()
        self.preview.setObjectName("cardPreview")
        self.preview.setFixedHeight(120)
        self.preview.setOpenLinks(False)
        self.description_stack.addWidget(self.description)
        self.description_stack.addWidget(self.preview)
        layout.addWidget(self.description_stack)
        # Checklist.
        layout.addWidget(_label("Checklist"))
        self.checklist = QListWidget()
        self.checklist.setObjectName("cardChecklist")
        self.checklist.setFixedHeight(110)
        self.checklist.itemChanged.connect(self._checklist_edited)
        layout.addWidget(self.checklist)
        add_row = QHBoxLayout()
        self.new_item = QLineEdit()
        self.new_item.setPlaceholderText("Add an item and press Enter")
        self.new_item.returnPressed.connect(self._add_item)
        add_row.addWidget(self.new_item, 1)
        remove_item = QToolButton()
        remove_item.setIcon(qta.icon("ph.minus"))
        remove_item.setToolTip("Remove the selected item")
        remove_item.setAutoRaise(True)
        remove_item.clicked.connect(self._remove_item)
        add_row.addWidget(remove_item)
        layout.addLayout(add_row)
        # Related documents.
        layout.addWidget(_label("Related documents"))
        self.related = QListWidget()
        self.related.setObjectName("cardRelated")
        self.related.setFixedHeight(90)
        self.related.itemDoubleClicked.connect(lambda item: open_document(self, item.data(Qt.ItemDataRole.UserRole)))
        self.related.setToolTip("Double-click to open")
        layout.addWidget(self.related)
        link_row = QHBoxLayout()
        self.link_choice = QComboBox()
        self.link_choice.setEditable(True)
        self.link_choice.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.link_choice.lineEdit().setPlaceholderText("Find a document to link")
        completer = self.link_choice.completer()
        if completer is not None:
            completer.setFilterMode(Qt.MatchFlag.MatchContains)
        link_row.addWidget(self.link_choice, 1)
        link = QToolButton()
        link.setIcon(qta.icon("ph.plus"))
        link.setToolTip("Link the chosen document")
        link.setAutoRaise(True)
        link.clicked.connect(self._link_document)
        link_row.addWidget(link)
        unlink = QToolButton()
        unlink.setIcon(qta.icon("ph.minus"))
        unlink.setToolTip("Unlink the selected document")
        unlink.setAutoRaise(True)
        unlink.clicked.connect(self._unlink_document)
        link_row.addWidget(unlink)
        layout.addLayout(link_row)
        layout.addStretch(1)
        outer.addWidget(self.form)
        outer.addStretch(1)
        self.setWidget(inner)
        self.show_description(0)
        self.show_card(None)

    # ------------------------------------------------------------------ showing a card
    def show_description(self, index: int) -> None:
        if index == 1:
            self.preview.document().setMarkdown(self.description.toPlainText())
        self.description_stack.setCurrentIndex(index)
        self.write_button.setChecked(index == 0)
        self.preview_button.setChecked(index == 1)

    def show_card(self, card: dict[str, Any] | None) -> None:
        """Fill the fields from ``card`` (``None``: nothing selected) without making steps."""
        self._description_later.cancel()
        self._filling = True
        try:
            self.form.setVisible(card is not None)
            self.empty.setVisible(card is None)
            if card is None:
                self.card_id = ""
                return
            editor = self.editor
            changed_card = self.card_id != card.get("id")
            self.card_id = str(card.get("id"))
            self.completed.setChecked(card.get("completed") is True)
            if self.title.text() != str(card.get("title") or ""):
                self.title.setText(str(card.get("title") or ""))
            self.column.clear()
            col_index, _ = k.find_card(editor.content, self.card_id)
            for column in editor.content.get("columns") or []:
                self.column.addItem(str(column.get("title") or "Untitled column"), column.get("id"))
            self.column.setCurrentIndex(col_index)
            self.assigned.clear()
            self.assigned.addItem("Nobody", "")
            for user in editor.users():
                self.assigned.addItem(qta.icon("ph.user-circle"), user, user)
            self.assigned.setCurrentIndex(max(0, self.assigned.findData(str(card.get("assigned") or ""))))
            due = str(card.get("dueDate") or "")
            day = QDate.fromString(due[:10], "yyyy-MM-dd")
            self.has_due.setChecked(day.isValid())
            self.due.setEnabled(day.isValid())
            self.due.setDate(day if day.isValid() else self.due.minimumDate())
            self.tags.setText(", ".join(k.tags_of(card)))
            if self.description.toPlainText() != str(card.get("description") or ""):
                self.description.setPlainText(str(card.get("description") or ""))
            if changed_card:
                self.show_description(1 if card.get("description") else 0)
            elif self.description_stack.currentIndex() == 1:
                self.show_description(1)
            self.checklist.clear()
            for item in k.checklist(card):
                entry = QListWidgetItem(str(item.get("text") or ""))
                entry.setFlags(entry.flags() | Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsEditable)
                entry.setCheckState(Qt.CheckState.Checked if item.get("done") is True else Qt.CheckState.Unchecked)
                entry.setData(Qt.ItemDataRole.UserRole, item.get("id"))
                self.checklist.addItem(entry)
            self.related.clear()
            for doc_id in card.get("related") or []:
                name = editor.document_name(str(doc_id))
                entry = QListWidgetItem(qta.icon("ph.file-text"), name or f"Missing document {doc_id}")
                entry.setData(Qt.ItemDataRole.UserRole, doc_id)
                if name is None:
                    entry.setForeground(Qt.GlobalColor.red)
                self.related.addItem(entry)
            if changed_card or self.link_choice.count() == 0:
                self.link_choice.clear()
                for label, doc_id in editor.linkable_documents():
                    self.link_choice.addItem(label, doc_id)
                self.link_choice.setCurrentIndex(-1)
            self._fill_extra(card)
        finally:
            self._filling = False

    def _fill_extra(self, card: dict[str, Any]) -> None:
        while self.extra_form.rowCount():
            self.extra_form.removeRow(0)
        template = k.find_template(k.card_templates(self.editor.settings()), card.get("template"))
        for spec in k.template_fields(template):
            key, label, kind = spec["key"], str(spec.get("label") or spec["key"]), spec.get("type")
            value = card.get(key)
            widget: QWidget
            if kind == "dropdown":
                combo = QComboBox()
                for option in spec.get("options") or []:
                    combo.addItem(str(option), str(option))
                combo.setCurrentIndex(max(0, combo.findData(str(value or ""))))
                combo.activated.connect(lambda _i, c=combo, key=key, label=label: self._set(key, c.currentData(),
                                                                                          f"Change {label}"))
                widget = combo
            elif kind == "checkbox":
                box = QCheckBox()
                box.setChecked(value is True)
                box.toggled.connect(lambda on, key=key, label=label: self._set(key, on, f"Change {label}"))
                widget = box
            else:
                edit = QLineEdit(str(value or ""))
                edit.editingFinished.connect(lambda e=edit, key=key, label=label: self._set(key, e.text(),
                                                                                           f"Change {label}"))
                widget = edit
            self.extra_form.addRow(label, widget)

    # ------------------------------------------------------------------ edits
    def _set(self, field: str, value: Any, label: str) -> None:
        if self._filling or not self.card_id:
            return
        self.editor.update_card(self.card_id, label, **{field: value})

    def commit_description(self) -> None:
        self._description_later.cancel()
        self._set("description", self.description.toPlainText(), "Edit description")

    def _due_changed(self) -> None:
        if self._filling:
            return
        self.due.setEnabled(self.has_due.isChecked())
        if self.has_due.isChecked() and self.due.date() == self.due.minimumDate():
            self._filling = True
            self.due.setDate(QDate.currentDate())
            self._filling = False
        elif not self.has_due.isChecked():
            self._filling = True
            self.due.setDate(self.due.minimumDate())
            self._filling = False
        value = self.due.date().toString("yyyy-MM-dd") if self.has_due.isChecked() else ""
        self._set("dueDate", value, "Change due date")

    def _column_chosen(self, index: int) -> None:
        column_id = self.column.itemData(index)
        if column_id and self.card_id:
            self.editor.move_card(self.card_id, str(column_id))

    def _items(self) -> list[dict[str, Any]]:
        return [{"id": self.checklist.item(i).data(Qt.ItemDataRole.UserRole), "text": self.checklist.item(i).text(),
                 "done": self.checklist.item(i).checkState() == Qt.CheckState.Checked}
                for i in range(self.checklist.count())]

    def _checklist_edited(self, _item: QListWidgetItem) -> None:
        self._set("checklist", self._items(), "Edit checklist")

    def _add_item(self) -> None:
        text = self.new_item.text().strip()
        if text and self.card_id:
            self.new_item.clear()
            self._set("checklist", [*self._items(), {"text": text, "done": False}], "Add checklist item")

    def _remove_item(self) -> None:
        row = self.checklist.currentRow()
        if row >= 0:
            items = self._items()
            del items[row]
            self._set("checklist", items, "Remove checklist item")

    def _link_document(self) -> None:
        doc_id = self.link_choice.currentData()
        if doc_id is None:  # typed, not picked: the first document whose name contains it
            typed = self.link_choice.currentText().strip().casefold()
            doc_id = next((d for label, d in self.editor.linkable_documents() if typed and typed in label.casefold()),
                          None)
        if doc_id and self.card_id:
            related = [*(self.editor.card(self.card_id).get("related") or []), doc_id]
            self._set("related", related, "Link document")

    def _unlink_document(self) -> None:
        row = self.related.currentRow()
        if row >= 0 and self.card_id:
            related = list(self.editor.card(self.card_id).get("related") or [])
            del related[row]
            self._set("related", related, "Unlink document")


class KanbanEditor(DocumentEditor):
    """A Kanban document: the board on the left, the selected card on the right."""

    def build_body(self) -> QWidget:
        self.content: dict[str, Any] = {"columns": []}
        self.selected = ""
        self.filter = k.CardFilter()
        self.undo_stack = QUndoStack(self)
        body = QWidget()
        body.setStyleSheet(board_style())
        layout = QVBoxLayout(body)
        layout.setContentsMargins(theme.XL, 0, theme.XL, theme.L)
        layout.setSpacing(theme.M)
        layout.addWidget(self._toolbar())
        split = QSplitter(Qt.Orientation.Horizontal)
        split.setObjectName("kanbanSplit")
        split.setChildrenCollapsible(False)
        self.board = BoardView()
        self.board.card_clicked.connect(self.select_card)
        self.board.card_dropped.connect(lambda card, column, before: self.move_card(card, column, before or None))
        self.board.column_dropped.connect(self._column_dropped)
        self.board.add_card_requested.connect(lambda column: self.add_card(column))
        self.board.column_menu_requested.connect(self._column_menu)
        split.addWidget(self.board)
        self.panel = CardPanel(self)
        self.panel.setMinimumWidth(300)
        split.addWidget(self.panel)
        split.setStretchFactor(0, 1)
        split.setSizes([900, 340])
        layout.addWidget(split, 1)
        for standard, extra, slot in ((QKeySequence.StandardKey.Undo, [], self.undo),
                                      (QKeySequence.StandardKey.Redo, ["Ctrl+Shift+Z", "Ctrl+Y"], self.redo)):
            keys = list(QKeySequence.keyBindings(standard))
            keys += [QKeySequence(text) for text in extra if QKeySequence(text) not in keys]
            action = QAction(self)
            action.setShortcuts(keys)
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            action.triggered.connect(lambda _c=False, s=slot: s())
            self.board.addAction(action)
        self.undo_stack.canUndoChanged.connect(self.undo_button.setEnabled)
        self.undo_stack.canRedoChanged.connect(self.redo_button.setEnabled)
        self.undo_button.setEnabled(False)
        self.redo_button.setEnabled(False)
        return body

    def _toolbar(self) -> QToolBar:
        bar = tool_strip("kanbanToolbar")  # what does not fit goes into its » menu

        def tool(icon: str, tip: str, slot: Callable[[], Any], text: str = "") -> QToolButton:
            button = QToolButton()
            button.setIcon(qta.icon(icon))
            button.setToolTip(tip)
            button.setAutoRaise(True)
            if text:
                button.setText(text)
                button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
            button.clicked.connect(lambda _c=False: slot())
            bar.addWidget(button)
            return button

        self.undo_button = tool("ph.arrow-counter-clockwise", "Undo (Ctrl+Z)", self.undo)
        self.redo_button = tool("ph.arrow-clockwise", "Redo (Ctrl+Shift+Z)", self.redo)
        self.add_column_button = tool("ph.columns", "Add a column at the end", self._ask_column, "Column")
        self.template_button = tool("ph.layout", "Lay the board out as a template of the project settings",
                                    lambda: None,
                                    "Template")
        self.template_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.template_menu = QMenu(self)
        self.template_menu.aboutToShow.connect(self._fill_template_menu)
        self.template_button.setMenu(self.template_menu)
        add_stretch(bar)
        self.tag_filter = QComboBox()
        self.tag_filter.setObjectName("kanbanTagFilter")
        self.tag_filter.setMinimumWidth(140)
        self.tag_filter.activated.connect(lambda _i: self.set_filter(tag=self.tag_filter.currentData() or ""))
        bar.addWidget(self.tag_filter)
        self.assignee_filter = QComboBox()
        self.assignee_filter.setObjectName("kanbanAssigneeFilter")
        self.assignee_filter.setMinimumWidth(140)
        self.assignee_filter.activated.connect(
            lambda _i: self.set_filter(assignee=self.assignee_filter.currentData() or ""))
        bar.addWidget(self.assignee_filter)
        self.search = QLineEdit()
        self.search.setPlaceholderText("Filter cards")
        self.search.setClearButtonEnabled(True)
        self.search.addAction(qta.icon("ph.magnifying-glass", color=theme.colors().muted),
                              QLineEdit.ActionPosition.LeadingPosition)
        self.search.setFixedWidth(200)
        self.search.textChanged.connect(lambda text: self.set_filter(text=text))
        bar.addWidget(self.search)
        return bar

    # ------------------------------------------------------------------ document
    def apply_document(self, doc: dict[str, Any]) -> None:
        content = doc.get("content")
        self.undo_stack.clear()
        self.set_board(copy.deepcopy(content) if isinstance(content, dict) else {"columns": []}, self.selected)

    def changes(self) -> dict[str, Any]:
        return {"content": copy.deepcopy(self.content)}

    def save(self) -> bool:
        """Save, with the description being typed (it waits for a pause) taken in first."""
        if not self.deleted:
            self.panel.commit_description()
        return super().save()

    def settings(self) -> dict[str, Any]:
        try:
            return self.session.settings() or {}
        except Exception:  # noqa: BLE001 - no settings document (or an unreadable one): the board's defaults
            return {}

    def users(self) -> list[str]:
        """Who cards can be assigned to: the project's User documents, you, and the names the
        board already uses."""
        docs = []
        for summary in self.session.index.summaries():
            if summary.type == "User":
                try:
                    docs.append(self.session.db.get(summary.id))
                except Exception:  # noqa: BLE001 - a User document that cannot be read is not offered
                    continue
        return k.assignable_users(docs, self.content, self.session.editor.username)

    def linkable_documents(self) -> list[tuple[str, str]]:
        found = [(f"{s.name or s.id}  ·  {s.type}", s.id) for s in self.session.index.summaries()
                 if s.type not in NOT_LINKABLE_TYPES and s.type is not None and s.id != self.doc_id]
        return sorted(found, key=lambda item: item[0].casefold())

    def board_template(self) -> dict[str, Any] | None:
        return k.find_template(k.board_templates(self.settings()), self.content.get("template"))

    def card(self, card_id: str) -> dict[str, Any]:
        return k.card(self.content, card_id)

    # ------------------------------------------------------------------ showing
    def set_board(self, content: dict[str, Any], select: str | None = None) -> None:
        """Show ``content`` (an undo step lands here): the board, the filters, the card panel."""
        self.content = content
        if select is not None:
            self.selected = select
        try:
            card = k.card(content, self.selected) if self.selected else None
        except k.KanbanError:
            card, self.selected = None, ""
        template = self.board_template()
        self.board.tag_colours = k.tag_colours(template)
        self.board.selected = self.selected
        self.board.show_board(content, self.filter)
        if getattr(self, "read_only", False):
            for column in self.board.columns:
                column.add_button.setEnabled(False)
        self._fill_filters(template)
        self.panel.show_card(card)
        if not self._loading:
            self.mark_dirty()

    def _fill_filters(self, template: dict[str, Any] | None) -> None:
        self.tag_filter.clear()
        self.tag_filter.addItem(qta.icon("ph.tag"), "All tags", "")
        for tag in k.board_tags(self.content, template):
            self.tag_filter.addItem(tag, tag)
        self.tag_filter.setCurrentIndex(max(0, self.tag_filter.findData(self.filter.tag)))
        self.assignee_filter.clear()
        self.assignee_filter.addItem(qta.icon("ph.user-circle"), "Anyone", _ANYONE)
        self.assignee_filter.addItem("Nobody", _NOBODY)
        for user in self.users():
            self.assignee_filter.addItem(user, user)
        self.assignee_filter.setCurrentIndex(max(0, self.assignee_filter.findData(self.filter.assignee)))

    def set_filter(self, *, tag: str | None = None, assignee: str | None = None, text: str | None = None) -> None:
        """Show only the cards of a tag, an assignee (``"-"``: nobody) or containing some text."""
        self.filter = k.CardFilter(self.filter.tag if tag is None else tag,
                                   self.filter.assignee if assignee is None else assignee,
                                   self.filter.text if text is None else text)
        if text is not None and self.search.text() != text:
            self.search.setText(text)
        self.board.show_board(self.content, self.filter)
        self._fill_filters(self.board_template())

    def select_card(self, card_id: str) -> None:
        self.panel.commit_description()
        self.selected = card_id
        self.board.selected = card_id
        self.board.show_board(self.content, self.filter)
        try:
            self.panel.show_card(k.card(self.content, card_id))
        except k.KanbanError:
            self.panel.show_card(None)

    # ------------------------------------------------------------------ steps
    def step(self, after: dict[str, Any], label: str, select: str | None = None) -> None:
        """Make ``after`` the board as one undoable step (nothing while read-only)."""
        if after == self.content or getattr(self, "read_only", False):
            return
        self.undo_stack.push(BoardCommand(self, self.content, after, label, select))

    def set_read_only(self, read_only: bool) -> None:
        """Locked by someone else: the board shows and filters, and changes nothing."""
        self.read_only = read_only
        self.name_edit.setReadOnly(read_only)
        self.panel.form.setEnabled(not read_only)
        for button in (self.add_column_button, self.template_button):
            button.setEnabled(not read_only)
        self.undo_button.setEnabled(not read_only and self.undo_stack.canUndo())
        self.redo_button.setEnabled(not read_only and self.undo_stack.canRedo())
        for column in self.board.columns:
            column.add_button.setEnabled(not read_only)

    def undo(self) -> None:
        if not getattr(self, "read_only", False):
            self.panel.commit_description()
            self.undo_stack.undo()

    def redo(self) -> None:
        if not getattr(self, "read_only", False):
            self.undo_stack.redo()

    def add_column(self, title: str) -> str:
        board, column_id = k.add_column(self.content, title)
        self.step(board, "Add column")
        return column_id

    def _ask_column(self) -> None:
        title, ok = QInputDialog.getText(self, "Add column", "Column title")
        if ok and title.strip():
            self.add_column(title.strip())

    def rename_column(self, column_id: str, title: str) -> None:
        self.step(k.rename_column(self.content, column_id, title), "Rename column")

    def remove_column(self, column_id: str) -> None:
        self.step(k.remove_column(self.content, column_id), "Delete column")

    def move_column(self, column_id: str, to: int) -> None:
        self.step(k.move_column(self.content, column_id, to), "Move column")

    def _column_dropped(self, column_id: str, before_index: int) -> None:
        current = k.find_column(self.content, column_id)
        self.move_column(column_id, before_index - 1 if before_index > current else before_index)

    def add_card(self, column_id: str, title: str = "New card", template_id: str | None = None) -> str:
        """Add a card (from a card template: the one named, else the board template's default)."""
        templates = k.card_templates(self.settings())
        if template_id is None:
            board_template = self.board_template()
            template_id = (board_template or {}).get("defaultCardTemplateId")
        template = k.find_template(templates, template_id) if template_id else None
        card = k.new_card(title, template)
        self.step(k.add_card(self.content, column_id, card), "Add card", select=card["id"])
        self.panel.title.setFocus()
        self.panel.title.selectAll()
        return str(card["id"])

    def update_card(self, card_id: str, label: str = "Edit card", **changes: Any) -> None:
        self.step(k.update_card(self.content, card_id, **changes), label, select=card_id)

    def move_card(self, card_id: str, column_id: str, before: str | None = None) -> None:
        self.panel.commit_description()
        self.step(k.move_card(self.content, card_id, column_id, before), "Move card", select=card_id)

    def remove_card(self, card_id: str) -> None:
        if card_id:
            self.step(k.remove_card(self.content, card_id), "Delete card", select="")

    def apply_template(self, template_id: str) -> None:
        template = k.find_template(k.board_templates(self.settings()), template_id)
        if template is not None:
            self.step(k.apply_board_template(self.content, template), f"Lay out as {template.get('name')}")

    # ------------------------------------------------------------------ menus
    def _fill_template_menu(self) -> None:
        menu = self.template_menu
        menu.clear()
        current = self.content.get("template")
        for template in k.board_templates(self.settings()):
            action = menu.addAction(str(template.get("name") or template.get("id")),
                                    lambda t=template["id"]: self.apply_template(t))
            action.setToolTip(str(template.get("description") or ""))
            action.setCheckable(True)
            action.setChecked(template.get("id") == current)

    def _column_menu(self, column_id: str, button: QToolButton) -> None:
        menu = QMenu(self)
        menu.addAction(qta.icon("ph.plus"), "Add card", lambda: self.add_card(column_id))
        cards = menu.addMenu("Add card from template")
        for template in k.card_templates(self.settings()):
            cards.addAction(str(template.get("name") or template.get("id")),
                            lambda t=template["id"]: self.add_card(column_id, template_id=t))
        menu.addSeparator()
        menu.addAction("Rename…", lambda: self._ask_rename(column_id))
        index = k.find_column(self.content, column_id)
        menu.addAction("Move left", lambda: self.move_column(column_id, index - 1)).setEnabled(index > 0)
        menu.addAction("Move right", lambda: self.move_column(column_id, index + 1)).setEnabled(
            index < len(self.content.get("columns") or []) - 1)
        menu.addSeparator()
        menu.addAction(qta.icon("ph.trash"), "Delete column and its cards", lambda: self.remove_column(column_id))
        menu.exec(button.mapToGlobal(button.rect().bottomLeft()))

    def _ask_rename(self, column_id: str) -> None:
        column = self.content["columns"][k.find_column(self.content, column_id)]
        title, ok = QInputDialog.getText(self, "Rename column", "Column title", text=str(column.get("title") or ""))
        if ok and title.strip():
            self.rename_column(column_id, title.strip())
