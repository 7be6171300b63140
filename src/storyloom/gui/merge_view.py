"""The merge view: the versions of a document side by side, one card per field that differs.

A value field shows each version's value as a choice, and a box to type another. A text field
(script, GDD, property text) shows each version's text side by side, with the lines it changed
tinted, over the result: the three-way line merge, whose conflicting passages stand between
markers, highlighted, each settled with "Take …" buttons or by editing the result directly.
Saving a conflict writes the resolution through ``storyloom.project.conflicts.resolve`` (every
machine converges on it with the next sync); for an editor's unsaved text against a remote
change, the result goes back to the editor (``merged``), which saves it like typed text.

Every rule is in :mod:`storyloom.app.views.merge_form`; this module only shows it.
"""

from __future__ import annotations

import difflib
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import (
    QColor,
    QFontDatabase,
    QIcon,
    QPixmap,
    QSyntaxHighlighter,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
)
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QRadioButton,
    QScrollArea,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from storyloom.app import ProjectSession
from storyloom.app.views.merge_form import (
    EDITED,
    END,
    MERGED,
    MIDDLE,
    START,
    FieldRow,
    MergeForm,
    MergeFormError,
    conflict_blocks,
    conflict_form,
)
from storyloom.errors import StoryloomError
from storyloom.gui import icons, theme
from storyloom.gui.widgets import set_role
from storyloom.project import ConflictError, LockRefused, ValidationError, list_conflicts, value_text
from storyloom.store import Conflict as StoreConflict
from storyloom.words import counted


def _tints() -> dict[str, QColor]:
    dark = theme.colors().dark
    return {
        "ours": QColor("#1d3350" if dark else "#e6effd"),
        "theirs": QColor("#3a2a4d" if dark else "#f1e8fc"),
        "marker": QColor("#453a12" if dark else "#fff1c2"),
        "changed": QColor("#1f3d2b" if dark else "#e3f6ea"),
    }


class ConflictHighlighter(QSyntaxHighlighter):
    """Tints the passages between markers: the current version's lines, the other's, and the
    marker lines themselves (bold)."""

    def __init__(self, document: QTextDocument) -> None:
        super().__init__(document)
        tints = _tints()
        self.formats = {}
        for key in ("ours", "theirs", "marker"):
            fmt = QTextCharFormat()
            fmt.setBackground(tints[key])
            if key == "marker":
                fmt.setFontWeight(700)
            self.formats[key] = fmt

    def highlightBlock(self, text: str) -> None:
        state = max(self.previousBlockState(), 0)  # 0 outside, 1 current's lines, 2 the other's
        if text == START or text.startswith(START + " "):
            self.setFormat(0, max(len(text), 1), self.formats["marker"])
            self.setCurrentBlockState(1)
        elif text == MIDDLE and state == 1:
            self.setFormat(0, len(text), self.formats["marker"])
            self.setCurrentBlockState(2)
        elif (text == END or text.startswith(END + " ")) and state == 2:
            self.setFormat(0, len(text), self.formats["marker"])
            self.setCurrentBlockState(0)
        else:
            if state:
                self.setFormat(0, max(len(text), 1), self.formats["ours" if state == 1 else "theirs"])
            self.setCurrentBlockState(state)


def short_name(label: str) -> str:
    """Who a version is, from its label ("Bob · today 10:02 (current)" is "Bob")."""
    return label.split(" · ")[0].removesuffix(" (current)").strip() or "Someone"


def take_text(label: str) -> str:
    name = short_name(label)
    return "Take yours" if name == "You" else f"Take {name}'s"


def _mono(widget: QWidget) -> None:
    widget.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))


def _side_text(text: str, base: str | None) -> QPlainTextEdit:
    """A read-only pane of one version's text, its lines changed from ``base`` tinted."""
    pane = QPlainTextEdit()
    pane.setObjectName("mergeSideText")
    pane.setReadOnly(True)
    _mono(pane)
    pane.setPlainText(text)
    pane.setMinimumHeight(140)
    if base is not None:
        lines = text.split("\n")
        changed: set[int] = set()
        matcher = difflib.SequenceMatcher(None, base.split("\n"), lines, autojunk=False)
        for tag, _i1, _i2, j1, j2 in matcher.get_opcodes():
            if tag in ("replace", "insert"):
                changed.update(range(j1, j2))
        selections = []
        for number in sorted(changed):
            block = pane.document().findBlockByNumber(number)
            selection = QTextEdit.ExtraSelection()
            selection.cursor = QTextCursor(block)
            selection.format.setBackground(_tints()["changed"])
            selection.format.setProperty(QTextCharFormat.Property.FullWidthSelection, True)
            selections.append(selection)
        pane.setExtraSelections(selections)
        if changed:  # show the first change
            pane.setTextCursor(QTextCursor(pane.document().findBlockByNumber(min(changed))))
            pane.centerCursor()
    return pane


def is_long_text(row: FieldRow) -> bool:
    """A text field shown side by side with a result to edit: one both versions changed, or of
    more than one line (a one-line comment is chosen like a value)."""
    return row.text and (row.merged is not None or any(isinstance(v, str) and "\n" in v for v in row.values))


class _Card(QFrame):
    """One field: its name, what happened to it, and the choice."""

    changed = Signal()

    def __init__(self, view: MergeView, row: FieldRow) -> None:
        super().__init__()
        self.view = view
        self.row = row
        self.setObjectName("mergeCard")
        self.layout_ = QVBoxLayout(self)
        self.layout_.setContentsMargins(theme.L, theme.M, theme.L, theme.M)
        self.layout_.setSpacing(theme.S)
        head = QHBoxLayout()
        head.setSpacing(theme.S)
        title = set_role(QLabel(row.label), "heading")
        head.addWidget(title)
        self.status = set_role(QLabel(self._status()), "caption")
        head.addWidget(self.status, 1)
        self.layout_.addLayout(head)
        self.error = QLabel()
        self.error.setObjectName("fieldError")
        self.error.setWordWrap(True)
        self.error.hide()

    def _status(self) -> str:
        sides = self.view.form.sides
        changed = [short_name(sides[i].label) for i, c in enumerate(self.row.changed) if c]
        if self.row.conflict:
            return ("Changed in both versions: merged line by line" if self.row.merged is not None
                    else "Changed in both versions: choose one")
        if changed:
            return f"Changed by {changed[0]} only: taken from that version"
        return "Different in each version"

    def show_error(self, text: str) -> None:
        self.error.setText(text)
        self.error.setVisible(bool(text))


def _swatch(value: Any) -> QIcon | None:
    """A small square of ``value``'s colour when it is one (``#rrggbb``), for colour fields."""
    if not isinstance(value, str) or not QColor.isValidColorName(value) or not value.startswith("#"):
        return None
    pixmap = QPixmap(14, 14)
    pixmap.fill(QColor(value))
    return QIcon(pixmap)


class ValueCard(_Card):
    """A field that is not text: each version's value as a choice, or a value typed here."""

    def __init__(self, view: MergeView, row: FieldRow) -> None:
        super().__init__(view, row)
        self.group = QButtonGroup(self)
        choices = QHBoxLayout()
        choices.setSpacing(theme.M)
        self.radios: dict[int | str, QRadioButton] = {}
        for index, side in enumerate(view.form.sides):
            if side.deleted:
                continue
            shown = value_text(row.values[index], 160) if row.present[index] else "(not set)"
            radio = QRadioButton(shown)
            full = value_text(row.values[index], 2000) if row.present[index] else "(not set)"
            radio.setToolTip(f"{side.label}:\n{full}")
            swatch = _swatch(row.values[index])
            if swatch is not None:
                radio.setIcon(swatch)
            self.group.addButton(radio)
            self.radios[index] = radio
            cell = QVBoxLayout()
            cell.setSpacing(2)
            cell.addWidget(set_role(QLabel(side.label), "caption"))
            cell.addWidget(radio)
            choices.addLayout(cell, 1)
            radio.toggled.connect(lambda on, i=index: on and self._choose(i))
        other = QHBoxLayout()
        other.setSpacing(theme.S)
        self.radios[EDITED] = QRadioButton("Another value:")
        self.group.addButton(self.radios[EDITED])
        self.radios[EDITED].toggled.connect(lambda on: on and self._typed())
        self.line = QLineEdit()
        self.line.setPlaceholderText("type the value to keep")
        self.line.textEdited.connect(lambda _t: self.radios[EDITED].setChecked(True))
        self.line.editingFinished.connect(self._typed)
        other.addWidget(self.radios[EDITED])
        other.addWidget(self.line, 1)
        self.layout_.addLayout(choices)
        self.layout_.addLayout(other)
        self.layout_.addWidget(self.error)
        self.sync()

    def sync(self) -> None:
        radio = self.radios.get(self.row.choice if self.row.choice in self.radios else EDITED)
        if radio is not None:
            radio.blockSignals(True)
            radio.setChecked(True)
            radio.blockSignals(False)
        if self.row.choice == EDITED and not self.line.hasFocus():
            present, value = self.row.value()
            self.line.setText(value if isinstance(value, str) else value_text(value, 10_000) if present else "")

    def _choose(self, index: int) -> None:
        self.view.form.choose(self.row.path, index)
        self.show_error("")
        self.changed.emit()

    def _typed(self) -> None:
        if not self.radios[EDITED].isChecked():
            return
        try:
            self.view.form.edit(self.row.path, self.line.text())
        except MergeFormError as exc:
            self.show_error(str(exc))
        else:
            self.show_error("")
        self.changed.emit()


class TextCard(_Card):
    """A text field: the versions side by side, and the result with its passages to settle."""

    def __init__(self, view: MergeView, row: FieldRow) -> None:
        super().__init__(view, row)
        form = view.form
        sides = QHBoxLayout()
        sides.setSpacing(theme.M)
        base = row.base if isinstance(row.base, str) and row.base_present else None
        for index, side in enumerate(form.sides):
            if side.deleted:
                continue
            column = QVBoxLayout()
            column.setSpacing(theme.XS)
            column.addWidget(set_role(QLabel(side.label), "caption"))
            column.addWidget(_side_text(row.values[index] or "" if row.present[index] else "", base))
            sides.addLayout(column, 1)
        self.layout_.addLayout(sides)
        result_head = QHBoxLayout()
        result_head.setSpacing(theme.M)
        result_head.addWidget(set_role(QLabel("Result"), "heading"))
        self.group = QButtonGroup(self)
        self.radios: dict[int | str, QRadioButton] = {}
        if row.merged is not None:
            self.radios[MERGED] = QRadioButton("Merged")
        for index, side in enumerate(form.sides):
            if not side.deleted:
                self.radios[index] = QRadioButton(short_name(side.label))
                self.radios[index].setToolTip(f"Keep the text of {side.label} as it is")
        self.radios[EDITED] = QRadioButton("Edited here")
        self.radios[EDITED].setEnabled(False)
        for key, radio in self.radios.items():
            self.group.addButton(radio)
            result_head.addWidget(radio)
            if key != EDITED:
                radio.toggled.connect(lambda on, k=key: on and self._choose(k))
        result_head.addStretch(1)
        self.layout_.addLayout(result_head)
        self.result = QPlainTextEdit()
        self.result.setObjectName("mergeResult")
        _mono(self.result)
        self.result.setMinimumHeight(200)
        self.highlighter = ConflictHighlighter(self.result.document())
        self.result.textChanged.connect(self._edited)
        self.layout_.addWidget(self.result)
        bar = QHBoxLayout()
        bar.setSpacing(theme.S)
        self.passage = set_role(QLabel(), "caption")
        bar.addWidget(self.passage, 1)
        self.previous = QPushButton("Previous")
        self.next = QPushButton("Next")
        self.previous.clicked.connect(lambda: self.go(self.current - 1))
        self.next.clicked.connect(lambda: self.go(self.current + 1))
        self.previous.setToolTip("The previous conflicting passage")
        self.next.setToolTip("The next conflicting passage")
        self.take = {key: QPushButton() for key in ("ours", "theirs", "both")}
        other = form.sides[form.compare].label if form.compare < len(form.sides) else "Other"
        self.take["ours"].setText(take_text(form.sides[0].label))
        self.take["theirs"].setText(take_text(other))
        self.take["both"].setText("Take both")
        for widget in (self.previous, self.next, *self.take.values()):
            bar.addWidget(widget)
        for key, button in self.take.items():
            button.clicked.connect(lambda _c=False, k=key: self.settle(k))
        self.layout_.addLayout(bar)
        self.layout_.addWidget(self.error)
        self.current = 0
        self.sync()

    def sync(self) -> None:
        """Show the row's choice and its text."""
        radio = self.radios.get(self.row.choice) or self.radios[EDITED]
        self.radios[EDITED].setEnabled(self.row.choice == EDITED)
        radio.blockSignals(True)
        radio.setChecked(True)
        radio.blockSignals(False)
        present, value = self.row.value()
        text = value if present and isinstance(value, str) else ""
        if self.result.toPlainText() != text:
            self.result.blockSignals(True)
            self.result.setPlainText(text)
            self.result.blockSignals(False)
        self._show_passages()

    def _choose(self, key: int | str) -> None:
        self.view.form.choose(self.row.path, key)
        self.current = 0
        self.sync()
        self.go(0)
        self.changed.emit()

    def _edited(self) -> None:
        self.view.form.edit(self.row.path, self.result.toPlainText())
        self.radios[EDITED].setEnabled(True)
        self.radios[EDITED].blockSignals(True)
        self.radios[EDITED].setChecked(True)
        self.radios[EDITED].blockSignals(False)
        self._show_passages()
        self.changed.emit()

    def blocks(self) -> list[Any]:
        return conflict_blocks(self.result.toPlainText())

    def _show_passages(self) -> None:
        blocks = self.blocks()
        count = len(blocks)
        self.current = min(self.current, max(count - 1, 0))
        for widget in (self.previous, self.next, *self.take.values()):
            widget.setVisible(bool(count))
        self.previous.setEnabled(self.current > 0)
        self.next.setEnabled(self.current < count - 1)
        if count:
            self.passage.setText(f"Passage {self.current + 1} of {count} changed in both versions: "
                                 "choose what to keep, or edit the result")
            self.passage.setStyleSheet(f"color: {theme.colors().warning};")
        else:
            self.passage.setText("No conflicting passages left." if self.row.conflict else "")
            self.passage.setStyleSheet("")

    def go(self, index: int, *, select: bool = False) -> None:
        """Show conflicting passage ``index`` in the result, the cursor on its first marker
        (``select``: the whole passage selected, to type over it)."""
        blocks = self.blocks()
        if not blocks:
            return
        self.current = max(0, min(index, len(blocks) - 1))
        block = blocks[self.current]
        document = self.result.document()
        end = document.findBlockByNumber(block.end)
        cursor = QTextCursor(end)
        self.result.setTextCursor(cursor)
        self.result.ensureCursorVisible()  # the end first, then the start: the whole passage shows
        cursor = QTextCursor(document.findBlockByNumber(block.start))
        if select:
            cursor.setPosition(end.position() + end.length() - 1, QTextCursor.MoveMode.KeepAnchor)
        self.result.setTextCursor(cursor)
        self.result.ensureCursorVisible()
        self._show_passages()

    def settle(self, take: str) -> None:
        """Settle the selected passage with ``take`` (``ours``, ``theirs`` or ``both``)."""
        if not self.blocks():
            return
        self.view.form.settle(self.row.path, self.current, take)
        self.sync()
        self.go(self.current)
        self.changed.emit()


class MergeView(QDialog):
    """``resolved(rev)`` after a conflict's resolution is written; ``merged(doc)`` with the
    result for an editor's unsaved text (``mode="unsaved"``)."""

    resolved = Signal(str)
    merged = Signal(object)

    def __init__(self, session: ProjectSession, form: MergeForm, *, mode: str = "conflict",
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("mergeView")
        self.session = session
        self.form = form
        self.mode = mode
        self.setWindowTitle(f"Merge “{form.name}”")
        self.resize(1240, 820)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        head = QWidget()
        head.setObjectName("mergeHead")
        head_layout = QVBoxLayout(head)
        head_layout.setContentsMargins(theme.XL, theme.L, theme.XL, theme.M)
        head_layout.setSpacing(theme.XS)
        head_layout.addWidget(set_role(QLabel(f"Merge “{form.name}”"), "title"))
        self.intro = set_role(QLabel(self._intro()), "caption")
        self.intro.setWordWrap(True)
        head_layout.addWidget(self.intro)
        self.notices = QLabel()
        self.notices.setWordWrap(True)
        self.notices.setStyleSheet(f"color: {theme.colors().warning};")
        head_layout.addWidget(self.notices)
        self.compare_box = QComboBox()
        if mode == "conflict" and len(form.sides) > 2:
            row = QHBoxLayout()
            row.addWidget(set_role(QLabel("Merge the text with"), "caption"))
            for index, side in enumerate(form.sides[1:], start=1):
                self.compare_box.addItem(side.label, index)
            self.compare_box.setCurrentIndex(form.compare - 1)
            self.compare_box.currentIndexChanged.connect(self._compare_changed)
            row.addWidget(self.compare_box)
            row.addStretch(1)
            head_layout.addLayout(row)
        layout.addWidget(head)
        self.scroll = QScrollArea()
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        layout.addWidget(self.scroll, 1)
        foot = QWidget()
        foot.setObjectName("mergeFoot")
        foot_layout = QHBoxLayout(foot)
        foot_layout.setContentsMargins(theme.XL, theme.M, theme.XL, theme.M)
        foot_layout.setSpacing(theme.S)
        self.state = QLabel()
        self.state.setWordWrap(True)
        foot_layout.addWidget(self.state, 1)
        self.take_all: list[QPushButton] = []
        for index, side in enumerate(form.sides):
            who = short_name(side.label)
            button = QPushButton(f"All from {'you' if who == 'You' else who}" if not side.deleted else "Delete it")
            button.setToolTip(f"Take every field from {side.label}" if not side.deleted
                              else "One version deleted the document: keep it deleted")
            button.clicked.connect(lambda _c=False, i=index: self.take_everything(i))
            foot_layout.addWidget(button)
            self.take_all.append(button)
        cancel = QPushButton("Cancel")
        cancel.clicked.connect(self.reject)
        self.save_button = QPushButton("Save merge" if mode == "conflict" else "Use this in the editor")
        self.save_button.setProperty("primary", "true")
        self.save_button.setIcon(icons.icon("success", theme.colors().accent_text))
        self.save_button.clicked.connect(self.save)
        foot_layout.addWidget(cancel)
        foot_layout.addWidget(self.save_button)
        layout.addWidget(foot)
        c = theme.colors()
        self.setStyleSheet(
            f"#mergeHead, #mergeFoot {{ background: {c.window}; }}"
            f"#mergeHead {{ border-bottom: 1px solid {c.border}; }} #mergeFoot {{ border-top: 1px solid {c.border}; }}"
            f"#mergeCard {{ background: {c.surface}; border: 1px solid {c.border}; border-radius: 8px; }}"
            f"#mergeCards {{ background: {c.window}; }}")
        self.cards: list[_Card] = []
        self._build_cards()

    def _intro(self) -> str:
        count = len(self.form.sides)
        if self.mode == "unsaved":
            return ("This document changed on another machine while you were typing. Choose what to keep for each "
                    "field; the result goes back to the editor and is saved like your typing.")
        return (f"{count} versions of this document were edited at the same time. Choose what to keep for each "
                "field that differs; saving replaces every version, on this machine and, with the next sync, "
                "on everyone's.")

    def _build_cards(self) -> None:
        holder = QWidget()
        holder.setObjectName("mergeCards")
        cards = QVBoxLayout(holder)
        cards.setContentsMargins(theme.XL, theme.L, theme.XL, theme.L)
        cards.setSpacing(theme.M)
        self.cards = []
        for row in self.form.rows:
            card: _Card = TextCard(self, row) if is_long_text(row) else ValueCard(self, row)
            card.changed.connect(self.update_state)
            cards.addWidget(card)
            self.cards.append(card)
        if not self.form.rows:
            cards.addWidget(set_role(QLabel("The versions differ only in their stamps or their lock: "
                                            "saving keeps the current version."), "caption"))
        cards.addStretch(1)
        self.scroll.setWidget(holder)
        notices = []
        for side in self.form.sides:
            if side.refused:
                notices.append(f"The server refused the version {side.label}: {side.refused}. "
                               "Saving a merge settles it.")
            if side.deleted:
                notices.append("One version deleted this document. Keep it with the fields below, "
                               "or choose “Delete it”.")
        self.notices.setText("\n".join(notices))
        self.notices.setVisible(bool(notices))
        self.update_state()

    def _compare_changed(self) -> None:
        index = self.compare_box.currentData()
        conflict = next(iter(list_conflicts(self.session.db, [self.form.doc_id])), None)
        if conflict is None or index is None:
            return
        self.form = conflict_form(self.session.db, conflict, me=self.session.workspace.user, compare=int(index))
        self._build_cards()

    def card(self, path: str) -> _Card:
        return next(card for card in self.cards if card.row.path == path)

    def take_everything(self, index: int) -> None:
        self.form.choose_all(index)
        for card in self.cards:
            card.sync()  # type: ignore[attr-defined]
        self.update_state()

    def update_state(self) -> None:
        if self.form.take_deleted is not None:
            self.state.setText("The document will be deleted (the deletion is kept).")
            self.state.setStyleSheet(f"color: {theme.colors().warning};")
            self.save_button.setEnabled(True)
            return
        left = self.form.open_passages()
        undecided = self.form.undecided()
        if left:
            total = sum(left.values())
            where = ", ".join(left)
            self.state.setText(f"{counted(total, 'conflicting passage')} left in {where}.")
            self.state.setStyleSheet(f"color: {theme.colors().warning};")
        elif undecided:
            names = ", ".join(row.label for row in undecided)
            self.state.setText(f"Ready. {names}: changed in both versions, the current value is kept unless you "
                               "choose another.")
            self.state.setStyleSheet("")
        else:
            self.state.setText("Ready to save.")
            self.state.setStyleSheet(f"color: {theme.colors().success};")
        self.save_button.setEnabled(not left)

    def save(self) -> bool:
        """Write the merge (a conflict) or hand it to the editor; False with the reason shown."""
        try:
            if self.mode == "unsaved":
                self.merged.emit(self.form.merged_document())
                self.accept()
                return True
            rev = self.form.resolve(self.session.editor)
        except MergeFormError as exc:
            self._failed(str(exc))
            return False
        except LockRefused as exc:
            self._failed(f"Not saved: {exc}. Only the holder can merge it; ask them to unlock it.")
            return False
        except ValidationError as exc:
            self._failed("Not saved: " + "; ".join(p.message for p in exc.problems[:3]))
            return False
        except (ConflictError, StoreConflict):
            self._failed("Not saved: the versions changed meanwhile (a sync brought another one, or someone "
                         "merged it). Close this view and open it again.")
            return False
        except StoryloomError as exc:
            self._failed(f"Not saved: {exc}")
            return False
        self.resolved.emit(rev)
        self.accept()
        return True

    def _failed(self, text: str) -> None:
        self.state.setText(text)
        self.state.setStyleSheet(f"color: {theme.colors().danger};")


def open_merge_view(session: ProjectSession, doc_id: str, parent: QWidget | None = None) -> MergeView | None:
    """The merge view of ``doc_id``'s conflict, shown (``None`` when it is not in conflict)."""
    conflict = next(iter(list_conflicts(session.db, [doc_id])), None)
    if conflict is None:
        return None
    view = MergeView(session, conflict_form(session.db, conflict, me=session.workspace.user), parent=parent)
    view.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    view.open()
    return view
