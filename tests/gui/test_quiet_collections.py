"""The app's garbage collection policy: once settled, what a project window holds (a long script's
parse among it) is out of every full collection's reach, and so is a new parse after the next
settle; a full collection then walks a few objects instead of the whole heap. The cycles among
frozen objects are freed when a project window closes or the app stops being the active one."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor


class Cycle:
    def __init__(self) -> None:
        self.me = self


def _traversed(obj: object) -> bool:
    """Whether a full collection walks ``obj`` (it is in one of the collector's generations)."""
    return any(o is obj for o in gc.get_objects())


@pytest.fixture
def quiet(qapp) -> Iterator[Any]:  # type: ignore[no-untyped-def]
    from storyloom.gui.application import QuietCollections

    collections = QuietCollections(qapp)
    collections.timer.stop()  # ticks when the test says
    try:
        yield collections
    finally:
        collections.stop()
        collections.deleteLater()


def _long_script_editor(window, lines: int):  # type: ignore[no-untyped-def]
    from storyloom.gui.editors import ScriptEditor

    text = "".join(f"::Woman:: The tide is {n} feet tonight.\n" if n % 7 else f"@set v.player.courage += {n}\n"
                   for n in range(lines))
    doc_id = window.session.editor.create("Script", "Settled", content={"script": text}).id
    window.open_document(doc_id)
    editor = window.tabs.current_editor()
    assert isinstance(editor, ScriptEditor)
    editor.wait_for_parse(30)
    return editor


def test_a_settle_takes_an_open_long_script_out_of_full_collections(window, quiet, qtbot) -> None:  # type: ignore[no-untyped-def]
    editor = _long_script_editor(window, 2000)
    row = editor._parser._rows[1500]
    assert _traversed(row)  # every full collection walks the parse (and the project's index...)
    quiet.tick()
    assert not _traversed(row)
    assert len(gc.get_objects()) < 2_000  # what a full collection walks now: not the heap
    # A Return in the middle: the parse renumbers the lines after it (new objects), which the
    # next settle takes out of reach in turn.
    block = editor.text.document().findBlockByNumber(999)
    cursor = QTextCursor(block)
    cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock)
    editor.text.setTextCursor(cursor)
    qtbot.keyClick(editor.text, Qt.Key.Key_Return)
    editor.parse_soon()
    editor.wait_for_parse(30)
    renumbered = editor._parser._rows[1500]
    assert renumbered is not row and renumbered.lines[0].line == 1501
    assert _traversed(renumbered)
    quiet.tick()
    assert not _traversed(renumbered)
    assert editor.problems == [] and editor.problems_button.text() == "No problems"


def test_the_cycles_among_settled_objects_are_freed_once_the_project_window_closes(window, quiet, qapp) -> None:  # type: ignore[no-untyped-def]
    qapp.applicationStateChanged.disconnect(quiet._state_changed)  # the window's closing alone
    held = [Cycle()]
    ref = weakref.ref(held[0])
    quiet.tick()
    held.clear()  # cyclic garbage now, but frozen
    gc.collect()
    quiet.tick()
    assert ref() is not None and quiet.objects.reclaims == 0
    window.close()
    quiet.tick()
    assert ref() is None and quiet.objects.reclaims == 1
    qapp.applicationStateChanged.connect(quiet._state_changed)  # as it was, for stop()


def test_the_cycles_among_settled_objects_are_freed_when_a_tab_closes(window, quiet, qapp) -> None:  # type: ignore[no-untyped-def]
    """A writer who keeps the app in front all day still gets a closed editor's cycles back: a
    closed tab reclaims (at most once a minute), while typing never does."""
    qapp.applicationStateChanged.disconnect(quiet._state_changed)
    doc_id = next(s.id for s in window.session.index.summaries() if s.type == "Script")
    window.open_document(doc_id)
    quiet.tick()  # the open tab counted
    held = [Cycle()]
    ref = weakref.ref(held[0])
    quiet.tick()
    held.clear()
    quiet.tick()
    assert ref() is not None and quiet.objects.reclaims == 0
    assert window.tabs.close_tab(window.tabs.currentIndex())
    assert window.tabs.count() == 0
    quiet.tick()
    assert ref() is None and quiet.objects.reclaims == 1
    qapp.applicationStateChanged.connect(quiet._state_changed)


def test_the_cycles_among_settled_objects_are_freed_when_the_app_is_left(qapp, quiet) -> None:  # type: ignore[no-untyped-def]
    held = [Cycle()]
    ref = weakref.ref(held[0])
    quiet.tick()
    held.clear()
    qapp.applicationStateChanged.emit(Qt.ApplicationState.ApplicationActive)
    assert ref() is not None
    qapp.applicationStateChanged.emit(Qt.ApplicationState.ApplicationInactive)
    assert ref() is None and quiet.objects.reclaims == 1


def test_stopping_gives_every_object_back_to_the_collector(quiet) -> None:  # type: ignore[no-untyped-def]
    kept = Cycle()
    quiet.tick()
    assert not _traversed(kept)
    quiet.stop()
    assert _traversed(kept)
