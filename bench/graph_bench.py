"""Dialogue graph benchmark (offscreen): a 500-node dialogue opened, panned, zoomed, laid out,
once laid out and once scattered.

    .venv/bin/python bench/graph_bench.py [--nodes 500] [--frames 200] [--quick] [--dir DIR]
                                          [--layout both|laid-out|scattered]

A project with one Dialogue of ``--nodes`` nodes (every node type; chains of script nodes
linking 120 scripts, choices of two to four options with port scripts, conditions, switches,
jumps, events, notes, ends; branches joining again; placed by the layered layout) is created
under a temporary ``STORYLOOM_HOME``; its window opens (Qt offscreen) at 1440x900 and the
dialogue's tab:

* **Open**: from asking for the tab to the graph painted (printed; not a target).
* **Pan frames**: ``--frames`` frames panning as a drag does (24 px a frame, back and forth),
  at 100 % (node detail) and with the whole graph in view (every node drawn, zoomed out);
  each timed from the scroll to the whole viewport repainted (more than a pan paints: Qt
  scrolls the pixels and paints the strip uncovered). p50, p95, max, and the p95 of the GUI
  thread's own CPU time (what the frame costs on a machine busy with other work). Target: p95
  under 16 ms (one frame at 60 Hz), printed as a ratio to that budget.
* **Zoom frames**: ``--frames`` wheel steps (x1.15) in and out between 15 % and 150 %, each
  timed from the zoom to the viewport repainted. Target: p95 under 16 ms. The steps are one
  wheel gesture, which the view draws quickly (without smoothing); the frame the gesture's
  end draws as at rest is printed too (not a target).
* Both on the graph **laid out** (placed as the editor's Auto layout places it) and
  **scattered** (the nodes where the generator dropped them over 4000x3000, links crossing the
  whole graph: a worst case); ``--layout`` (or ``--scatter``) measures one of them.
* **Auto layout**: the layered layout alone (the domain function) and the editor's whole
  step (layout, the undoable move of every node, the scene updated, fitted, painted).
  Target: the editor's step under 1 s.

:func:`measure_graph` is what ``bench/gui_bench.py`` can call on a window it has open. Exit
status 1 when a target is missed. Does not import pytest.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before anything imports Qt

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench import paths

paths.setup()

from bench.report import Check, machine, storyloom_home, verdict  # noqa: E402

FRAME_TARGET_MS = 16.0
LAYOUT_TARGET_MS = 1000.0
WORDS = ("tide", "lantern", "storm", "harbour", "light", "stone", "salt", "bell", "gull", "rope", "keeper")
ACTORS = ("Keeper", "Wren", "Maud", "Tobias")


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * (len(ordered) - 1))))]


def _settle(app: Any) -> None:
    app.sendPostedEvents()
    app.processEvents()


def big_tree(nodes: int, script_ids: list[str], rng: random.Random, scatter: bool = False) -> dict[str, Any]:
    """A dialogue of ``nodes`` nodes as writers grow them: a Start, then branches of script
    nodes broken by choices, conditions and switches, ending, jumping back or joining."""
    from storyloom.project.dialogue_graph import DialogueGraph, ports
    from storyloom.project.dialogue_layout import layered_layout

    graph = DialogueGraph()

    def add(node_type: str, **data: Any) -> str:
        patch = graph.add_node(node_type, rng.randrange(0, 4000), rng.randrange(0, 3000))
        node_id = graph.added_node_id(patch) or ""
        graph.apply(patch)
        if data:
            graph.apply(graph.set_data(node_id, **data))
        return node_id

    def link(source: str, index: int, target: str) -> None:
        out = ports(graph.node(source) or {}, "source")[index]["id"]
        into = ports(graph.node(target) or {}, "target")[0]["id"]
        graph.apply(graph.connect(source, out, target, into))

    open_ends: list[tuple[str, int]] = [(add("start", label="Start"), 0)]
    placed = [open_ends[0][0]]
    while len(graph.nodes) < nodes - 1:
        source, index = open_ends.pop(0) if open_ends else (rng.choice(placed), 0)
        roll = rng.random()
        words = " ".join(rng.choice(WORDS) for _ in range(3)).capitalize()
        if roll < 0.55:
            node = add("script", label=words, scriptId=rng.choice(script_ids))
            outs = 1
        elif roll < 0.7:
            node = add("choice", label=words + "?")
            for _ in range(rng.randrange(0, 3)):
                graph.apply(graph.add_port(node))
            for n, handle in enumerate(ports(graph.node(node) or {}, "source")):
                graph.apply(graph.set_port(node, handle["id"], label=f"Say {rng.choice(WORDS)}",
                                           port_script=f"@set v.player.answers += {n + 1}"))
            outs = len(ports(graph.node(node) or {}, "source"))
        elif roll < 0.78:
            node = add("condition", label="Brave enough?", condition=f"v.player.courage >= {rng.randrange(9)}")
            outs = 2
        elif roll < 0.82:
            node = add("switch", label="Which tide?", switch="v.island.tide")
            outs = 2
        elif roll < 0.87:
            node = add("event", label="Bell", event=rng.choice(WORDS))
            outs = 1
        elif roll < 0.91:
            node = add("jump", label="Back", jumpTo=rng.choice(placed))
            outs = 0
        elif roll < 0.93:
            node = add("note", label="Note", notes=f"Check the {rng.choice(WORDS)} line\nwith audio")
            placed.append(node)
            continue
        else:
            node = add(rng.choice(("end", "end", "return")), label="End")
            outs = 0
        try:
            link(source, index, node)
        except Exception:
            pass
        placed.append(node)
        open_ends.extend((node, n) for n in range(outs))
        if len(open_ends) > 24 and rng.random() < 0.3:  # branches join again
            join_source, join_index = open_ends.pop(0)
            target = rng.choice(placed[-40:])
            if ports(graph.node(target) or {}, "target") and target != join_source:
                try:
                    link(join_source, join_index, target)
                except Exception:
                    pass
    end = add("end", label="The end")
    for source, index in open_ends:
        try:
            link(source, index, end)
        except Exception:
            pass
    if not scatter:  # placed as the editor's Auto layout places it (how a writer's graph looks, not a heap)
        graph.apply(graph.move(layered_layout(graph)))
    return graph.to_tree()


def _script(rng: random.Random) -> str:
    lines = []
    for n in range(rng.randrange(3, 12)):
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randrange(5, 14)))
        lines.append(f"[#l{n}] ::{rng.choice(ACTORS)}:: {words.capitalize()}.")
    return "\n".join(lines) + "\n"


def fill(workspace: Any, name: str, nodes: int, scatter: bool = False) -> str:
    """Create the project and its big dialogue; returns the dialogue's id."""
    rng = random.Random(11)
    project = workspace.manager.create(name)
    try:
        for actor in ACTORS:  # the lines' speakers are actors: no unknown-actor warning in the Problems dock
            project.editor.create("Actor", actor)
        folder = project.editor.create("Folder", "Lines", collection="Script", isDialogueScriptFolder=True).id
        scripts = [project.editor.create("Script", f"Line {n}", parent=folder, isDialogueScript=True,
                                         content={"script": _script(rng)}).id for n in range(120)]
        tree = big_tree(nodes, scripts, rng, scatter)
        return project.editor.create("Dialogue", "The long night", dialogueScriptFolderID=folder,
                                     content={"tree": tree}).id
    finally:
        project.close()


CPU_TIMES: list[float] = []  # the GUI thread's CPU time of each frame timed, in order


def _frames(app: Any, view: Any, steps: list[Any]) -> list[float]:
    viewport = view.viewport()
    times = []
    for step in steps:
        started, cpu = time.perf_counter(), time.thread_time()
        step()
        viewport.repaint()
        _settle(app)
        times.append((time.perf_counter() - started) * 1000)
        CPU_TIMES.append((time.thread_time() - cpu) * 1000)
    return times


def time_pan(app: Any, view: Any, frames: int) -> list[float]:
    bars = (view.horizontalScrollBar(), view.verticalScrollBar())
    steps = []
    for n in range(frames):
        direction = 1 if (n // 40) % 2 == 0 else -1
        bar = bars[(n // 20) % 2]
        steps.append(lambda b=bar, d=direction: b.setValue(b.value() + 24 * d))
    return _frames(app, view, steps)


def time_zoom(app: Any, view: Any, frames: int) -> list[float]:
    from PySide6.QtCore import QPointF

    anchor = QPointF(view.viewport().width() / 2, view.viewport().height() / 2)
    view.set_zoom(0.15)
    steps = []
    factor = 1.15
    level = 0.15
    for _ in range(frames):
        if level * factor > 1.5 or level * factor < 0.15:
            factor = 1 / factor
        level *= factor
        steps.append(lambda z=level: view.set_zoom(z, anchor))
    return _frames(app, view, steps)


def measure_graph(app: Any, window: Any, dialogue_id: str, frames: int) -> dict[str, Any]:
    """Open the dialogue in ``window`` and time it: opening, pans, zooms, auto layout."""
    from storyloom.project.dialogue_layout import layered_layout

    started = time.perf_counter()
    window.open_document(dialogue_id)
    editor = window.tabs.current_editor()
    editor.view.viewport().repaint()
    _settle(app)
    opened = (time.perf_counter() - started) * 1000
    view = editor.view
    view.set_zoom(1.0)
    middle = sorted(editor.scene.node_items.values(), key=lambda item: (item.pos().x(), item.pos().y()))
    view.centerOn(middle[len(middle) // 2])  # among nodes, not in the empty corner of a wide graph
    _settle(app)
    CPU_TIMES.clear()
    pan_detail = time_pan(app, view, frames)
    view.set_zoom(0.01)  # clamped: the whole graph and more
    view.fit()
    _settle(app)
    overview_zoom = view.zoom()
    pan_overview = time_pan(app, view, frames)
    pan_cpu = CPU_TIMES[:]
    CPU_TIMES.clear()
    zoom = time_zoom(app, view, frames)
    zoom_cpu = CPU_TIMES[:]
    started = time.perf_counter()
    if hasattr(view, "settle"):  # the gesture's end: drawn once more as at rest
        view.settle()
    view.viewport().repaint()
    _settle(app)
    zoom_rest = (time.perf_counter() - started) * 1000
    geometries = {node_id: item.geometry for node_id, item in editor.scene.node_items.items()}
    started = time.perf_counter()
    layered_layout(editor.scene.graph, geometries)
    layout_alone = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    editor.auto_layout()
    view.viewport().repaint()
    _settle(app)
    layout_step = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    editor.undo_stack.undo()
    view.viewport().repaint()
    _settle(app)
    undo_ms = (time.perf_counter() - started) * 1000
    editor.stop()
    return {"opened": opened, "pan_detail": pan_detail, "pan_overview": pan_overview, "overview_zoom": overview_zoom,
            "zoom": zoom, "pan_cpu": pan_cpu, "zoom_cpu": zoom_cpu, "zoom_rest": zoom_rest,
            "layout_alone": layout_alone, "layout_step": layout_step, "undo": undo_ms,
            "nodes": len(editor.scene.node_items), "links": len(editor.scene.edge_items)}


def report(figures: dict[str, Any], layout: str = "laid out") -> list[Check]:
    """Print the figures of one graph; its checks (frames as ratios to the 16 ms budget)."""
    def line(name: str, values: list[float], cpu: list[float] | None = None) -> str:
        spent = f" (GUI thread's CPU p95 {_percentile(cpu, 0.95):.1f} ms)" if cpu else ""
        return (f"  {name} ({len(values)}): p50 {statistics.median(values):.1f} ms, "
                f"p95 {_percentile(values, 0.95):.1f} ms, max {max(values):.1f} ms{spent}")

    print(f"{layout}: dialogue of {figures['nodes']} nodes and {figures['links']} links: tab open and painted in "
          f"{figures['opened']:.0f} ms")
    print(line("pan at 100%", figures["pan_detail"]))
    print(line(f"pan with the whole graph in view ({figures['overview_zoom'] * 100:.0f}%)", figures["pan_overview"]))
    pans = figures["pan_detail"] + figures["pan_overview"]
    print(line("pan, both", pans, figures.get("pan_cpu")))
    print(line("zoom steps 15%..150%", figures["zoom"], figures.get("zoom_cpu")))
    print(f"  the zoom gesture's end, drawn at rest: {figures['zoom_rest']:.1f} ms")
    print(f"  auto layout: the layout alone {figures['layout_alone']:.0f} ms; the editor's step (layout, move "
          f"of every node, scene, fit, paint) {figures['layout_step']:.0f} ms; its undo {figures['undo']:.0f} ms")
    return [
        Check(f"graph pan frame p95 / 16 ms, {layout}", _percentile(pans, 0.95) / FRAME_TARGET_MS, 1.0,
              note=f"{_percentile(pans, 0.95):.1f} ms"),
        Check(f"graph zoom frame p95 / 16 ms, {layout}", _percentile(figures["zoom"], 0.95) / FRAME_TARGET_MS, 1.0,
              note=f"{_percentile(figures['zoom'], 0.95):.1f} ms"),
        Check(f"graph auto layout (ms), {layout}", figures["layout_step"], LAYOUT_TARGET_MS, unit=" ms"),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=500)
    parser.add_argument("--frames", type=int, default=200, help="pan and zoom frames timed (each)")
    parser.add_argument("--quick", action="store_true", help="fewer frames (a run to see it works)")
    parser.add_argument("--layout", choices=("both", "laid-out", "scattered"), default="both",
                        help="the graph laid out, scattered over 4000x3000 (a heap of crossing links), or both")
    parser.add_argument("--scatter", action="store_true", help="the same as --layout scattered")
    parser.add_argument("--dir", help="STORYLOOM_HOME to use and keep (default: a temporary one)")
    args = parser.parse_args(argv)
    if args.quick:
        args.frames = min(args.frames, 40)

    from storyloom.app import AppOptions, Workspace
    from storyloom.gui.application import create_application
    from storyloom.gui.main_window import open_project_window

    layouts = ["scattered"] if args.scatter else ["laid out", "scattered"] if args.layout == "both" \
        else [args.layout.replace("-", " ")]
    app = create_application(["storyloom-graph-bench"])
    checks: list[Check] = []
    with storyloom_home(args.dir, "storyloom-graph-bench-"):
        workspace = Workspace(options=AppOptions(username="bench"))
        try:
            for layout in layouts:
                name = f"graph-bench-{random.randrange(10**9)}"
                started = time.perf_counter()
                dialogue = fill(workspace, name, args.nodes, layout == "scattered")
                print(f"graph: a {args.nodes}-node dialogue ({layout}) written in "
                      f"{time.perf_counter() - started:.1f}s; {machine()}; Qt platform {app.platformName()}")
                window = open_project_window(workspace, name)
                window.resize(1440, 900)
                window.show()
                _settle(app)
                figures = measure_graph(app, window, dialogue, args.frames)
                window.close()
                _settle(app)
                checks += report(figures, layout)
        finally:
            workspace.close()
    return verdict("graph", checks)


if __name__ == "__main__":
    sys.exit(main())
