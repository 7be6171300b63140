"""The script editor's whole-script parse: it runs off the GUI thread, a result of an older text
is never shown, and showing a result is not an edit of the script."""

from __future__ import annotations

import threading
import time

from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor


def _script_editor(window, text: str):  # type: ignore[no-untyped-def]
    from storyloom.gui.editors import ScriptEditor

    doc_id = window.session.editor.create("Script", "Parsed in the background", content={"script": text}).id
    window.open_document(doc_id)
    editor = window.tabs.current_editor()
    assert isinstance(editor, ScriptEditor) and editor.doc_id == doc_id
    return editor


def _underlined(editor, line: int) -> bool:  # type: ignore[no-untyped-def]
    block = editor.text.document().findBlockByNumber(line - 1)
    return any(r.format.underlineStyle() != r.format.UnderlineStyle.NoUnderline for r in block.layout().formats())


def test_showing_a_parse_is_not_an_edit(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    editor = _script_editor(window, "::Woman:: Hello.\n")
    editor.text.moveCursor(QTextCursor.MoveOperation.End)
    qtbot.keyClicks(editor.text, "@if v.player.")
    assert editor.save() and not editor.dirty
    problems = editor.check_problems()  # the new line's problem underlined: formats, not text
    assert {p.line for p in problems} == {2} and _underlined(editor, 2)
    assert not editor.dirty
    qtbot.wait(400)  # past the debounced parse: showing the problem asked for no other
    assert not editor.dirty
    qtbot.keyClick(editor.text, Qt.Key.Key_A)
    assert editor.dirty


def _long_script(lines: int) -> str:
    kinds = ("::Woman:: The tide is {n} feet tonight, ${{v.player.courage}} or not.", "@if v.player.courage > {n}",
             "<PlaySound(\"bell\", 0.{n})>", "@endif", "// {n} lanterns", "@set v.player.courage += {n}")
    return "".join(kinds[n % len(kinds)].format(n=n) + "\n" for n in range(lines))


def _parse_threads(editor) -> list[str]:  # type: ignore[no-untyped-def]
    """Record the thread every parse of ``editor`` runs on."""
    threads: list[str] = []
    parse = editor._parser.parse

    def recording(*args, **kwargs):  # type: ignore[no-untyped-def]
        threads.append(threading.current_thread().name)
        return parse(*args, **kwargs)

    editor._parser.parse = recording
    return threads


def test_the_whole_script_is_parsed_off_the_gui_thread(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import QTimer

    editor = _script_editor(window, "::Woman:: Hello.\n")
    editor.wait_for_parse()
    threads = _parse_threads(editor)
    ticks: list[float] = []
    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    timer.start()
    editor.text.setPlainText(_long_script(20_000) + "@if v.player.\n")  # a long first parse
    with qtbot.waitSignal(editor.problems_shown, timeout=30_000):
        qtbot.wait(300)  # the pause after typing
    timer.stop()
    assert threads and threading.main_thread().name not in threads
    assert editor.parse_thread not in (None, threading.main_thread().name)
    assert any(p.code == "bad-expression" for p in editor.problems)
    # the GUI thread went on running its timers while the worker parsed 20,000 lines
    assert len(ticks) >= 10, ticks


def test_the_parse_of_an_older_text_is_not_shown(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    editor = _script_editor(window, "::Woman:: Hello.\n")
    editor.wait_for_parse()
    assert editor.problems == []
    editor.text.setPlainText("::Woman:: Hello.\n@if v.player.\n")
    editor.parse_soon()
    worker = editor.worker
    assert worker is not None
    worker.join(10)  # parsed, its result queued to the GUI thread, not yet delivered
    assert not worker.is_alive()
    shown: list[int] = []
    editor.problems_shown.connect(lambda: shown.append(editor.version))
    editor.text.setPlainText("::Woman:: Hello.\n")  # the broken line is gone before the result arrives
    qtbot.wait(50)  # the queued result is delivered: it is for the text before the undo
    assert shown == [] and editor.problems == [] and not editor.text.problems
    assert not _underlined(editor, 2)
    editor.wait_for_parse()  # the undo's own parse
    assert shown == [editor.version] and editor.problems == []
    assert editor.problems_button.text() == "No problems"


def test_underlines_move_with_their_lines_and_a_parse_redraws_only_what_changed(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    text = "::Woman:: One.\n::Woman:: Two.\n@if v.player.\n@endif\n::Woman:: ${v.player.}\n"
    editor = _script_editor(window, text)
    editor.wait_for_parse()
    assert set(editor.text.problems) == {3, 5} and _underlined(editor, 3) and _underlined(editor, 5)
    cursor = editor.text.textCursor()
    cursor.setPosition(len("::Woman:: On"))
    editor.text.setTextCursor(cursor)
    qtbot.keyClick(editor.text, Qt.Key.Key_Return)  # line 1 splits: the problems move down one line
    assert set(editor.text.problems) == {4, 6}
    assert [_underlined(editor, line) for line in range(1, 8)] == [False, False, False, True, False, True, False]
    changed: list[set[int]] = []
    set_problems = editor.text.set_problems
    editor.text.set_problems = lambda problems: changed.append(set_problems(problems)) or changed[-1]
    editor.wait_for_parse()
    assert changed == [set()]  # the same problems on the same lines: no line highlighted again
    assert {p.line for p in editor.problems} == {4, 6}
    qtbot.keyClick(editor.text, Qt.Key.Key_Backspace)  # joined again
    assert set(editor.text.problems) == {3, 5} and _underlined(editor, 3) and not _underlined(editor, 4)


def test_many_new_underlines_show_in_view_first_then_in_slices(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    from storyloom.gui.editors.script_highlighter import SLICE_LINES

    editor = _script_editor(window, "::Woman:: Hello.\n")
    window.resize(1200, 800)
    window.show()
    qtbot.waitExposed(editor.text)
    editor.text.setPlainText("".join(f"::Woman:: Broken ${{}} {n}.\n" for n in range(1, 401)))  # 400 errors
    with qtbot.waitSignal(editor.problems_shown, timeout=30_000):
        pass
    in_view = editor.text.visible_lines()
    assert len(editor.problems) == 400
    assert _underlined(editor, 1) and _underlined(editor, in_view[-3])  # the lines in view at once
    assert not _underlined(editor, 400) and 400 in editor.highlighter.pending  # the others later
    editor.text.moveCursor(QTextCursor.MoveOperation.Start)
    qtbot.keyClick(editor.text, Qt.Key.Key_Return)  # every line moves down one, the waiting ones too
    assert 401 in editor.highlighter.pending and 1 not in editor.highlighter.pending
    assert len(editor.highlighter.pending) > SLICE_LINES
    qtbot.waitUntil(lambda: not editor.highlighter.pending, timeout=10_000)
    assert [line for line in range(2, 402) if not _underlined(editor, line)] == []
    assert not _underlined(editor, 1)


def test_a_line_moved_down_by_a_return_at_its_start_keeps_its_underline(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    editor = _script_editor(window, "::Woman:: Fine.\n::Woman:: ${}\n::Woman:: Fine.\n")
    assert set(editor.text.problems) == {2} and _underlined(editor, 2)
    cursor = editor.text.textCursor()
    cursor.setPosition(editor.text.document().findBlockByNumber(1).position())
    editor.text.setTextCursor(cursor)
    qtbot.keyClick(editor.text, Qt.Key.Key_Return)  # an empty line 2: the broken line is line 3
    assert set(editor.text.problems) == {3}
    assert [_underlined(editor, line) for line in (1, 2, 3, 4)] == [False, False, True, False]
    qtbot.keyClick(editor.text, Qt.Key.Key_Backspace)  # the empty line is gone again
    assert set(editor.text.problems) == {2} and _underlined(editor, 2) and not _underlined(editor, 3)


def test_closing_the_tab_while_its_script_is_parsed(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    import gc

    editor = _script_editor(window, "::Woman:: Hello.\n")
    editor.text.setPlainText(_long_script(20_000))
    editor.parse_soon()
    worker, parser = editor.worker, editor._parser
    assert worker is not None and worker.is_alive()
    assert window.tabs.close_tab(window.tabs.currentIndex(), ask=False)
    del editor
    qtbot.wait(50)  # the tab's editor is deleted
    gc.collect()
    worker.join(30)
    qtbot.wait(50)  # its result (none: cancelled) arrives for nobody, without an error
    assert not worker.is_alive()
    assert len(parser._rows) < 20_000  # it stopped at the slice after the tab closed
    assert window.tabs.count() == 0 or window.tabs.current_editor() is not None


def test_the_count_under_the_editor_says_no_problems_for_an_empty_script(window) -> None:  # type: ignore[no-untyped-def]
    editor = _script_editor(window, "")
    assert editor.problems_button.text() == "No problems"


def test_a_long_script_says_it_is_being_checked_until_its_parse_is_shown(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    editor = _script_editor(window, _long_script(3000) + "@if\n")
    assert editor.problems_button.text() == "Checking…" and not editor.shown
    editor.wait_for_parse()
    assert editor.problems_button.text() == "2 errors · line 3001: @if has no matching @endif"
