"""Locks in the main window: who holds each lock, in the tree and on the tabs (the holder's name
in their colour, "locked by X since T" as the tooltip), a lock button in every editor's header
and F2 to lock or unlock the open document, read-only editors with a banner for documents
someone else holds, "Break lock…" with a confirmation that says it is recorded, the "My locks"
dashboard (Ctrl+Shift+L) and the announcement of a provisional lock settled after reconnecting.

What each of these says comes from :mod:`storyloom.app.views.lock_view`; taking, releasing and
breaking are :class:`storyloom.app.locks.LockService` calls, run off the GUI thread (they may
wait for the server) through :class:`storyloom.gui.tasks.Task`.

:class:`LockController` is built with its window's host (:data:`storyloom.gui.panels.PANELS`),
which also gives it the dashboard to open (:mod:`storyloom.gui.locks_dashboard` imports this
module, not the other way round).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import partial
from typing import Any

import qtawesome as qta
from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, QRect, QSize, Qt, Signal
from PySide6.QtGui import QColor, QIcon, QPainter
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractSpinBox,
    QCheckBox,
    QComboBox,
    QDialog,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QRadioButton,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTextEdit,
    QToolButton,
    QWidget,
)
from shiboken6 import isValid

from storyloom.app import DocumentChanged
from storyloom.app.locks import LockBreakRefused, LockNotice
from storyloom.app.views.explain import say
from storyloom.app.views.lock_view import (
    EditorLock,
    LockBadge,
    LockTable,
    break_question,
    broken_banner,
    broken_view,
    editor_lock,
    lock_badge,
    notice_view,
    when_text,
)
from storyloom.errors import StoryloomError
from storyloom.gui import theme
from storyloom.gui.editors.base import DocumentEditor
from storyloom.gui.host import WindowHost
from storyloom.gui.tasks import Task
from storyloom.gui.tree_model import ID_ROLE
from storyloom.gui.widgets import Banner
from storyloom.project import BrokenLock, LockRefused, require_lock_to_edit
from storyloom.store import NotFound

log = logging.getLogger(__name__)

LOCK_SHORTCUT = "F2"
DASHBOARD_SHORTCUT = "Ctrl+Shift+L"
LOCKED_ICON = "ph.lock-simple"
FREE_ICON = "ph.lock-simple-open"
_Index = QModelIndex | QPersistentModelIndex


def confirm_break(parent: QWidget, holder: str, name: str, since: str | None) -> bool:
    """Ask before breaking ``holder``'s lock: the break is recorded. Cancel is the default."""
    box = QMessageBox(parent)
    box.setObjectName("confirm-break")
    box.setIcon(QMessageBox.Icon.Warning)
    box.setWindowTitle("Break lock")
    question, _, details = break_question(holder, name, since).partition("\n\n")
    box.setText(question)
    box.setInformativeText(details)
    chosen = box.addButton("Break lock", QMessageBox.ButtonRole.DestructiveRole)
    cancel = box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(cancel)
    box.exec()
    return box.clickedButton() is chosen


# ---------------------------------------------------------------------------------- read-only
_EDITABLE_TEXT = (QPlainTextEdit, QTextEdit, QLineEdit)
_INPUTS = (QComboBox, QAbstractSpinBox, QCheckBox, QRadioButton)


def set_read_only(editor: DocumentEditor, read_only: bool) -> None:
    """Make ``editor`` read-only (or editable again). An editor with its own
    ``set_read_only(bool)`` decides; otherwise its text fields become read-only, its inputs
    (choices, numbers, check boxes) disabled and its tables not editable, and all come back as
    they were. Buttons stay (a write they make is refused by the gate, which names the holder)."""
    own = getattr(type(editor), "set_read_only", None)
    if callable(own):
        own(editor, read_only)
        return
    changed: list[Callable[[], None]] | None = getattr(editor, "_lock_restore", None)
    if read_only == (changed is not None):
        return
    if not read_only:
        for restore in changed or []:
            restore()
        editor._lock_restore = None  # type: ignore[attr-defined]
        return
    restores: list[Callable[[], None]] = []
    for widget in [editor.name_edit, *editor.body.findChildren(QWidget)]:
        if isinstance(widget, _EDITABLE_TEXT):
            if not widget.isReadOnly():
                widget.setReadOnly(True)
                restores.append(_while_valid(widget, partial(widget.setReadOnly, False)))
        elif isinstance(widget, _INPUTS):
            if widget.isEnabled():
                widget.setEnabled(False)
                restores.append(_while_valid(widget, partial(widget.setEnabled, True)))
        elif isinstance(widget, QAbstractItemView):
            triggers = widget.editTriggers()
            widget.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
            restores.append(_while_valid(widget, partial(widget.setEditTriggers, triggers)))
    editor._lock_restore = restores  # type: ignore[attr-defined]


def _while_valid(widget: QWidget, restore: Callable[[], object]) -> Callable[[], None]:
    """``restore`` (a call on ``widget``), skipped once the widget is gone."""
    def run() -> None:
        if isValid(widget):
            restore()
    return run


# ---------------------------------------------------------------------------------- widgets
class LockButton(QToolButton):
    """The lock state in an editor's header: "Lock", "Locked by you" or the holder's name, in
    the holder's colour; clicking it locks, unlocks or offers to break the lock."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("lockButton")
        self.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.setIconSize(QSize(14, 14))
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.mode = "free"

    def show_state(self, state: EditorLock, busy: str | None = None) -> None:
        self.mode = state.mode
        colours = theme.colors()
        colour = state.color or colours.muted
        text = busy or state.button
        self.setText(text)
        self.setIcon(qta.icon(FREE_ICON if state.mode == "free" else LOCKED_ICON, color=colour))
        self.setToolTip(state.button_tip)
        self.setEnabled(busy is None)
        fill = QColor(colour)
        fill.setAlphaF(0.14 if state.mode != "free" else 0.0)
        border = colour if state.mode != "free" else colours.border
        line = "dashed" if state.provisional else "solid"  # not confirmed by the server yet
        self.setStyleSheet(
            f"#lockButton {{ color: {colour if state.mode != 'free' else colours.text}; "
            f"background: {fill.name(QColor.NameFormat.HexArgb)}; border: 1px {line} {border}; "
            f"border-radius: 11px; padding: 2px 10px 2px 6px; }}"
            f"#lockButton:hover {{ border-color: {colours.accent}; }}")


class LockDelegate(QStyledItemDelegate):
    """Tree rows of locked documents end with the holder's name, in their colour (the row's icon
    is the lock, and its tooltip says "locked by X since T": see :meth:`LockController.mark`)."""

    def __init__(self, badge: Callable[[str], LockBadge | None], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._badge = badge

    def badge_of(self, index: _Index) -> LockBadge | None:
        doc_id = index.data(ID_ROLE)
        return self._badge(doc_id) if isinstance(doc_id, str) else None

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: _Index) -> None:
        badge = self.badge_of(index)
        if badge is None:
            super().paint(painter, option, index)
            return
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        metrics = opt.fontMetrics
        pill_width = metrics.horizontalAdvance(badge.label) + 2 * theme.S
        available = opt.rect.width() - opt.decorationSize.width() - pill_width - 3 * theme.S
        opt.text = metrics.elidedText(opt.text, Qt.TextElideMode.ElideRight, max(available, 24))
        widget = opt.widget
        style = widget.style() if widget is not None else None
        if style is None:  # pragma: no cover - a delegate always paints for a view
            super().paint(painter, opt, index)
            return
        style.drawControl(style.ControlElement.CE_ItemViewItem, opt, painter, widget)
        rect = opt.rect
        height = min(rect.height() - 6, metrics.height() + 2)
        pill = QRect(rect.right() - pill_width - theme.XS, rect.top() + (rect.height() - height) // 2,
                     pill_width, height)
        colour = QColor(badge.color)
        fill = QColor(colour)
        fill.setAlphaF(0.16)
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(fill)
        painter.drawRoundedRect(pill, height / 2, height / 2)
        painter.setPen(colour)
        painter.drawText(pill, int(Qt.AlignmentFlag.AlignCenter), badge.label)
        painter.restore()


# ---------------------------------------------------------------------------------- the controller
class LockController(QObject):
    """The window's locks. ``changed`` fires when a lock in the project changed (the table,
    the tree, the tabs and the dashboard follow it)."""

    changed = Signal()
    #: A lock call ended: (doc id or "", the error text or "").
    finished = Signal(str, str)

    def __init__(self, host: WindowHost, *,
                 dashboard: Callable[[LockController, QWidget], QWidget] | None = None) -> None:
        super().__init__(host.widget)
        self.host = host
        self.session = host.session
        self._dashboard = dashboard
        self.table = LockTable()
        self._tasks: set[Task] = set()
        self._busy: dict[str, str] = {}
        self._notices: dict[str, tuple[str, str]] = {}  # doc id -> (kind, text) shown until dismissed
        self._parts: dict[int, tuple[DocumentEditor, LockButton, Banner]] = {}
        self._me = self.session.locks.holder()
        self._reads: dict[str, dict[str, Any] | None] = {}  # what _read read at store seq _reads_seq
        self._reads_seq = -1
        self._load_table()
        # F2 renames in the tree: here it belongs to the documents' area (and the menu).
        self.lock_action = host.add_action("Lock / Unlock Document", self.toggle_current, keys=LOCK_SHORTCUT,
                                           icon=LOCKED_ICON, menu="&Team", documents_only=True)
        self.dashboard_action = host.add_action("My Locks…", self.show_dashboard, keys=DASHBOARD_SHORTCUT,
                                                icon="ph.lock-key", menu="&Team")
        self.delegate = LockDelegate(self.badge, host.tree)
        host.tree.setItemDelegate(self.delegate)
        host.add_marks(self.mark)
        host.tabs.changed.connect(self._attach_editors)
        host.bridge.documents_changed.connect(self._documents_changed)
        host.bridge.lock_settled.connect(self.announce)
        host.bridge.lock_broken.connect(self.announce_broken)
        self._attach_editors()

    # ------------------------------------------------------------------ what is known
    @property
    def me(self) -> str:
        """The lock holder's name here (the remote user name in a team project)."""
        return self._me

    def _load_table(self) -> None:
        """Read every lock off the GUI thread (it reads every document: a large project would
        hold the window back); the tree and tabs get their marks when it is done."""
        task = Task(self.session.locks.locks, "Reading the locks", self)
        self._tasks.add(task)
        task.succeeded.connect(lambda found, t=task: self._table_loaded(t, found))
        task.failed.connect(lambda exc, t=task: self._table_loaded(t, None, exc))
        task.start()

    def _table_loaded(self, task: Task, found: object, error: BaseException | None = None) -> None:
        task.release()
        self._tasks.discard(task)
        if error is not None:  # a store that cannot be read: the window says so elsewhere
            log.warning("could not list the locks: %s", error)
            return
        if self.session.closed or not isinstance(found, list):
            return
        self.table.reset(found)
        self._lock_changed()
        for editor, _button, _banner in list(self._parts.values()):
            self.refresh_editor(editor)

    def badge(self, doc_id: str) -> LockBadge | None:
        return lock_badge(self.table.get(doc_id), self._me)

    def _held(self, doc_id: str) -> dict[str, Any] | None:
        """The revision an open editor of ``doc_id`` wrote itself, when the index knows it as the
        current one (the gate tells the index at once), so an autosave is not read back from the
        store on the GUI thread; else None."""
        try:
            summary = self.session.index.get(doc_id)
        except Exception:  # noqa: BLE001 - the index is a shortcut here: without it, read
            return None
        if summary is None:
            return None
        for editor, _button, _banner in self._parts.values():
            if editor.doc_id == doc_id and isValid(editor):
                written = editor.written_revision()
                if written is not None and written.get("_rev") == summary.rev:
                    return written
        return None

    def _read(self, doc_id: str) -> dict[str, Any] | None:
        """``doc_id`` as stored now (``None`` when deleted): an open editor's revision when it is
        the current one (:meth:`_held`), else read once per change of the store:
        an autosave asks for it five times (the editor's state and the lock table, after the
        save and on its event), and a 5,000-line script is 5 ms a read on the GUI thread."""
        held = self._held(doc_id)
        if held is not None:
            return held
        seq = self.session.db.update_seq
        if seq != self._reads_seq:
            self._reads, self._reads_seq = {}, seq
        if doc_id in self._reads:
            return self._reads[doc_id]
        try:
            doc: dict[str, Any] | None = self.session.db.get(doc_id)
        except NotFound:
            doc = None
        self._reads[doc_id] = doc  # read after ``seq`` was: a write since then makes a new seq
        return doc

    def _follow(self, doc_ids: set[str]) -> bool:
        provisional = set(self.session.locks.provisional()) if doc_ids else set()
        changed = False
        for doc_id in doc_ids:
            changed |= self.table.apply(doc_id, self._read(doc_id), provisional=doc_id in provisional)
        return changed

    def _documents_changed(self, changes: list[DocumentChanged]) -> None:
        if self.session.closed:
            return
        ids = {c.id for c in changes if not c.id.startswith(("_local/", "_design/"))}
        self._me = self.session.locks.holder()
        if self._follow(ids):
            self._lock_changed()
        for editor, _button, _banner in list(self._parts.values()):
            if editor.doc_id in ids:
                self.refresh_editor(editor)

    def _lock_changed(self) -> None:
        self.host.refresh_marks()
        self.changed.emit()

    def name(self, doc_id: str) -> str:
        summary = self.session.index.get(doc_id)
        name = getattr(summary, "name", None)
        return name if isinstance(name, str) and name else doc_id

    # ------------------------------------------------------------------ editors
    def _attach_editors(self) -> None:
        editors = [editor for editor in self.host.tabs.editors() if isinstance(editor, DocumentEditor)]
        alive = {id(editor) for editor in editors}
        for key in [key for key in self._parts if key not in alive]:
            del self._parts[key]
        for editor in editors:
            if id(editor) in self._parts:
                continue
            button = LockButton(editor)
            button.clicked.connect(lambda _checked=False, e=editor: self.toggle(e.doc_id))
            header = _header_of(editor)
            if header is not None:
                header.insertWidget(max(0, header.indexOf(editor.kind_label)), button)
            banner = Banner(editor, strip=True)
            banner.setProperty("lockBanner", True)
            layout = editor.layout()
            if layout is not None:
                layout.insertWidget(0, banner)  # type: ignore[attr-defined]
            self._parts[id(editor)] = (editor, button, banner)
            editor.state_changed.connect(lambda e=editor: self.refresh_editor(e))
            self.refresh_editor(editor)

    def parts(self, editor: DocumentEditor) -> tuple[LockButton, Banner] | None:
        """The lock button and the lock banner of an open editor."""
        found = self._parts.get(id(editor))
        return None if found is None else (found[1], found[2])

    def editor_state(self, editor: DocumentEditor) -> EditorLock:
        doc = self._read(editor.doc_id) or editor.base
        try:
            required = require_lock_to_edit(self.session.settings(), self.session.remote.configured)
        except (NotFound, StoryloomError):
            required = False
        provisional = editor.doc_id in self.session.locks.provisional()
        return editor_lock(doc, self._me, require_lock=required, provisional=provisional)

    def refresh_editor(self, editor: DocumentEditor) -> None:
        parts = self._parts.get(id(editor))
        if parts is None or self.session.closed or not isValid(editor):
            return
        _editor, button, banner = parts
        state = self.editor_state(editor)
        if self._follow({editor.doc_id}):  # an auto-lock on the first edit, seen before its event
            self._lock_changed()
        set_read_only(editor, state.read_only)
        button.show_state(state, self._busy.get(editor.doc_id))
        notice = self._notices.get(editor.doc_id)
        if notice is not None:
            banner.show_message(notice[0], notice[1], ("Dismiss", partial(self.dismiss, editor.doc_id)))
        elif state.mode == "theirs" and state.banner:
            banner.show_message(state.banner_kind, state.banner,
                                ("Break lock…", partial(self.break_lock, editor.doc_id)))
        elif state.banner:
            banner.show_message(state.banner_kind, state.banner)
        else:
            banner.clear()

    def mark(self, doc_id: str) -> tuple[QIcon, str] | None:
        """How the tree and the tabs mark a locked document: a lock in the holder's colour, and
        "Locked by X since T" in the tooltip."""
        badge = self.badge(doc_id)
        if badge is None:
            return None
        return qta.icon(LOCKED_ICON, color=badge.color), f"{badge.tooltip[:1].upper()}{badge.tooltip[1:]}"

    def dismiss(self, doc_id: str) -> None:
        self._notices.pop(doc_id, None)
        self._refresh(doc_id)

    def _refresh(self, doc_id: str) -> None:
        """Refresh the open editor of ``doc_id`` (if open)."""
        editor = self.host.tabs.editor(doc_id)
        if isinstance(editor, DocumentEditor):
            self.refresh_editor(editor)

    # ------------------------------------------------------------------ intents
    def toggle_current(self) -> None:
        """F2: lock the open document, or unlock it when it is mine (someone else's: offer to break)."""
        editor = self.host.tabs.current_editor()
        if editor is not None:
            self.toggle(editor.doc_id)

    def toggle(self, doc_id: str) -> None:
        if doc_id in self._busy:
            return
        held = self.table.get(doc_id)
        if held is not None and held.holder != self._me:
            self.break_lock(doc_id)
            return
        editor = self.host.tabs.editor(doc_id)
        if editor is not None and editor.dirty:
            editor.save()  # the lock goes on top of the edits, never beside them
        locks = self.session.locks
        if held is None:
            self.run(doc_id, "Locking…", lambda: locks.lock(doc_id))
        else:
            self.run(doc_id, "Unlocking…", lambda: locks.unlock(doc_id))

    def break_lock(self, doc_id: str) -> bool:
        """Break someone else's lock after the user confirms it; False when they did not."""
        held = self.table.get(doc_id)
        if held is None or held.holder == self._me:
            return False
        if not confirm_break(self.host.widget, held.holder, self.name(doc_id), held.since):
            return False
        locks = self.session.locks
        self.run(doc_id, "Breaking…", lambda: locks.unlock(doc_id, break_lock=True))
        return True

    def unlock_all(self) -> None:
        """Release every lock held here (after saving every open document)."""
        self.host.tabs.save_all()
        mine = [info.doc_id for info in self.table.locks() if info.holder == self._me]
        for doc_id in mine:
            self._busy[doc_id] = "Unlocking…"
        locks = self.session.locks
        self._start(Task(locks.unlock_all_mine, "Unlocking all my locks", self), "", mine)

    def run(self, doc_id: str, busy: str, call: Callable[[], object]) -> Task:
        """``call()`` off the GUI thread; ``doc_id``'s button says ``busy`` meanwhile."""
        self._busy[doc_id] = busy
        self._refresh(doc_id)
        return self._start(Task(call, f"{busy[:-1]} {self.name(doc_id)}", self), doc_id, [doc_id])

    def _start(self, task: Task, doc_id: str, ids: list[str]) -> Task:
        self._tasks.add(task)
        task.succeeded.connect(lambda result, t=task: self._done(t, doc_id, ids, result, None))
        task.failed.connect(lambda exc, t=task: self._done(t, doc_id, ids, None, exc))
        task.start()
        return task

    def _done(self, task: Task, doc_id: str, ids: list[str], result: object, error: BaseException | None) -> None:
        task.release()
        self._tasks.discard(task)
        if isinstance(result, list):
            ids = sorted(set(ids) | {str(i) for i in result})
        for done in ids:
            self._busy.pop(done, None)
        if self.session.closed:
            return
        message = "" if error is None else self._explain(doc_id, error)
        if message:
            editor = self.host.tabs.editor(doc_id) if doc_id else None
            if editor is not None:
                self._notices[doc_id] = ("error", message)
            else:
                self.host.show_message(message, 15_000)
        self._follow(set(ids))
        self._lock_changed()
        for editor, _button, _banner in list(self._parts.values()):
            if editor.doc_id in ids:
                self.refresh_editor(editor)
        self.finished.emit(doc_id, message)

    def _explain(self, doc_id: str, error: BaseException) -> str:
        name = self.name(doc_id) if doc_id else "your documents"
        if isinstance(error, LockBreakRefused):
            return f"The server refused to break {error.holder}'s lock on “{name}”: {error.reason}"
        if isinstance(error, LockRefused):
            holder = error.holder or "someone else"
            since = f" (since {when_text(error.since)})" if error.since else ""
            return f"{holder} holds the lock on “{name}”{since}: it stays read-only here until they unlock it."
        if isinstance(error, StoryloomError):
            return f"The lock on “{name}” could not change: {say(error)}"
        return f"The lock on “{name}” could not change: {type(error).__name__}: {error}"

    # ------------------------------------------------------------------ notices
    def announce(self, notice: LockNotice) -> None:
        """A provisional lock was settled after reconnecting: say so where the user looks (the
        document's banner when it is open, the status bar) with what happened to the edits."""
        if self.session.closed:
            return
        view = notice_view(notice, self.name(notice.doc_id))
        self._follow({notice.doc_id})
        self._lock_changed()
        if notice.outcome == "lost":
            self._notices[notice.doc_id] = ("error", view.text)
        self.host.show_message(view.text, 20_000 if notice.outcome == "lost" else 5_000)
        self._refresh(notice.doc_id)

    def announce_broken(self, record: BrokenLock) -> None:
        """Someone broke this machine's lock (seen here for the first time): the document's
        banner says who and when until dismissed, and the status bar for a while."""
        if self.session.closed:
            return
        self._follow({record.doc_id})
        self._lock_changed()
        self._notices[record.doc_id] = ("warning", broken_banner(record))
        self.host.show_message(broken_view(record, self.name(record.doc_id)).text, 20_000)
        self._refresh(record.doc_id)

    # ------------------------------------------------------------------ the dashboard
    def show_dashboard(self) -> QWidget | None:
        """My Locks (the dashboard the window gave, made when first asked for; then brought forward)."""
        if self._dashboard is None:
            return None
        existing = self.host.widget.findChild(QDialog, "locksDashboard")
        if existing is not None and existing.isVisible():
            existing.raise_()
            existing.activateWindow()
            return existing
        dialog = self._dashboard(self, self.host.widget)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        if isinstance(dialog, QDialog):
            dialog.open()
        else:
            dialog.show()
        return dialog

    def busy(self) -> bool:
        return bool(self._tasks)

    def stop(self, timeout_ms: int = 15_000) -> None:
        """Wait for the lock calls still running (the window closes the session after)."""
        for task in list(self._tasks):
            task.wait(timeout_ms)


def _header_of(editor: DocumentEditor) -> Any:
    """The layout of the editor's header: the one holding its kind label (the base's title row,
    or where an editor moved the label, as Project Settings does into its form's title row)."""
    owner = editor.kind_label.parentWidget()
    layout = owner.layout() if owner is not None else None
    return _holding(layout, editor.kind_label) if layout is not None else None


def _holding(layout: Any, widget: QWidget) -> Any:
    """The layout, ``layout`` or one nested in it, that holds ``widget`` itself."""
    if layout.indexOf(widget) >= 0:
        return layout
    for i in range(layout.count()):
        item = layout.itemAt(i)
        child = item.layout() if item is not None else None
        found = _holding(child, widget) if child is not None else None
        if found is not None:
            return found
    return None
