"""Writing a script node's lines in the dialogue graph's side panel.

:class:`NodeScriptWriter` is the Script editor itself (:class:`~storyloom.gui.editors.script_editor.ScriptEditor`:
its text with highlighting, completion and problems, its debounced save through the session's
editor gate, its "changed elsewhere" banner that keeps what is typed), made compact for the
panel: the panel names the script in its own list, so the title and the footer's position and
Play are hidden, and it saves only the script's text (a rename made meanwhile elsewhere stays).
It is read-only while someone else holds the script's lock
(:func:`storyloom.app.views.lock_view.editor_lock`, what the window's lock UI asks for a tab).

:class:`ScriptWriters` owns the writers of one dialogue editor: the one the panel shows, and
those put away with text that could not be saved yet (shown again, unsaved text and banner
and all, when their node is selected again), so switching nodes never loses typing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QBoxLayout, QLabel, QSizePolicy, QWidget
from superqt.utils import qdebounced

from storyloom.app import DocumentChanged, ProjectSession
from storyloom.app.views.lock_view import editor_lock
from storyloom.diagnostics import Diagnostic
from storyloom.gui.editors.script_editor import ScriptEditor
from storyloom.store import NotFound

#: The text box's height in the panel (it grows with the panel, never below this).
WRITER_MIN_HEIGHT = 220
#: Writers kept ready (hidden, following their scripts) after their node was shown, so going
#: back and forth between a few script nodes does not build the editor again each time.
KEPT_WRITERS = 6
#: The pause in typing after which the node shows the lines as typed (before they are saved).
TYPED_PREVIEW_MS = 300
#: The lines of the text the node's preview is made from (it shows the first few): a long
#: script is not parsed whole on the GUI thread for it.
PREVIEW_HEAD_LINES = 60


class NodeScriptWriter(ScriptEditor):
    """A Script document's text, written in a script node's side panel."""

    def __init__(self, session: ProjectSession, doc: dict[str, Any], parent: QWidget | None = None) -> None:
        super().__init__(session, doc, parent)
        self.setObjectName("nodeScriptWriter")
        self.name_edit.hide()
        self.kind_label.hide()
        header = next((layout for layout in self.findChildren(QBoxLayout) if layout.indexOf(self.name_edit) >= 0),
                      None)
        if header is not None:  # its widgets hidden, its margins would still leave a gap
            header.setContentsMargins(0, 0, 0, 0)
        self.position_label.hide()
        self.play_button.hide()
        self.text.setObjectName("nodeScriptText")
        self.text.setMinimumHeight(WRITER_MIN_HEIGHT)
        self.text.setPlaceholderText("::Actor:: A line of speech\n<Command(param)>\n@if v.player.brave\n@endif")
        # The panel is narrow: the problems summary elides (its whole text is the tooltip), and a
        # banner's message and buttons stack instead of widening the panel.
        self.problems_button.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.problems_button.setStyleSheet("text-align: left;")
        footer = next((layout for layout in self.body.findChildren(QBoxLayout)
                       if layout.indexOf(self.problems_button) >= 0), None)
        if footer is not None:  # the summary takes the footer's width (the position and Play are hidden)
            footer.setStretchFactor(self.problems_button, 1)
        banner_layout = self.banner.layout()
        if isinstance(banner_layout, QBoxLayout):
            banner_layout.setDirection(QBoxLayout.Direction.TopToBottom)
        self.lock_label = QLabel()
        self.lock_label.setObjectName("nodeScriptLock")
        self.lock_label.setWordWrap(True)
        self.lock_label.setProperty("role", "caption")
        self.lock_label.hide()
        layout = self.layout()
        if isinstance(layout, QBoxLayout):
            layout.insertWidget(1, self.lock_label)
        self.follow_lock()

    def changes(self) -> dict[str, Any]:
        """The script's text only: its name belongs to the tree and the Script tab."""
        content = dict(self.base.get("content") or {})
        content["script"] = self.text.toPlainText()
        return {"content": content}

    # ------------------------------------------------------------------ the lock
    def follow_lock(self) -> bool:
        """Read-only while someone else holds the script's lock (what the lock UI makes a
        Script tab); returns whether it is."""
        try:
            me = self.session.locks.holder()
        except Exception:  # noqa: BLE001 - without the lock service, only the gate decides
            me = ""
        state = editor_lock(self.base, me)
        self.text.setReadOnly(state.read_only)
        self.lock_label.setText(f"Locked by {state.holder}: read-only here until they unlock it (Open shows the "
                                "script with its lock)." if state.read_only else "")
        self.lock_label.setVisible(state.read_only)
        return state.read_only

    def apply_document(self, doc: dict[str, Any]) -> None:
        super().apply_document(doc)
        if hasattr(self, "lock_label"):  # the first load runs before the panel's parts exist
            self.follow_lock()

    def external_change(self, change: DocumentChanged) -> None:
        super().external_change(change)
        self.follow_lock()

    # ------------------------------------------------------------------ the narrow footer
    def check_problems(self) -> list[Diagnostic]:
        problems = super().check_problems()
        self._problems_text = self.problems_button.text()
        self.problems_button.setToolTip(self._problems_text)
        self._elide_problems()
        return problems

    def _elide_problems(self) -> None:
        full = getattr(self, "_problems_text", "")
        width = max(40, self.problems_button.width() - 16)
        self.problems_button.setText(self.problems_button.fontMetrics().elidedText(
            full, Qt.TextElideMode.ElideRight, width))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide_problems()


class ScriptWriters:
    """The script writers of one dialogue editor's panel, by script id: at most one shown, those
    with unsaved text kept until it is saved (or the editor closes), and the last few shown kept
    ready (:data:`KEPT_WRITERS`)."""

    def __init__(self, session: ProjectSession, parent: QWidget, changed: Callable[[], None] | None = None,
                 typed: Callable[[str, str], None] | None = None) -> None:
        self.session = session
        self.parent = parent  # where a writer waits, hidden, while its node is not shown
        self.changed = changed  # a writer's unsaved state changed (the dialogue's tab shows it)
        self.typed = typed  # (script id, the first lines as typed), after a pause in typing
        self._writers: dict[str, NodeScriptWriter] = {}

    def writer(self, script_id: str) -> NodeScriptWriter | None:
        """The writer of ``script_id`` (the one kept with its unsaved text, or a new one);
        ``None`` when it is not a readable Script."""
        kept = self._writers.pop(script_id, None)
        if kept is not None:
            self._writers[script_id] = kept  # the most recently shown last
            return kept
        try:
            doc = self.session.db.get(script_id)
        except NotFound:
            return None
        except Exception:  # noqa: BLE001 - an unreadable script has no text to write in
            return None
        if not isinstance(doc, dict) or doc.get("type") != "Script":
            return None
        writer = NodeScriptWriter(self.session, doc, self.parent)
        writer.hide()
        if self.changed is not None:
            changed = self.changed
            writer.state_changed.connect(lambda: changed())
        if self.typed is not None:
            typed = self.typed

            def tell() -> None:
                if writer.dirty:  # typed (a text loaded from the script is the script's own)
                    head = writer.text.document().findBlockByNumber(PREVIEW_HEAD_LINES)
                    text = writer.text.toPlainText()
                    typed(writer.doc_id, text[:head.position()] if head.isValid() else text)

            writer.text.textChanged.connect(qdebounced(tell, timeout=TYPED_PREVIEW_MS, parent=writer))
        self._writers[script_id] = writer
        return writer

    def put_away(self, writer: NodeScriptWriter) -> None:
        """The panel no longer shows ``writer``: what it holds is saved now; it is kept (hidden)
        when that save is refused, so the text and its banner are there when it is shown again."""
        writer.hide()
        writer.setParent(self.parent)
        if writer.dirty and not writer.deleted:
            writer.save()
        if writer.deleted:
            self._writers.pop(writer.doc_id, None)
            writer.deleteLater()
        clean = [w for w in self._writers.values() if not w.dirty and w is not writer]
        for old in clean[:max(0, len(clean) + 1 - KEPT_WRITERS)]:  # the least recently shown go
            self._writers.pop(old.doc_id, None)
            old.deleteLater()

    @property
    def dirty(self) -> bool:
        return any(w.dirty and not w.deleted for w in self._writers.values())

    def save(self) -> bool:
        """Save every writer's unsaved text now; False when a save was refused."""
        return all([w.save() for w in list(self._writers.values()) if w.dirty and not w.deleted])

    def stop(self) -> None:
        for writer in self._writers.values():
            writer.stop()

    def external_change(self, change: DocumentChanged) -> None:
        """A document changed in the session: the writer of that script follows it."""
        writer = self._writers.get(change.id)
        if writer is not None:
            writer.external_change(change)

    def ids(self) -> set[str]:
        return set(self._writers)
