"""The base of the board editors (Canvas, Dialogue, Map): what the three share, written once.

- **Undo**: the editor's ``QUndoStack``; Undo and Redo on the toolbar (Redo also Ctrl+Shift+Z
  and Ctrl+Y), enabled while there is a step to take and the board is editable; the main
  window's Edit menu reaches them through the view. :meth:`BoardEditor.push_step` puts a step on the
  stack (every edit is one); :class:`ContentBoardEditor` makes that step from a new ``content``.
- **Read-only** (another writer holds the lock; :func:`storyloom.gui.locks_ui.set_read_only`
  calls :meth:`BoardEditor.set_read_only`): the title, Undo and Redo and what
  :meth:`BoardEditor.board_editable` turns off; an edit tried meanwhile is refused, and the
  footer says why.
- **Selection**: Delete and Backspace delete it, and the board's own view shortcuts (select
  all, copy…) act on it, while the view has the focus; the side panel follows it
  (:meth:`BoardEditor.selection_changed`) when it changes and after every step.
- **The view**: a :class:`~storyloom.gui.editors.surface_view.SurfaceView` with Zoom out, the
  level, Zoom in and Fit on the toolbar (:meth:`BoardEditor.add_zoom_tools`) and Ctrl+0; the
  first fit once the view has its size; a footer with a hint (the view's, or why an edit was
  refused) and a summary.

A board builds its view (:meth:`BoardEditor.make_view`), its tools, its side panels
(:meth:`BoardEditor.arrange`) and its signals (:meth:`BoardEditor.connect_board`).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence, QUndoCommand, QUndoStack
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolBar, QVBoxLayout, QWidget

from storyloom.gui import theme
from storyloom.gui.editors.base import DocumentEditor
from storyloom.gui.editors.content_undo import ContentStep
from storyloom.gui.editors.surface_view import SurfaceView
from storyloom.gui.widgets import add_view_shortcuts, toolbar_action

#: Redo's keys besides the platform's own.
REDO_KEYS = ("Ctrl+Shift+Z", "Ctrl+Y")
#: A view shortcut: its text, its keys and what it does.
ViewShortcut = tuple[str, Any, Callable[[], object]]


class BoardEditor(DocumentEditor):
    """A document shown as a board in a zoomable view, edited in undoable steps."""

    #: The board in a sentence: "another writer holds this {noun}'s lock".
    noun = "board"
    #: The start of the toolbar's, the hint's and the summary's object names ("canvasToolbar"…).
    object_prefix = "board"
    #: Text beside the toolbar's icons (Undo, Redo and the zoom stay icons).
    text_beside_icons = True

    view: SurfaceView

    # ------------------------------------------------------------------ for subclasses
    def make_view(self) -> SurfaceView:
        """Make the board's view (and its scene and side panels)."""
        raise NotImplementedError

    def build_tools(self) -> None:
        """Add the board's tools to :attr:`toolbar` (after Undo and Redo)."""
        self.add_zoom_tools()

    def view_shortcuts(self) -> Iterable[ViewShortcut]:
        """The board's shortcuts while its view has the focus (besides Delete and Ctrl+0)."""
        return ()

    def arrange(self, center: QWidget) -> QWidget:
        """The body: ``center`` (the toolbar, the view and the footer) among the side panels."""
        raise NotImplementedError

    def connect_board(self) -> None:
        """Connect the view's, the scene's and the side panels' signals."""

    def board_editable(self, editable: bool) -> None:
        """Turn what edits the board on or off (the lock: see :meth:`set_read_only`)."""

    def selection_changed(self) -> None:
        """Show the selection in the side panel."""

    def delete_selection(self) -> bool:
        raise NotImplementedError

    def fit(self) -> None:
        """Show the whole board (Fit, F)."""
        raise NotImplementedError

    def opening_fit(self) -> None:
        """How the board is first shown, once the view has its size."""
        self.fit()

    def shown(self) -> None:
        """The tab came to the front again (what it shows may have changed meanwhile)."""

    # ------------------------------------------------------------------ building
    def build_body(self) -> QWidget:
        self.read_only = False
        self._fitted = False
        self.undo_stack = QUndoStack(self)
        self.toolbar = QToolBar()
        self.toolbar.setObjectName(f"{self.object_prefix}Toolbar")
        if self.text_beside_icons:
            self.toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.hint_label = self._caption("Hint")
        self.summary_label = self._caption("Summary")
        self.view = self.make_view()
        self.view.undo_target = self
        self.undo_action = self.add_tool("ph.arrow-counter-clockwise", "Undo", QKeySequence.StandardKey.Undo, self.undo,
                                     icon_only=True)
        self.redo_action = self.add_tool("ph.arrow-clockwise", "Redo", QKeySequence.StandardKey.Redo, self.redo,
                                     icon_only=True)
        redo_keys = [*QKeySequence.keyBindings(QKeySequence.StandardKey.Redo), *map(QKeySequence, REDO_KEYS)]
        self.redo_action.setShortcuts(list({keys.toString(): keys for keys in redo_keys}.values()))
        self.undo_stack.canUndoChanged.connect(lambda can: self.undo_action.setEnabled(can and not self.read_only))
        self.undo_stack.canRedoChanged.connect(lambda can: self.redo_action.setEnabled(can and not self.read_only))
        self._enable_undo()
        self.toolbar.addSeparator()
        self.build_tools()
        add_view_shortcuts(self.view, (("Delete", QKeySequence.StandardKey.Delete, self.delete_selection),
                                       ("Delete", "Backspace", self.delete_selection),
                                       *self.view_shortcuts(),
                                       ("Zoom 100%", "Ctrl+0", lambda: self.view.set_zoom(1.0))))
        body = self.arrange(self._center())
        self.view.hint.connect(self.hint_label.setText)
        self.view.zoom_changed.connect(lambda _level: self.show_zoom())
        scene = self.view.scene()
        if scene is not None:
            scene.selectionChanged.connect(self.selection_changed)
        self.connect_board()
        return body

    def _caption(self, name: str) -> QLabel:
        label = QLabel()
        label.setObjectName(f"{self.object_prefix}{name}")
        label.setProperty("role", "caption")
        return label

    def _center(self) -> QWidget:
        center = QWidget()
        layout = QVBoxLayout(center)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.toolbar)
        layout.addWidget(self.view, 1)
        footer = QHBoxLayout()
        footer.setContentsMargins(theme.L, theme.XS, theme.L, theme.XS)
        footer.addWidget(self.hint_label, 1)
        footer.addWidget(self.summary_label)
        layout.addLayout(footer)
        return center

    def add_tool(self, icon: str, text: str, keys: Any, slot: Callable[[], object], icon_only: bool = False) -> QAction:
        """An action on the toolbar whose shortcut works anywhere in the editor."""
        return toolbar_action(self, self.toolbar, icon, text, keys, slot, icon_only=icon_only)

    def add_zoom_tools(self, fit_text: bool = False) -> None:
        """Zoom out, the zoom level, Zoom in and Fit (with its text when ``fit_text``)."""
        self.add_tool("ph.magnifying-glass-minus", "Zoom out", "Ctrl+-", self.view.zoom_out, icon_only=True)
        self.zoom_label = QLabel("100%")
        self.zoom_label.setObjectName("zoomLevel")
        self.zoom_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.toolbar.addWidget(self.zoom_label)
        self._fix_zoom_label()
        self.add_tool("ph.magnifying-glass-plus", "Zoom in", "Ctrl+=", self.view.zoom_in, icon_only=True)
        self.add_tool("ph.corners-out", "Fit", "F", self.fit, icon_only=not fit_text)

    def _fix_zoom_label(self) -> None:
        """A fixed size, room for the widest level: a label whose size may change asks the
        layouts again at every new text, and the tab widget answers by repainting the whole
        document (the toolbar's icons with it) at every zoom step."""
        label = self.zoom_label
        widest = max(label.fontMetrics().horizontalAdvance(f"{level}%")
                     for level in (round(self.view.min_zoom * 100), round(self.view.max_zoom * 100), 100))
        margins = label.contentsMargins()
        label.setFixedSize(max(44, widest + 8 + margins.left() + margins.right()), label.sizeHint().height())

    def show_zoom(self) -> None:
        self.zoom_label.setText(f"{round(self.view.zoom() * 100)}%")

    # ------------------------------------------------------------------ showing
    def first_fit_later(self) -> None:
        """Fit the board once the view has its size (the first time only)."""
        if not self._fitted:
            QTimer.singleShot(0, self._first_fit)

    def _first_fit(self) -> None:
        if not self._fitted and self.view.viewport().width() > 200:
            self._fitted = True
            self.opening_fit()

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        self.shown()
        QTimer.singleShot(0, self._first_fit)

    def resizeEvent(self, event: Any) -> None:
        super().resizeEvent(event)
        self.first_fit_later()

    # ------------------------------------------------------------------ steps, undo, read-only
    def push_step(self, step: QUndoCommand) -> bool:
        """Take ``step`` (it is done now, and undoable); False, and why in the footer, while the
        board is read-only."""
        if self.read_only:
            self.hint_label.setText(f"Not changed: this {self.noun} is read-only while another writer "
                                    "holds its lock.")
            return False
        self.undo_stack.push(step)
        return True

    def after_step(self) -> None:
        """A step was done or undone: the document is unsaved and the side panel follows."""
        self.mark_dirty()
        self.selection_changed()

    def not_done(self, why: object) -> bool:
        """Say in the footer why an edit was refused; False."""
        self.hint_label.setText(f"Not done: {why}.")
        return False

    def undo(self) -> None:
        if not self.read_only:
            self.undo_stack.undo()

    def redo(self) -> None:
        if not self.read_only:
            self.undo_stack.redo()

    def _enable_undo(self) -> None:
        self.undo_action.setEnabled(not self.read_only and self.undo_stack.canUndo())
        self.redo_action.setEnabled(not self.read_only and self.undo_stack.canRedo())

    def set_read_only(self, read_only: bool) -> None:
        """Locked by someone else: the board can be looked at (and what it links to opened), not changed."""
        self.read_only = read_only
        self.name_edit.setReadOnly(read_only)
        self._enable_undo()
        self.board_editable(not read_only)
        self.hint_label.setText(f"Read-only: another writer holds this {self.noun}'s lock." if read_only else "")


class ContentBoardEditor(BoardEditor):
    """A board whose domain returns a new ``content`` for every edit (the canvas, the map): a
    step is the content before and after (:class:`~storyloom.gui.editors.content_undo.ContentStep`)."""

    content: dict[str, Any]

    def build_body(self) -> QWidget:
        self._loaded = False
        return super().build_body()

    def show_content(self) -> None:
        """Show :attr:`content` (after a step, or when the document changed)."""
        raise NotImplementedError

    def step(self, text: str, after: dict[str, Any], merge_key: str | None = None) -> bool:
        """Show ``after`` as one undoable step (merged into the last one with the same
        ``merge_key``: typing in a note, one brush stroke); False when it changes nothing."""
        if after == self.content:
            return False
        return self.push_step(ContentStep(text, self.content, after, self._show, merge_key))

    def _show(self, content: dict[str, Any]) -> None:
        self.content = content
        self.show_content()
        self.after_step()

    def content_loaded(self) -> None:
        """A revision of the document came (its content is :attr:`content`): show it."""
        self.show_content()
        self.selection_changed()

    def apply_document(self, doc: dict[str, Any]) -> None:
        found = doc.get("content")
        content: dict[str, Any] = found if isinstance(found, dict) else {}
        if self._loaded and content == self.content:
            return
        self._loaded = True
        self.content = copy.deepcopy(content)
        self.undo_stack.clear()  # the steps were made against the content shown before
        self.content_loaded()
        self.first_fit_later()

    def changes(self) -> dict[str, Any]:
        return {"name": self.name_edit.text(), "content": copy.deepcopy(self.content)}
