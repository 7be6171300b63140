"""The player: play a script, a dialogue or a scene from the project window.

:func:`play_actions` puts Play (F5: the current tab from its beginning) and Play from Here
(Shift+F5: a script from the cursor's line, a dialogue from the selected node) in a project
window's Play menu; :func:`open_player` plays any document; the player's "open" buttons come back
through :func:`open_in_window` (a script at its line, a dialogue at its node). The window is
reached through its :class:`~storyloom.gui.host.WindowHost`.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction

from storyloom.gui.host import WindowHost
from storyloom.gui.player.window import PLACE, PlayerWindow
from storyloom.gui.widgets import place_window
from storyloom.play.play_session import PLAYABLE_TYPES, PlayError, program_for, read_doc

#: The methods a dialogue editor may offer to show a node (the first one found is used).
NODE_FOCUS_METHODS = ("reveal_node", "focus_node", "select_node")
#: The methods a dialogue editor may offer to say which node is selected.
SELECTED_NODE_METHODS = ("selected_node_id", "current_node_id")


def open_in_window(window: WindowHost, doc_id: str, line: int | None = None, node: str | None = None) -> bool:
    """Open ``doc_id`` in ``window``: a script at ``line``, a dialogue with ``node`` shown."""
    if line:
        opened = window.open_at(doc_id, line)
    else:
        opened = window.open_document(doc_id)
        editor = window.tabs.editor(doc_id)
        if opened and editor is not None and node:
            for name in NODE_FOCUS_METHODS:
                focus = getattr(editor, name, None)
                if callable(focus):
                    focus(node)
                    break
    window.widget.raise_()
    window.widget.activateWindow()
    return bool(opened)


def open_player(window: WindowHost, doc_id: str, *, line: int | None = None, node: str | None = None,
                source: str = "defaults", scenario: str | None = None) -> PlayerWindow | None:
    """Play ``doc_id`` (a Script from ``line``, a Dialogue from ``node``, a Scene) in a new
    player window; ``None``, with the reason in the status bar, when it cannot be played."""
    doc = read_doc(window.session, doc_id)
    if doc is None:
        window.show_message("That document no longer exists.", 6000)
        return None
    try:
        program = program_for(doc, line=line, node=node)
        player = PlayerWindow(window.session, program, str(doc.get("name") or "Untitled"), str(doc.get("type")),
                              lambda d, ln, n: open_in_window(window, d, ln, n), window.widget,
                              source=source, scenario=scenario)
    except PlayError as exc:
        window.show_message(str(exc), 8000)
        return None
    player.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    window.closed.connect(player.close)
    place_window(player, PLACE, window.widget)  # where it was left, else over the project window; on screen
    player.show()
    player.raise_()
    return player


def play_current(window: WindowHost, *, from_here: bool = False) -> PlayerWindow | None:
    """Play the current tab's document (saved first), from its beginning or, ``from_here``, from
    the cursor's line or the selected node."""
    editor = window.tabs.current_editor()
    doc = editor.base if editor is not None else None
    if editor is None or doc is None or doc.get("type") not in PLAYABLE_TYPES:
        window.show_message("Open a script, a dialogue or a scene to play it (F5).", 6000)
        return None
    if editor.dirty:
        editor.save()
    line = node = None
    if from_here:
        line, node = _here(editor)
    return open_player(window, editor.doc_id, line=line, node=node)


def _here(editor: Any) -> tuple[int | None, str | None]:
    text = getattr(editor, "text", None)
    if editor.base.get("type") == "Script" and text is not None and hasattr(text, "textCursor"):
        return text.textCursor().blockNumber() + 1, None
    for name in SELECTED_NODE_METHODS:
        method = getattr(editor, name, None)
        if callable(method):
            selected = method()
            return None, selected if isinstance(selected, str) and selected else None
    scene = getattr(editor, "scene", None)  # the dialogue graph editor: its scene's selection
    selected_ids = getattr(scene, "selected_node_ids", None)
    if callable(selected_ids):
        chosen = selected_ids()
        if isinstance(chosen, list) and len(chosen) == 1 and isinstance(chosen[0], str):
            return None, chosen[0]
    return None, None


def play_actions(window: WindowHost) -> tuple[QAction, QAction]:
    """Play (F5) and Play from Here (Shift+F5) in the window's Play menu."""
    return (window.add_action("Play", lambda: play_current(window), keys="F5", icon="ph.play", menu="&Play"),
            window.add_action("Play from Here", lambda: play_current(window, from_here=True), keys="Shift+F5",
                              menu="&Play"))


__all__ = ["PlayerWindow", "open_in_window", "open_player", "play_actions", "play_current"]
