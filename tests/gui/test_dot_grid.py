"""The canvas and map editors' background: a dot grid drawn in scene units at whole pixels
(storyloom.gui.editors.dot_grid), so at every zoom the dots are evenly spaced single dots, never
the clumps and gaps of a tiled brush scaled with the view."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication

from storyloom.gui import theme
from storyloom.gui.editors.dot_grid import DOT_SPACING, MIN_DOT_GAP

ZOOMS = (0.3, 0.55, 0.8, 1.0, 1.37, 2.6)


def _canvas_view():  # type: ignore[no-untyped-def]
    from storyloom.gui.editors.canvas.scene import CanvasScene, CanvasView

    return CanvasView(CanvasScene(lambda _id: None, lambda _id: None, lambda key: key))


def _map_view():  # type: ignore[no-untyped-def]
    from storyloom.gui.editors.map_editor.view import MapView

    return MapView()


def _runs(flags: list[bool]) -> list[tuple[int, int]]:
    """(start, length) of each run of True."""
    runs, start = [], None
    for i, on in enumerate([*flags, False]):
        if on and start is None:
            start = i
        elif not on and start is not None:
            runs.append((start, i - start))
            start = None
    return runs


@pytest.mark.parametrize("make", [_canvas_view, _map_view], ids=["canvas", "map"])
def test_the_dots_are_evenly_spaced_at_every_zoom(qtbot, make) -> None:  # type: ignore[no-untyped-def]
    view = make()
    qtbot.addWidget(view)
    for item in view.scene().items():  # the background alone (an empty map draws its frame)
        item.hide()
    view.resize(420, 320)
    view.show()
    qtbot.waitExposed(view)
    dot = QColor(theme.colors().border).rgb()
    for zoom in ZOOMS:
        view.set_zoom(zoom)
        view.centerOn(137.3, 91.7)  # not on a dot: scene and pixel grids out of step
        QApplication.processEvents()
        image = view.viewport().grab().toImage()
        width, height = image.width(), image.height()
        rows = [[image.pixel(x, y) == dot for x in range(width)] for y in range(height)]
        dotted = [y for y in range(height) if any(rows[y])]
        assert dotted, f"no dots at zoom {zoom}"
        spacing = DOT_SPACING
        while spacing * zoom < MIN_DOT_GAP:
            spacing *= 2
        step = spacing * zoom
        # Every dotted row has the same dots (as many, as wide); the gaps between dots and
        # between dotted bands are the spacing at this zoom, to the pixel.
        shapes = Counter(tuple(length for _start, length in _runs(rows[y])) for y in dotted)
        inner = [shape for shape in shapes if shape]
        widths = {length for shape in inner for length in shape[1:-1]}  # whole dots (not cut by an edge)
        assert widths <= {2}, f"dots of {widths} pixels at zoom {zoom} (clumps): {shapes}"
        counts = {len(shape) for shape in inner}
        assert max(counts) - min(counts) == 0, f"rows with {sorted(counts)} dots at zoom {zoom}"
        starts = [start for start, _length in _runs(rows[dotted[0]])]
        gaps = {b - a for a, b in itertools.pairwise(starts[1:-1])}
        assert gaps and all(abs(gap - step) <= 1 for gap in gaps), f"gaps {gaps} for {step:.1f} at zoom {zoom}"
        bands = _runs([y in set(dotted) for y in range(height)])
        band_gaps = {b[0] - a[0] for a, b in itertools.pairwise(bands[1:-1])}
        assert all(abs(gap - step) <= 1 for gap in band_gaps), f"row gaps {band_gaps} at zoom {zoom}"
