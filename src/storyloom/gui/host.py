"""What a panel may ask of its project window: :class:`WindowHost`.

A panel (a dock, a part of the Team menu, a status bar item, the player) is built with its
window's host and reaches the window only through it, so no panel imports
:mod:`storyloom.gui.main_window`: the window builds the panels from the list in
:mod:`storyloom.gui.panels`. An editor finds its window's host with :func:`host_of`.

Editors import this module, so it imports nothing of them: an open editor is an
:class:`OpenEditor` here, and the window's tabs :class:`OpenTabs`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

from PySide6.QtCore import SignalInstance
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu, QTreeView, QWidget

from storyloom.app import ProjectSession, Workspace
from storyloom.gui.bridge import SessionBridge
from storyloom.gui.status_bar import StatusBar
from storyloom.gui.tree_model import MarkProvider

#: A shortcut: ``"Ctrl+Shift+M"``, a key sequence or a standard key.
Keys = str | QKeySequence | QKeySequence.StandardKey


class OpenEditor(Protocol):
    """An open document's editor, as a panel sees it."""

    doc_id: str
    base: dict[str, Any]
    dirty: bool

    def save(self) -> bool: ...


class OpenTabs(Protocol):
    """The window's open documents."""

    @property
    def changed(self) -> SignalInstance:
        """A tab was opened or closed, or another one came to the front."""

    @property
    def damaged(self) -> SignalInstance:
        """A document could not be read (its id)."""

    def current_editor(self) -> OpenEditor | None: ...

    def editor(self, doc_id: str) -> OpenEditor | None: ...

    def editors(self) -> Sequence[OpenEditor]: ...

    def save_all(self) -> bool: ...


@runtime_checkable
class WindowHost(Protocol):
    """One project's window, as its panels see it."""

    @property
    def session(self) -> ProjectSession: ...

    @property
    def workspace(self) -> Workspace: ...

    @property
    def bridge(self) -> SessionBridge:
        """The session's events as Qt signals, on the GUI thread."""

    @property
    def tabs(self) -> OpenTabs: ...

    @property
    def status(self) -> StatusBar: ...

    @property
    def tree(self) -> QTreeView:
        """The explorer's tree (a panel may paint its rows)."""

    @property
    def closed(self) -> SignalInstance:
        """The window closed (its session is closed)."""

    @property
    def widget(self) -> QWidget:
        """The window itself: the parent of what a panel opens (dialogs, menus, its objects)."""

    def open_document(self, doc_id: str) -> bool:
        """Open ``doc_id`` in its tab; False when it no longer exists."""

    def open_at(self, doc_id: str, line: int = 0, column: int = 1, *, field: str | None = None,
                length: int = 0) -> bool:
        """Open ``doc_id`` at ``line`` (or with a search hit of ``field`` selected)."""

    def navigate_to(self, route: str, doc_id: str) -> None:
        """Open ``doc_id``, show it in its tree and bring the window forward."""

    def select_collection(self, key: str) -> None:
        """Show a collection in the rail and the tree (Project Settings opens its tab)."""

    def show_message(self, text: str, timeout_ms: int = 0) -> None:
        """Say ``text`` in the status bar (for ``timeout_ms``; 0: until the next message)."""

    def menu(self, title: str) -> QMenu:
        """The window's menu ``title`` (``"&View"``, ``"&Team"``…), made before Help when missing."""

    def add_action(self, text: str, slot: Callable[[], object], *, keys: Keys | None = None,
                   icon: str | None = None, menu: QMenu | str | None = None,
                   documents_only: bool = False) -> QAction:
        """An action whose shortcut works anywhere in the window (``documents_only``: over the
        open documents only), listed in ``menu`` when given."""

    def add_marks(self, marks: MarkProvider) -> None:
        """Mark documents in the tree and on the tabs (an icon and a sentence, or None)."""

    def refresh_marks(self) -> None:
        """Show the documents' marks again (one of them changed)."""

    def part(self, name: str) -> object:
        """A part of the window built before this one (by its name in the list of panels)."""


@runtime_checkable
class Stoppable(Protocol):
    """A part with work to end before its window's session closes."""

    def stop(self) -> None: ...


def host_of(widget: QWidget) -> WindowHost | None:
    """The host of the project window holding ``widget`` (None outside one: a test's editor)."""
    window = widget.window()
    return window if isinstance(window, WindowHost) else None
