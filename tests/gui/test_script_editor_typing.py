"""What a keystroke costs in the script editor's gutter: typing in a line copies the gutter's
picture, a new line or a problem draws it again, and the picture shows the numbers and marks."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QTextCursor


def _script_editor(window, qtbot, text: str):  # type: ignore[no-untyped-def]
    from storyloom.gui.editors import ScriptEditor

    doc_id = window.session.editor.create("Script", "Typed in", content={"script": text}).id
    window.resize(1200, 800)
    window.show()
    window.open_document(doc_id)
    editor = window.tabs.current_editor()
    assert isinstance(editor, ScriptEditor)
    qtbot.waitExposed(editor.text)
    editor.wait_for_parse()
    return editor


def test_typing_in_a_line_does_not_draw_the_gutter_again(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    text = "".join(f"::Woman:: Line {n}.\n" for n in range(1, 200)) + "@if v.player.\n@endif\n"
    editor = _script_editor(window, qtbot, text)
    gutter = editor.text._gutter
    drawn: list[int] = []
    draw = editor.text._draw_gutter
    editor.text._draw_gutter = lambda *args: drawn.append(1) or draw(*args)
    editor.text.moveCursor(QTextCursor.MoveOperation.Start)
    editor.text.moveCursor(QTextCursor.MoveOperation.EndOfBlock)
    gutter.repaint()
    drawn.clear()
    for key in "and more":
        qtbot.keyClick(editor.text, key)
        gutter.repaint()
    assert drawn == []
    qtbot.keyClick(editor.text, Qt.Key.Key_Return)  # the current line and the numbers below change
    gutter.repaint()
    assert drawn == [1]


def test_the_gutter_shows_the_numbers_and_a_problem_mark(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    editor = _script_editor(window, qtbot, "::Woman:: One.\n@if v.player.\n@endif\n")
    gutter = editor.text._gutter
    picture = gutter.grab().toImage()
    top = editor.text.blockBoundingGeometry(editor.text.document().findBlockByNumber(1)).translated(
        editor.text.contentOffset()).top()
    mark = picture.pixelColor(3, round(top) + editor.text.fontMetrics().height() // 2)
    assert mark == QColor("#e5484d")  # the error's mark beside line 2
    first = picture.pixelColor(3, 2 + editor.text.fontMetrics().height() // 2)
    assert first != QColor("#e5484d")
    # some pixels of the numbers differ from the background
    background = picture.pixelColor(gutter.width() // 2, picture.height() - 2)
    numbers = {picture.pixelColor(x, y).rgb() for x in range(gutter.width() - 30, gutter.width() - 10)
               for y in range(0, editor.text.fontMetrics().height())}
    assert numbers - {background.rgb()}


def test_the_gutter_widens_when_the_numbers_get_a_digit(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    editor = _script_editor(window, qtbot, "".join(f"::Woman:: Line {n}.\n" for n in range(1, 999)))
    narrow = editor.text._gutter.width()
    assert editor.text.viewportMargins().left() == narrow
    editor.text.moveCursor(QTextCursor.MoveOperation.End)
    qtbot.keyClick(editor.text, Qt.Key.Key_Return)
    qtbot.keyClick(editor.text, Qt.Key.Key_Return)  # line 1,000
    wide = editor.text._gutter.width()
    assert wide > narrow and editor.text.viewportMargins().left() == wide


class _NoAutosave:
    """An editor's debounced autosave that never fires (the window saves on closing)."""

    def __call__(self) -> None:
        pass

    def cancel(self) -> None:
        pass


def test_typing_repaints_neither_the_tab_bar_nor_the_header(window, qtbot, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The cursor's position under the editor changes at every key; it must not lay out (and so
    repaint) the document tabs, the tab bar and the header again: a frame's work for nothing."""
    from PySide6.QtCore import QCoreApplication, QEvent, QObject

    text = "".join(f"::Woman:: Line {n}.\n" for n in range(1, 2000))
    editor = _script_editor(window, qtbot, text)
    watched = {window.tabs: "tabs", window.tabs.tabBar(): "tab bar", editor.name_edit: "title",
               editor.play_button: "play"}

    class Seen(QObject):
        def __init__(self) -> None:
            super().__init__()
            self.events: list[tuple[str, str]] = []

        def eventFilter(self, obj: QObject, event: QEvent) -> bool:
            # the tab widget's own frame is painted under the text as it changes: cheap, not counted
            layout, paint = QEvent.Type.LayoutRequest, QEvent.Type.Paint
            kinds = (layout,) if obj is window.tabs else (paint, layout)
            if obj in watched and event.type() in kinds:
                self.events.append((watched[obj], event.type().name))
            return False

    editor.text.moveCursor(QTextCursor.MoveOperation.Start)
    editor.text.moveCursor(QTextCursor.MoveOperation.EndOfBlock)
    qtbot.keyClick(editor.text, "x")  # the tab's unsaved mark: once
    # What a pause in typing brings (a parse's problem count, the autosave's saved state) lays
    # them out too, once per pause: not what is measured here.
    editor._parse_later.setInterval(10**6)
    monkeypatch.setattr(editor, "_autosave", _NoAutosave())
    qtbot.wait(50)
    seen = Seen()
    for widget in watched:
        widget.installEventFilter(seen)
    keys = ["x"] * 12 + [Qt.Key.Key_Down] * 120 + ["y"] * 95  # the column and the line get digits
    laid_out = 0
    for key in keys:
        before = len(seen.events)
        qtbot.keyClick(editor.text, key)
        QCoreApplication.processEvents()
        laid_out += len(seen.events) != before
    assert editor.position_label.text().startswith("Ln 121, Col ")
    # The window's status bar (the backup's age, the problem count) lays the window out now and
    # then by itself; the cursor's position did at every key.
    assert laid_out <= 10, seen.events
