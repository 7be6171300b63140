"""Where the Dialogue editor puts a node added from the palette, and how it fits a graph into
the part of the view its floating panels leave free (Qt-free rules in ``dialogue_layout``)."""

from __future__ import annotations

import pytest

from storyloom.project.dialogue_layout import READABLE_ZOOM, _overlap, fit_view, free_areas, free_spot

AREA = (0.0, 0.0, 1000.0, 700.0)


def test_nodes_added_one_after_another_never_stack() -> None:
    placed: list[tuple[float, float, float, float]] = []
    for _ in range(12):
        x, y = free_spot((240, 90), placed, AREA)
        box = (float(x), float(y), 240.0, 90.0)
        assert not any(_overlap(box, other) for other in placed)
        assert x >= 0 and y >= 0 and x + 240 <= 1000 and y + 90 <= 700  # in view
        placed.append(box)
    assert len({b[:2] for b in placed}) == 12


def test_a_node_goes_beside_the_selected_one_then_below_it() -> None:
    selected = (100.0, 100.0, 240.0, 90.0)
    assert free_spot((240, 90), [selected], AREA, near=selected) == (404, 100)
    right = (404.0, 100.0, 240.0, 90.0)
    assert free_spot((240, 90), [selected, right], AREA, near=selected) == (100, 222)
    # Beside it, past the view's edge: still beside it (the view follows).
    edge = (800.0, 100.0, 180.0, 90.0)
    assert free_spot((240, 90), [edge], AREA, near=edge) == (1044, 100)
    # A selected node out of view is not where the writer looks: the middle of the view.
    away = (5000.0, 100.0, 180.0, 90.0)
    x, y = free_spot((240, 90), [away], AREA, near=away)
    assert (x, y) == (380, 305)


def test_a_full_view_puts_the_node_under_it() -> None:
    wall = [(float(x), float(y), 200.0, 100.0) for x in range(0, 1000, 210) for y in range(0, 700, 110)]
    x, y = free_spot((240, 90), wall, AREA)
    assert not any(_overlap((x, y, 240, 90), box) for box in wall) and y >= 700


def test_free_areas_avoid_the_palette_and_the_minimap() -> None:
    palette, minimap = (12.0, 12.0, 140.0, 260.0), (768.0, 538.0, 220.0, 150.0)
    areas = free_areas((1000, 700), [palette, minimap])
    assert areas and all(not _overlap(a, palette) and not _overlap(a, minimap) for a in areas)
    assert (152.0, 0.0, 616.0, 700.0) in areas  # between them, full height
    assert (152.0, 0.0, 848.0, 538.0) in areas  # right of the palette, above the minimap


def test_fit_reads_and_stays_clear_of_the_overlays() -> None:
    palette, minimap = (12.0, 12.0, 140.0, 260.0), (768.0, 538.0, 220.0, 150.0)
    # Five nodes in a row, 1400 wide, in a narrow view: fitted whole it would be 34 %; it
    # stays readable and starts at its left end, out from under the panels (then scrolls).
    small_minimap = (425.0, 546.0, 220.0, 150.0)
    zoom, center = fit_view((0, 0, 1400, 90), (657, 708), [palette, small_minimap])
    assert zoom == pytest.approx(READABLE_ZOOM)
    left, top = 657 / 2 + (0 - center[0]) * zoom, 708 / 2 + (0 - center[1]) * zoom
    assert 0 < left < 80
    shown = (left, top, 657 - left, 90 * zoom)  # the part of the row on screen
    assert not _overlap(shown, palette) and not _overlap(shown, small_minimap)
    # A small graph is never enlarged past 100 %, and sits in the free part.
    zoom, center = fit_view((0, 0, 300, 100), (1000, 700), [palette, minimap])
    assert zoom == 1.0
    shown = (1000 / 2 + (0 - center[0]) * zoom, 700 / 2 + (0 - center[1]) * zoom)
    box = (shown[0], shown[1], 300.0, 100.0)
    assert not _overlap(box, palette) and not _overlap(box, minimap)
    # A graph that fits at a readable zoom is shown whole, out from under both panels.
    zoom, center = fit_view((0, 0, 900, 500), (1000, 700), [palette, minimap])
    assert READABLE_ZOOM <= zoom < 1.0
    corner = (1000 / 2 + (0 - center[0]) * zoom, 700 / 2 + (0 - center[1]) * zoom)
    box = (corner[0], corner[1], 900 * zoom, 500 * zoom)
    assert box[0] >= 0 and box[1] >= 0 and box[0] + box[2] <= 1000 and box[1] + box[3] <= 700
    assert not _overlap(box, palette) and not _overlap(box, minimap)


def test_a_tall_graph_shows_around_its_start_without_empty_bands() -> None:
    # 2000 tall, the start 100 below its top: the top of the graph at the top of the view.
    zoom, center = fit_view((0, 0, 3000, 2000), (1000, 700), [], anchor=(50, 100))
    assert zoom == pytest.approx(READABLE_ZOOM)
    assert 350 + (0 - 32 - center[1]) * zoom == pytest.approx(0, abs=1)
    # The start in the middle of a very tall graph: it is at the middle of the view.
    zoom, center = fit_view((0, 0, 3000, 6000), (1000, 700), [], anchor=(50, 3000))
    assert center[1] == pytest.approx(3000)
    # The start near the bottom: the bottom of the graph at the bottom of the view, no empty band.
    zoom, center = fit_view((0, 0, 3000, 2000), (1000, 700), [], anchor=(50, 1950))
    assert 350 + (2000 + 32 - center[1]) * zoom == pytest.approx(700, abs=1)


def test_a_graph_too_big_to_read_whole_goes_where_most_of_it_shows() -> None:
    palette, minimap = (12.0, 12.0, 134.0, 260.0), (424.0, 545.0, 220.0, 150.0)
    # 2500 x 700 in a 657 x 708 view: the strip under the palette and over the minimap would fit
    # it best (at an unreadable zoom); at a readable one, right of the palette shows most of it.
    zoom, center = fit_view((0, 0, 2500, 700), (657, 708), [palette, minimap])
    assert zoom == pytest.approx(READABLE_ZOOM)
    left, top = 657 / 2 + (0 - center[0]) * zoom, 708 / 2 + (0 - center[1]) * zoom
    assert 146 <= left <= 146 + 40 and top <= 60  # beside the palette, at the top
