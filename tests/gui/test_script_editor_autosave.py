"""The Script editor's autosave writes on a worker thread: the gate's write of a 5,000-line
script (its line ids anchored again, the document copied, encoded and stored) is 40 to 80 ms of
CPU, the longest stall left under a writer's fingers when it ran on the GUI thread. What the
writer sees stays as it was: the text typed while it is written stays unsaved and is saved next,
a save asked for meanwhile (Ctrl+S, closing the tab) waits for it, its own change is not taken for
a change made elsewhere, and a refused write shows why."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor


def _script_editor(window, qtbot, text: str):  # type: ignore[no-untyped-def]
    from storyloom.gui.editors import ScriptEditor

    doc_id = window.session.editor.create("Script", "Saved in the background", content={"script": text}).id
    window.open_document(doc_id)
    editor = window.tabs.current_editor()
    assert isinstance(editor, ScriptEditor)
    editor.wait_for_parse()
    editor.text.moveCursor(QTextCursor.MoveOperation.End)
    return editor


class _HeldWrites:
    """The gate's real ``patch``, held at ``where`` ("before" or "after" the write) until
    ``release`` is set; records the thread each write ran on."""

    def __init__(self, monkeypatch, gate: Any, where: str) -> None:  # type: ignore[no-untyped-def]
        self.threads: list[str] = []
        self.reached = threading.Event()
        self.release = threading.Event()
        patch = gate.patch

        def held(*args: Any, **kwargs: Any) -> Any:
            self.threads.append(threading.current_thread().name)
            if where == "before":
                self.reached.set()
                assert self.release.wait(10)
            result = patch(*args, **kwargs)
            if where == "after":
                self.reached.set()
                assert self.release.wait(10)
            return result

        monkeypatch.setattr(gate, "patch", held)


def _stored_script(window, editor) -> str:  # type: ignore[no-untyped-def]
    return window.session.db.get(editor.doc_id)["content"]["script"]


def test_the_autosave_writes_on_a_worker_and_text_typed_meanwhile_is_saved_next(window, qtbot,
                                                                                 monkeypatch) -> None:  # type: ignore[no-untyped-def]
    editor = _script_editor(window, qtbot, "::Woman:: One.\n")
    writes = _HeldWrites(monkeypatch, window.session.editor, "before")
    qtbot.keyClicks(editor.text, " Two")
    assert editor.dirty
    editor.autosave()  # what the autosave's timer calls after a pause
    assert writes.reached.wait(10)
    # The GUI thread types on while the write is held on the worker.
    qtbot.keyClicks(editor.text, " Three")
    writes.release.set()
    qtbot.waitUntil(lambda: not editor.autosaving, timeout=10000)
    assert writes.threads and writes.threads[0] != threading.main_thread().name
    assert _stored_script(window, editor) == "::Woman:: One.\n Two"
    assert editor.dirty  # " Three" is not saved yet
    qtbot.waitUntil(lambda: not editor.dirty, timeout=10000)  # the next autosave writes it
    assert _stored_script(window, editor) == "::Woman:: One.\n Two Three"
    assert not editor.banner.isVisibleTo(editor) and not editor.invalid


def test_a_save_asked_for_while_the_autosave_writes_waits_for_it(window, qtbot, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    editor = _script_editor(window, qtbot, "::Woman:: One.\n")
    writes = _HeldWrites(monkeypatch, window.session.editor, "before")
    qtbot.keyClicks(editor.text, "A")
    editor.autosave()
    assert writes.reached.wait(10)
    qtbot.keyClicks(editor.text, "B")
    threading.Timer(0.2, writes.release.set).start()
    qtbot.keyClick(editor.text, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)  # waits, then saves "B"
    assert not editor.dirty and not editor.autosaving
    assert _stored_script(window, editor) == "::Woman:: One.\nAB"
    qtbot.wait(300)  # both writes' events arrive: both are the editor's own
    assert not editor.banner.isVisibleTo(editor)
    assert editor.text.toPlainText() == "::Woman:: One.\nAB" and not editor.dirty


def test_the_autosave_s_own_change_is_not_taken_for_one_made_elsewhere(window, qtbot, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    editor = _script_editor(window, qtbot, "::Woman:: One.\n")
    writes = _HeldWrites(monkeypatch, window.session.editor, "after")
    qtbot.keyClicks(editor.text, "A")
    with qtbot.waitSignal(window.bridge.documents_changed, timeout=10000):
        editor.autosave()  # written; its event reaches the editor before the worker's result
        assert writes.reached.wait(10)
    qtbot.keyClicks(editor.text, "B")  # unsaved text when the event is looked at
    writes.release.set()
    qtbot.waitUntil(lambda: not editor.autosaving, timeout=10000)
    qtbot.wait(50)
    assert not editor.banner.isVisibleTo(editor)  # no "changed elsewhere while you were typing"
    assert editor.text.toPlainText() == "::Woman:: One.\nAB" and editor.dirty
    qtbot.waitUntil(lambda: not editor.dirty, timeout=10000)
    assert _stored_script(window, editor) == "::Woman:: One.\nAB"


def test_an_autosave_refused_on_the_worker_shows_why_and_keeps_the_text(window, qtbot, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    editor = _script_editor(window, qtbot, "::Woman:: One.\n")
    gate = window.session.editor
    their_write = gate.patch  # another writer of this session (the local API, a merge)
    writes = _HeldWrites(monkeypatch, gate, "before")
    qtbot.keyClicks(editor.text, "Mine")
    editor.autosave()
    assert writes.reached.wait(10)
    # Another writer's revision lands while the autosave's write waits: the write conflicts.
    stored = window.session.db.get(editor.doc_id)
    their_write(editor.doc_id, {"content": dict(stored["content"], script="::Man:: Theirs.\n")})
    writes.release.set()
    qtbot.waitUntil(lambda: not editor.autosaving, timeout=10000)
    qtbot.waitUntil(lambda: editor.banner.isVisibleTo(editor), timeout=10000)
    assert editor.banner.kind == "warning" and "changed" in editor.banner.label.text()
    assert editor.text.toPlainText() == "::Woman:: One.\nMine" and editor.dirty
    assert _stored_script(window, editor) == "::Man:: Theirs.\n"
    editor.load_theirs()  # the banner's way out: their text shown, nothing left unsaved
    assert editor.text.toPlainText() == "::Man:: Theirs.\n" and not editor.dirty


def test_closing_the_tab_while_its_autosave_is_written_keeps_everything_typed(window, qtbot,
                                                                              monkeypatch) -> None:  # type: ignore[no-untyped-def]
    editor = _script_editor(window, qtbot, "::Woman:: One.\n")
    doc_id = editor.doc_id
    writes = _HeldWrites(monkeypatch, window.session.editor, "before")
    qtbot.keyClicks(editor.text, "Written")
    editor.autosave()
    assert writes.reached.wait(10)
    qtbot.keyClicks(editor.text, " and closed")
    threading.Timer(0.2, writes.release.set).start()
    assert window.tabs.close_tab(window.tabs.indexOf(editor))  # waits for the write, then saves the rest
    assert window.session.db.get(doc_id)["content"]["script"] == "::Woman:: One.\nWritten and closed"
    assert len(writes.threads) == 2  # the autosave's write, then the closing save's


def _rename_in_tree(window, qtbot, doc_id: str, name: str) -> None:  # type: ignore[no-untyped-def]
    """Rename ``doc_id`` as the writer does in the tree (its row edited), on the GUI thread."""
    model = window.explorer.model
    qtbot.waitUntil(lambda: model.index_of(doc_id).isValid(), timeout=10000)
    assert model.setData(model.index_of(doc_id), name)


def _settled(window, qtbot, editor) -> None:  # type: ignore[no-untyped-def]
    """Every autosave written and its result and events taken."""
    qtbot.waitUntil(lambda: not editor.autosaving and not editor.dirty, timeout=10000)
    qtbot.wait(300)  # the session's events of the last writes reach the editor
    qtbot.waitUntil(lambda: not editor.autosaving and not editor.dirty, timeout=10000)


# "before": the write is on the worker, not yet in the store; "after": written, its result not
# yet taken by the editor.
@pytest.mark.parametrize("held", ["before", "after"], ids=["while-the-autosave-is-on-its-way",
                                                           "just-after-the-autosave-wrote"])
def test_a_rename_in_the_tree_during_an_autosave_keeps_the_text_and_the_name(
        window, qtbot, monkeypatch, held: str) -> None:  # type: ignore[no-untyped-def]
    editor = _script_editor(window, qtbot, "::Woman:: One.\n")
    writes = _HeldWrites(monkeypatch, window.session.editor, held)
    qtbot.keyClicks(editor.text, "Typed")
    editor.autosave()
    assert writes.reached.wait(10)
    _rename_in_tree(window, qtbot, editor.doc_id, "Renamed in the tree")
    qtbot.keyClicks(editor.text, " on")
    writes.release.set()
    _settled(window, qtbot, editor)
    stored = window.session.db.get(editor.doc_id)
    assert stored["content"]["script"] == "::Woman:: One.\nTyped on"
    assert stored["name"] == "Renamed in the tree"
    assert editor.name_edit.text() == "Renamed in the tree"
    assert not editor.banner.isVisibleTo(editor) and not editor.invalid
    assert editor.text.toPlainText() == "::Woman:: One.\nTyped on"
