"""The dialogue graph's canvas as a writer meets it (issue 24): nodes added from the palette
land apart and in view, the palette keeps its labels, Fit and Auto layout keep text readable
and clear of the floating palette and minimap, the dot grid draws the same however the view
got there, and a script node shows its script's first lines as the script changes."""

from __future__ import annotations

import itertools

import pytest
from PySide6.QtCore import QPoint, QPointF, QRect, QRectF, Qt
from PySide6.QtGui import QColor, QImage

from storyloom.gui.editors.dialogue_graph import DialogueGraphEditor
from storyloom.gui.main_window import open_project_window
from storyloom.project.dialogue_graph import ports
from storyloom.project.dialogue_layout import READABLE_ZOOM
from storyloom.project.sample import SAMPLE_NAME, create_sample_project

pytestmark = pytest.mark.slow  # a shown window driven by mouse and keys


@pytest.fixture
def window(qtbot, workspace):  # type: ignore[no-untyped-def]
    create_sample_project(workspace.manager).close()
    win = open_project_window(workspace, SAMPLE_NAME)
    qtbot.addWidget(win)
    win.resize(1440, 900)
    win.show()
    yield win
    if not win.session.closed:
        win.close()


def _named(window, doc_type: str, name: str) -> str:  # type: ignore[no-untyped-def]
    return next(s.id for s in window.session.index.summaries() if s.type == doc_type and s.name == name)


def _dialogue(window, qtbot, tree=None) -> DialogueGraphEditor:  # type: ignore[no-untyped-def]
    folder = _named(window, "Folder", "Interview lines")
    result = window.session.editor.create("Dialogue", "Harbour talk", dialogueScriptFolderID=folder,
                                          content={"tree": tree or {"nodes": [], "edges": []}})
    editor = window.tabs.open(result.id)
    assert isinstance(editor, DialogueGraphEditor)
    qtbot.waitUntil(lambda: editor.view.viewport().width() > 200)
    qtbot.wait(20)  # the opening fit
    return editor


def _covers(editor: DialogueGraphEditor) -> list[QRect]:
    """Where the palette and the minimap float over the graph, in viewport pixels."""
    viewport = editor.view.viewport()
    return [QRect(w.mapTo(editor.view, w.rect().topLeft()) - viewport.pos(), w.size())
            for w in (editor.palette_panel, editor.view.minimap) if w.isVisible()]


def _on_screen(editor: DialogueGraphEditor, node_id: str) -> QRect:
    item = editor.scene.node_items[node_id]
    return editor.view.mapFromScene(item.mapRectToScene(QRectF(0, 0, item.geometry.width,
                                                               item.geometry.height))).boundingRect()


def _click_palette(qtbot, editor: DialogueGraphEditor, title: str) -> str:  # type: ignore[no-untyped-def]
    before = set(editor.scene.node_items)
    palette = editor.node_palette
    item = palette.findItems(title, Qt.MatchFlag.MatchExactly)[0]
    qtbot.mouseClick(palette.viewport(), Qt.MouseButton.LeftButton, pos=palette.visualItemRect(item).center())
    (added,) = set(editor.scene.node_items) - before
    return added


def _ink(image: QImage, rect: QRect) -> int:
    """How many pixels of ``rect`` are text: drawn (the list's background is transparent) and
    dark (the theme's text on a light surface)."""
    return sum(1 for y in range(rect.top(), rect.bottom()) for x in range(rect.left(), rect.right())
               if (color := QColor.fromRgba(image.pixel(x, y))).alpha() > 100 and color.lightness() < 140)


def test_palette_clicks_place_new_nodes_apart_in_view_and_keep_the_labels(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    editor = _dialogue(window, qtbot)
    palette = editor.node_palette
    titles = ("Start", "Script", "Choice", "Condition", "End")
    ink = {}
    for title in titles:
        rect = palette.visualItemRect(palette.findItems(title, Qt.MatchFlag.MatchExactly)[0])
        ink[title] = _ink(palette.viewport().grab().toImage(), rect.adjusted(24, 0, 0, 0))
        assert 20 < ink[title] < rect.width() * rect.height() / 2  # the label is drawn
    added: list[str] = []
    viewport = editor.view.viewport().rect()
    for title in titles:
        node_id = _click_palette(qtbot, editor, title)
        box = _on_screen(editor, node_id)  # just added: where the writer looks
        assert viewport.contains(box), (title, box, viewport)
        for cover in _covers(editor):
            assert not box.intersects(cover), (title, box, cover)  # not under the palette or the minimap
        added.append(node_id)
    scene_boxes = [editor.scene.node_items[n].sceneBoundingRect() for n in added]
    for n, box in enumerate(scene_boxes):
        for other in scene_boxes[:n]:
            assert not box.intersects(other), (n, box, other)  # never on another node
    # Clicked entries keep their labels (no edit box, no blank selection) and are not editable.
    editor.view.setFocus()  # the pointer and the focus gone elsewhere, as a writer leaves it
    image = palette.viewport().grab().toImage()
    for title in titles:
        item = palette.findItems(title, Qt.MatchFlag.MatchExactly)[0]
        assert item.text() == title and not item.flags() & Qt.ItemFlag.ItemIsEditable
        assert _ink(image, palette.visualItemRect(item).adjusted(24, 0, 0, 0)) >= ink[title] * 0.8, title
    qtbot.mouseDClick(palette.viewport(), Qt.MouseButton.LeftButton,
                      pos=palette.visualItemRect(palette.item(1)).center())
    qtbot.keyClick(palette, Qt.Key.Key_F2)
    assert palette.state() != palette.State.EditingState


def test_new_node_goes_beside_the_selected_one(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    editor = _dialogue(window, qtbot)
    start = _click_palette(qtbot, editor, "Start")
    script = _click_palette(qtbot, editor, "Script")
    a, b = editor.scene.graph.node(start)["position"], editor.scene.graph.node(script)["position"]
    assert b["y"] == a["y"] and b["x"] > a["x"] + editor.scene.node_items[start].geometry.width


def _five_node_tree(editor: DialogueGraphEditor) -> None:
    ids = [editor.add_node(t, 40 * n, 30 * n) for n, t in enumerate(("start", "script", "choice", "script", "end"))]
    for source, target in itertools.pairwise(ids):
        editor.link(source, ports(editor.scene.graph.node(source), "source")[0]["id"],
                    target, ports(editor.scene.graph.node(target), "target")[0]["id"])


def test_auto_layout_keeps_a_small_graph_readable_and_clear_of_the_overlays(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window.resize(1380, 860)  # the writer's window: sidebars and the inspector leave the graph ~650 px
    editor = _dialogue(window, qtbot)
    _five_node_tree(editor)
    assert editor.auto_layout()
    assert READABLE_ZOOM - 1e-6 <= editor.view.zoom() <= 1.0
    assert editor.zoom_label.text() == f"{round(editor.view.zoom() * 100)}%"
    covers = _covers(editor)
    viewport = editor.view.viewport().rect()
    shown = [_on_screen(editor, n).intersected(viewport) for n in editor.scene.node_items]
    assert any(not box.isEmpty() for box in shown)  # the start of the graph is in view
    for box in shown:
        for cover in covers:
            assert box.isEmpty() or not box.intersects(cover), (box, cover)
    # Fit on a graph that fits readably: all of it in view, none of it under the overlays, at
    # most 100 %.
    editor.delete_selection()
    editor.scene.select_nodes(list(editor.scene.node_items)[3:])
    editor.delete_selection()
    editor.fit()
    assert READABLE_ZOOM - 1e-6 <= editor.view.zoom() <= 1.0
    for node_id in editor.scene.node_items:
        box = _on_screen(editor, node_id)
        assert viewport.contains(box)
        assert not any(box.intersects(cover) for cover in covers), (box, covers)


@pytest.mark.parametrize("zoom", [1.0, 0.61, 0.34])
def test_background_dots_are_the_same_scrolled_or_painted_fresh(window, qtbot, zoom) -> None:  # type: ignore[no-untyped-def]
    editor = _dialogue(window, qtbot)
    view = editor.view
    editor.palette_panel.hide()
    view.minimap.hide()
    view.set_zoom(zoom)
    view.centerOn(0, 0)
    for _ in range(7):  # a pan, frame by frame: the cached background scrolls, the rest is drawn
        view.pan_by(13, 7)
        view.viewport().repaint()
    scrolled = view.viewport().grab().toImage()
    view.resetCachedContent()
    view.viewport().repaint()
    fresh = view.viewport().grab().toImage()
    assert scrolled == fresh
    # The dots are a regular grid: every row of dots has them at the same spacing.
    dots = [(x, y) for y in range(fresh.height()) for x in range(fresh.width())
            if QColor(fresh.pixel(x, y)) != QColor(fresh.pixel(0, 0)) and QColor(fresh.pixel(x, y)).lightness() < 250]
    xs = sorted({x for x, _ in dots})
    gaps = {b - a for a, b in itertools.pairwise(xs) if b - a > 2}
    assert dots and max(gaps) - min(gaps) <= 1, sorted(gaps)
    assert min(gaps) >= 10  # never a blur of dots, zoomed out


def test_a_script_node_shows_its_first_lines_as_the_script_changes(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    editor = _dialogue(window, qtbot)
    script_id = window.session.editor.create("Script", "Harbour lines", content={
        "script": "::Wren Hale:: The tide is turning.\n::Tobias Marsh:: Then we wait.\n::Wren Hale:: Not for long.\n"
                  "::Tobias Marsh:: A fourth line the node does not show.\n"}).id
    node = editor.add_node("script", 100, 100)
    editor.set_node_data(node, scriptId=script_id)
    item = editor.scene.node_items[node]
    assert item.body_text() == ["Wren Hale: The tide is turning.", "Tobias Marsh: Then we wait.",
                                "Wren Hale: Not for long."]
    # Saved elsewhere (the script's tab, the API): the node follows.
    doc = window.session.db.get(script_id)
    doc["content"] = {"script": "::Maud:: Lanterns out!\n"}
    window.session.editor.update(doc)
    qtbot.waitUntil(lambda: item.body_text() == ["Maud: Lanterns out!"], timeout=3000)
    assert item.geometry.body_lines == 1
    # Text not saved yet (what the side panel's script editor shows as it is typed).
    editor.refresh_script_preview(script_id, "::Maud:: Lanterns out!\n::Wren Hale:: Which ones?\n")
    assert item.body_text() == ["Maud: Lanterns out!", "Wren Hale: Which ones?"]
    assert item.geometry.body_lines == 2
    edge_less_height = item.geometry.height
    assert item.boundingRect().height() >= edge_less_height


def test_pans_and_zooms_draw_no_node_again(window, qtbot, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A frame of a pan or a zoom step only scales the nodes' cached pictures: a node is drawn
    once per band (details, block), never again for a new zoom (a device cache drew every
    visible node at every zoom step: 84 ms a frame on a scattered 500-node graph)."""
    import random

    from storyloom.gui.editors.dialogue_graph.items import LOD_SIMPLE, NodeItem

    editor = _dialogue(window, qtbot)
    rng = random.Random(4)
    kinds = ("script", "choice", "condition", "note", "end")
    ids = [editor.add_node(kinds[n % len(kinds)], rng.randrange(0, 2400), rng.randrange(0, 1600)) for n in range(60)]
    for source, target in zip(ids[::2], ids[1::2], strict=True):  # links across the whole graph
        outs, ins = ports(editor.scene.graph.node(source), "source"), ports(editor.scene.graph.node(target), "target")
        if outs and ins:
            editor.link(source, outs[0]["id"], target, ins[0]["id"])
    editor.scene.clearSelection()
    view, viewport = editor.view, editor.view.viewport()
    drawn: list[str] = []
    detail, block = NodeItem.paint_detail, NodeItem.paint_block
    monkeypatch.setattr(NodeItem, "paint_detail", lambda self, *a: (drawn.append("detail"), detail(self, *a))[1])
    monkeypatch.setattr(NodeItem, "paint_block", lambda self, *a: (drawn.append("block"), block(self, *a))[1])
    levels = (1.0, 0.7, 0.5, 0.4, 0.25, 0.15, 0.3, 0.6, 1.0, 1.5, 2.5, 1.3, 1.0)

    def pan_there_and_back() -> None:
        for step in (1, -1):
            for _ in range(5):
                view.pan_by(37 * step, 23 * step)
                viewport.repaint()

    view.centerOn(1200, 800)
    for level in levels:  # every node seen once in each band
        view.set_zoom(level)
        viewport.repaint()
    pan_there_and_back()
    assert "detail" in drawn and "block" in drawn
    drawn.clear()
    for level in (*reversed(levels), *levels):
        view.set_zoom(level)
        viewport.repaint()
        assert editor.scene.node_items[ids[0]].blocks == (view.zoom() < LOD_SIMPLE)
    pan_there_and_back()
    assert drawn == []
    # Links are one-pixel hairlines, which the raster engine clips to what is exposed.
    for edge in editor.scene.edge_items.values():
        assert edge.pen().isCosmetic() and edge.pen().widthF() <= 1.0


def test_a_zoom_step_repaints_the_graph_and_the_level_not_the_toolbar_or_the_tab(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    """The zoom level's label has a fixed size: its new text asks no layout again (a label
    whose size may change made the tab widget lay out and repaint the whole document, the
    toolbar's icons with it, at every zoom step)."""
    from PySide6.QtCore import QEvent, QObject
    from PySide6.QtWidgets import QWidget

    editor = _dialogue(window, qtbot)
    _five_node_tree(editor)
    view = editor.view
    painted: list[str] = []

    class Paints(QObject):
        def eventFilter(self, watched: QObject, event: QEvent) -> bool:
            if event.type() == QEvent.Type.Paint and isinstance(watched, QWidget):
                label = editor.zoom_label
                where = QRect(watched.mapToGlobal(event.rect().topLeft()), event.rect().size())
                behind_label = QRect(label.mapToGlobal(label.rect().topLeft()), label.size()).contains(where)
                if watched is label or not behind_label:
                    painted.append(watched.objectName() or type(watched).__name__)
            return False

    spy = Paints()
    watched = [editor.zoom_label, window.tabs, editor.toolbar, *editor.toolbar.findChildren(QObject)]
    for widget in watched:
        widget.installEventFilter(spy)
    assert editor.save()  # saved now, not by the autosave in the middle of a step (the tab's title changes)
    qtbot.wait(200)
    widths = set()
    for level in (0.08, 0.1, 0.45, 0.99, 1.0, 1.5, 3.0, 0.5):  # the narrowest and widest texts too
        clean = False
        for attempt in range(3):  # something else (a check off the GUI thread) may repaint meanwhile: not thrice
            painted.clear()
            view.set_zoom(level * 1.1 ** attempt if level < 3.0 else level / 1.1 ** attempt)  # a new text each time
            view.viewport().repaint()
            qtbot.wait(5)
            assert editor.zoom_label.text() == f"{round(view.zoom() * 100)}%"
            widths.add(editor.zoom_label.width())
            fits = editor.zoom_label.fontMetrics().horizontalAdvance(editor.zoom_label.text())
            assert fits <= editor.zoom_label.contentsRect().width()
            if set(painted) <= {"zoomLevel"}:  # the others only behind the label
                clean = True
                break
        assert clean, (level, painted)
    assert len(widths) == 1
    for widget in watched:
        widget.removeEventFilter(spy)


def _grab(editor: DialogueGraphEditor) -> QImage:
    editor.view.viewport().repaint()
    return editor.view.viewport().grab().toImage()


def _drawn_near(image: QImage, point: QPoint, wanted, radius: int = 3) -> bool:  # type: ignore[no-untyped-def]
    """Whether a pixel within ``radius`` of ``point`` is one ``wanted(color)`` accepts."""
    return any(wanted(QColor(image.pixel(x, y)))
               for x in range(point.x() - radius, point.x() + radius + 1)
               for y in range(point.y() - radius, point.y() + radius + 1)
               if image.rect().contains(x, y))


def _link_ink(color: QColor) -> bool:
    return color.lightness() < 200  # the muted link on the light paper (dots are lighter)


def test_links_and_nodes_are_drawn_where_they_are_while_dragged_and_chosen(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    """The graph is drawn in the view's cached background: a chosen link shows in the accent,
    and while a node is dragged (the button still down) it and its link are drawn where they
    are now, nothing left where they were."""
    from storyloom.gui import theme

    editor = _dialogue(window, qtbot)
    editor.palette_panel.hide()
    start = editor.add_node("start", 0, 0)
    end = editor.add_node("end", 560, 240)
    editor.link(start, ports(editor.scene.graph.node(start), "source")[0]["id"],
                end, ports(editor.scene.graph.node(end), "target")[0]["id"])
    editor.scene.clearSelection()
    view = editor.view
    view.set_zoom(1.0)
    view.centerOn(420, 260)
    (link,) = editor.scene.edge_items.values()
    item = editor.scene.node_items[end]
    red = QColor("#c94444")

    def header_at(image: QImage, scene_point: QPointF) -> bool:
        return _drawn_near(image, view.mapFromScene(scene_point), lambda c: abs(c.red() - red.red()) < 30
                           and abs(c.green() - red.green()) < 30 and abs(c.blue() - red.blue()) < 30, 1)

    image = _grab(editor)
    middle = link.path().pointAtPercent(0.5)
    assert _drawn_near(image, view.mapFromScene(middle), _link_ink)
    header = item.mapToScene(QPointF(40, 12))
    far_end = QPointF(item.geometry.width - 16, 12)  # of the header: away from the link's redrawn area
    assert header_at(image, header) and header_at(image, item.mapToScene(far_end))
    # A click picks the link: drawn in the accent, three pixels wide.
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=view.mapFromScene(middle))
    assert editor.scene.selected_edge_ids() == [link.edge_id]
    accent = QColor(theme.colors().accent)
    image = _grab(editor)
    assert _drawn_near(image, view.mapFromScene(middle), lambda c: abs(c.hue() - accent.hue()) < 12
                       and c.saturation() > 80)
    # Drag the End node by its header, the button held: the node and its link follow.
    viewport = view.viewport()
    a = view.mapFromScene(header)
    b = a + QPoint(-200, 140)
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, pos=a)
    for step in range(1, 6):
        qtbot.mouseMove(viewport, a + (b - a) * step / 5)
    moved = _grab(editor)
    assert item.pos() != QPointF(560, 240)
    assert header_at(moved, item.mapToScene(QPointF(40, 12))) and header_at(moved, item.mapToScene(far_end))
    assert not header_at(moved, header) and not header_at(moved, header + far_end - QPointF(40, 12))  # nothing left
    new_middle = link.path().pointAtPercent(0.5)
    assert _drawn_near(moved, view.mapFromScene(new_middle), _link_ink)
    assert not _drawn_near(moved, view.mapFromScene(middle), _link_ink, 1) or \
        link.path().intersects(QRectF(middle - QPointF(4, 4), middle + QPointF(4, 4)))
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, pos=b)
    # Undone, all of it is back where it was, as a fresh paint draws it.
    editor.undo_stack.undo()
    restored = _grab(editor)
    view.resetCachedContent()
    assert _grab(editor) == restored
    assert header_at(restored, header)


def test_a_graph_panned_frame_by_frame_looks_as_painted_fresh(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    """The nodes and links drawn in the cached background: the strips a pan uncovers join
    the scrolled picture without a seam, at each zoom band (zoomed out, without smoothing,
    pixel for pixel)."""
    import random

    from storyloom.gui.editors.dialogue_graph.items import LOD_SIMPLE

    editor = _dialogue(window, qtbot)
    editor.palette_panel.hide()
    editor.view.minimap.hide()
    rng = random.Random(7)
    kinds = ("script", "choice", "condition", "note", "end")
    ids = [editor.add_node(kinds[n % len(kinds)], rng.randrange(0, 1600), rng.randrange(0, 1200)) for n in range(30)]
    for source, target in zip(ids[::2], ids[1::2], strict=True):
        outs, ins = ports(editor.scene.graph.node(source), "source"), ports(editor.scene.graph.node(target), "target")
        if outs and ins:
            editor.link(source, outs[0]["id"], target, ins[0]["id"])
    editor.scene.clearSelection()
    view = editor.view
    for zoom in (1.0, 0.6, 0.3):
        view.set_zoom(zoom)
        view.settle()  # drawn as at rest (not a wheel's gesture)
        view.centerOn(800, 600)
        view.viewport().repaint()
        for _ in range(6):
            view.pan_by(17, 11)
            view.viewport().repaint()
        scrolled = view.viewport().grab().toImage()
        view.resetCachedContent()
        view.viewport().repaint()
        fresh = view.viewport().grab().toImage()
        # The same pixels, but for smoothed links' edges, whose coverage may round one level
        # apart where a strip's clip cut the curve (a seam would leave ink missing or doubled).
        apart = [max(abs(a.red() - b.red()), abs(a.green() - b.green()), abs(a.blue() - b.blue()))
                 for y in range(fresh.height()) for x in range(fresh.width())
                 if fresh.pixel(x, y) != scrolled.pixel(x, y)
                 for a, b in [(QColor(fresh.pixel(x, y)), QColor(scrolled.pixel(x, y)))]]
        assert max(apart, default=0) <= 2, (zoom, len(apart), max(apart))
        if zoom < LOD_SIMPLE:
            assert not apart


def test_a_wheel_gesture_is_drawn_quickly_then_as_at_rest(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    """Wheel steps in quick succession (the wheel turning) draw links and pictures without
    smoothing; when the steps stop, the view draws the graph as a fresh paint at rest does.
    Any other zoom (a key, Fit, zooming back) is drawn at rest at once."""
    from PySide6.QtCore import QPointF as Point
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication

    editor = _dialogue(window, qtbot)
    editor.palette_panel.hide()
    _five_node_tree(editor)
    editor.move_nodes({node_id: (260 * n, 90 * (n % 2)) for n, node_id in enumerate(editor.scene.node_items)})
    view = editor.view
    view.set_zoom(0.6)
    view.centerOn(500, 100)
    at_rest = _grab(editor)

    def wheel(notches: int) -> None:
        where = Point(view.viewport().rect().center())
        QApplication.sendEvent(view.viewport(), QWheelEvent(
            where, Point(view.viewport().mapToGlobal(where.toPoint())), QPoint(0, 0), QPoint(0, 120 * notches),
            Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False))

    wheel(1)
    assert not view.zooming  # one notch: at rest
    wheel(1)
    wheel(-1)
    assert view.zooming
    quick = _grab(editor)
    qtbot.waitUntil(lambda: not view.zooming, timeout=2000)
    settled = _grab(editor)
    view.resetCachedContent()
    assert _grab(editor) == settled
    assert quick != settled  # the links were drawn without smoothing
    wheel(-1)
    wheel(-1)
    assert view.zooming
    view.set_zoom(0.6)  # a key or Fit: drawn at rest
    assert not view.zooming
    view.centerOn(500, 100)
    assert _grab(editor) == at_rest
    # Zoomed out, the gesture draws the links in straight pieces, from port to port.
    for link in editor.scene.edge_items.values():
        curve = link.polyline().toSubpathPolygons()[0]
        start, end = link.path().elementAt(0), link.path().elementAt(3)  # the cubic's ends: the two ports
        assert (curve.first() - QPointF(start.x, start.y)).manhattanLength() < 0.01
        assert (curve.last() - QPointF(end.x, end.y)).manhattanLength() < 0.01
        assert 4 <= curve.size() <= 17
    view.set_zoom(0.3)
    view.centerOn(500, 100)
    zoomed_out = _grab(editor)
    wheel(1)
    wheel(-1)
    assert view.zooming and _grab(editor) != zoomed_out
    view.settle()
    assert _grab(editor) == zoomed_out
