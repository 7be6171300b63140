"""Map editing rules, without Qt: keys, one key per edge, bucket fill, markers, bounds and the
palette; every step gives a map validate_map accepts and leaves its input alone."""

from __future__ import annotations

import copy

import pytest

from storyloom.project import maps as mp
from storyloom.project.content import validate_map


def _map(**extra) -> dict:  # type: ignore[no-untyped-def]
    return {"width": 4, "height": 3, "cells": {"0,0": {"type": "rock"}}, "edges": {}, "markers": {},
            "properties": {}, **extra}


def test_keys_parse_and_twin() -> None:
    assert mp.cell_key(3, 4) == "3,4" and mp.edge_key(3, 4, "S") == "3,4:S"
    assert mp.parse_cell_key("3,4") == (3, 4) and mp.parse_cell_key("03,4") is None
    assert mp.parse_edge_key("3,4:W") == (3, 4, "W") and mp.parse_edge_key("3,4:X") is None
    assert mp.twin(1, 1, "S") == (1, 2, "N") and mp.twin(1, 1, "E") == (2, 1, "W")
    assert mp.nearest_side(2.9, 4.5) == (2, 4, "E") and mp.nearest_side(0.5, 0.1) == (0, 0, "N")
    assert mp.edge_ends(0, 0, "S") == ((0, 1), (1, 1))


@pytest.mark.parametrize(("start", "kind", "expected"), [
    ((0, 0), "grass", [(0, 0)]),  # a lone rock
    ((3, 2), "grass", None),  # every empty cell
    ((1, 1), "water", "walled"),
    ((5, 5), "grass", []),  # outside
    ((0, 0), "rock", []),  # already that type
])
def test_bucket_fill(start, kind, expected) -> None:  # type: ignore[no-untyped-def]
    cells = {"0,0": {"type": "rock"}}
    if expected == "walled":
        # a ring of walls around 1,1 keeps the fill inside it
        cells = {mp.cell_key(x, y): {"type": "wall"} for x in range(3) for y in range(3) if (x, y) != (1, 1)}
        assert mp.bucket_fill(cells, 5, 5, *start, kind) == [(1, 1)]
        return
    area = mp.bucket_fill(cells, 4, 3, *start, kind)
    if expected is None:
        assert len(area) == 11 and (0, 0) not in area and area[0] == (1, 0)
    else:
        assert area == expected


def test_bucket_fill_refuses_a_huge_area() -> None:
    with pytest.raises(mp.MapRefused, match="more than 100"):
        mp.bucket_fill({}, 1000, 1000, 0, 0, "grass", limit=100)


def test_fill_paints_with_the_palette_properties_and_leaves_the_input() -> None:
    content = mp.add_palette_type(_map(), "cells", "grass", "#00ff00")
    content["editor"]["palette"]["cells"][-1]["properties"] = {"walkable": True}
    before = copy.deepcopy(content)
    filled = mp.fill(content, 2, 2, "grass")
    assert content == before
    assert filled["cells"]["2,2"] == {"type": "grass", "walkable": True} and filled["cells"]["0,0"] == {"type": "rock"}
    assert len(filled["cells"]) == 12 and validate_map({"content": filled}) == []


def test_an_edge_has_one_key() -> None:
    content = mp.paint_edge(_map(), 1, 1, "S", "wall")
    assert content["edges"] == {"1,1:S": {"type": "wall"}}
    content = mp.paint_edge(content, 1, 2, "N", "door")  # the same edge, seen from below
    assert content["edges"] == {"1,1:S": {"type": "door"}}
    assert mp.edge_at(content, 1, 2, "N") == ("1,1:S", {"type": "door"})
    outside = mp.paint_edge(content, 0, -1, "S", "fence")  # the map's top side, from outside
    assert "0,0:N" in outside["edges"]
    with pytest.raises(mp.MapRefused, match="outside"):
        mp.paint_edge(content, 0, -2, "S", "fence")
    assert mp.erase_edge(content, 1, 2, "N")["edges"] == {}
    assert validate_map({"content": outside}) == []


def test_markers() -> None:
    content = mp.set_marker(_map(), "spawn", 1, 2, facing="E")
    assert content["markers"] == {"spawn": {"facing": "E", "x": 1, "y": 2}}
    assert mp.new_marker_name(mp.set_marker(content, "marker_1", 0, 0)) == "marker_2"
    moved = mp.set_marker(content, "spawn", 3, 0)
    assert moved["markers"]["spawn"] == {"facing": "E", "x": 3, "y": 0}
    with pytest.raises(mp.MapRefused, match="outside"):
        mp.set_marker(content, "far", 9, 9)
    renamed = mp.rename_marker(mp.set_marker(content, "exit", 0, 1), "spawn", "start")
    assert set(renamed["markers"]) == {"start", "exit"}
    with pytest.raises(mp.MapRefused, match="exists"):
        mp.rename_marker(renamed, "start", "exit")
    assert mp.erase_at(content, 1, 2)["markers"] == {} and mp.erase_at(content, 0, 0)["cells"] == {}
    listed = _map(markers=[{"name": "a", "x": 1, "y": 1}])
    assert mp.markers_of(listed) == {"a": {"x": 1, "y": 1}}
    props = mp.set_marker_properties(content, "spawn", {"facing": "W", "x": 99})
    assert props["markers"]["spawn"] == {"facing": "W", "x": 1, "y": 2}


def test_resize_drops_what_falls_outside_and_moves_border_edges_across() -> None:
    content = mp.set_marker(mp.paint_cells(_map(), [(3, 2), (1, 1)], "grass"), "m", 3, 2)
    content = mp.paint_edge(mp.paint_edge(content, 3, 1, "W", "wall"), 0, 0, "E", "door")
    smaller, dropped = mp.resize(content, 3, 2)
    assert set(smaller["cells"]) == {"0,0", "1,1"} and smaller["markers"] == {}
    assert smaller["edges"] == {"2,1:E": {"type": "wall"}, "0,0:E": {"type": "door"}}
    assert dropped == 2 and validate_map({"content": smaller}) == []
    with pytest.raises(mp.MapRefused):
        mp.resize(content, 0, 5)


def test_palette_lists_its_types_then_the_ones_in_use() -> None:
    content = mp.add_palette_type(_map(edges={"0,0:S": {"type": "door"}}), "cells", "floor")
    assert [e["type"] for e in mp.palette(content, "cells")] == ["rock", "floor"]
    assert [e["type"] for e in mp.palette(content, "edges")] == ["door"]
    assert mp.palette_entry(content, "cells", "rock")["color"] == mp.KNOWN_COLORS["rock"]
    assert mp.type_color("zzz") == mp.type_color("zzz") and mp.type_color("zzz").startswith("#")
    recoloured = mp.add_palette_type(content, "cells", "floor", "#123456")
    assert mp.palette_entry(recoloured, "cells", "floor")["color"] == "#123456"
    with pytest.raises(mp.MapRefused):
        mp.add_palette_type(content, "cells", "  ")


def test_set_cell_needs_a_type_inside_the_map() -> None:
    content = mp.set_cell(_map(), 1, 1, {"type": "lava", "damage": 3})
    assert content["cells"]["1,1"] == {"type": "lava", "damage": 3}
    with pytest.raises(mp.MapRefused):
        mp.set_cell(content, 1, 1, {"damage": 3})
    with pytest.raises(mp.MapRefused):
        mp.set_cell(content, 9, 1, {"type": "lava"})
