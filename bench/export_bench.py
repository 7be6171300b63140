"""Export benchmark: game export and schema export of a generated 10,000-document project.

    .venv/bin/python bench/export_bench.py [--docs 10000] [--repeat 5] [--dir DIR]

A project is created under a temporary ``STORYLOOM_HOME`` (deleted at the end, whatever happens;
with ``--dir`` that directory is used and kept) and filled with ``--docs`` documents
spread over all 15 collections (about 5% folders), with realistic content: scripts with speech,
commands, ``@if``/``@set`` and ``${...}``; HJSON/YAML/TOML/JSON property text on items, quests,
actors and misc; YAML variables with unique ``_sid``s; HJSON scenarios over them; dialogue
trees; grids; kanban boards; canvases; 16x16 maps with cells, edges and markers. Every export
mapping of the project is set, so every speech and command line is rendered.

Timed in ``--repeat`` rounds in the same process, every phase once per round (so that each
ratio compares runs made under the same load on a shared machine):

* baseline: ``db.all_docs(include_docs=True)``, reading and JSON-decoding every document (also
  shown with the garbage collector paused, as the exporters run);
* game export: ``build_game_export(project, all collections)`` (reads the store itself);
* game export + serialise: the above plus ``dumps_export`` (what ``storyloom export`` writes);
* schema export: ``build_schema(project, all collections)``.

Exports are timed cold (the per-revision memo of ``storyloom.export.cache`` emptied before each
run: the first export after a project is opened, as ``storyloom export`` does) and warm
(repeated exports of an open project, as the API serves them). Each is printed as a ratio
against the baseline: best against best (``ratio``; ``ratio*`` against the GC-paused
baseline), and the median over the rounds of the ratio within each round (``rounds``,
``rounds*``), which a drifting load affects least. Target (issue 3): 3x or less. The exit
status is 1 when a warm ``ratio`` misses the target.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

TARGET = 3.0
WORDS = [
    "memory",
    "garden",
    "fountain",
    "autumn",
    "leaf",
    "silver",
    "locket",
    "shadow",
    "lantern",
    "whisper",
    "door",
    "key",
    "path",
    "stone",
    "river",
    "bridge",
    "tower",
    "candle",
    "letter",
    "secret",
    "promise",
    "dusk",
    "dawn",
    "light",
    "fading",
    "bloom",
    "thorn",
    "bell",
    "song",
]
ACTORS = ["Woman", "Player", "Narrator", "Gardener", "Old Crow", "Child"]


def _sentence(rng: random.Random, n: int = 10) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def _script(rng: random.Random, sids: list[str]) -> str:
    lines = ["// generated scene", "<FadeIn(1.5)>"]
    for i in range(14):
        roll = rng.random()
        actor = rng.choice(ACTORS)
        if roll < 0.6:
            expression = f" [{rng.choice(['happy', 'sad', 'calm'])}]" if rng.random() < 0.4 else ""
            lines.append(f"[#line_{i}_{rng.randrange(10**6)}]::{actor}:: {_sentence(rng)}{expression}")
        elif roll < 0.75 and sids:
            sid = rng.choice(sids)
            lines.append(f"@if variables.{sid}.level > {rng.randrange(5)}")
            lines.append(f"::{actor}:: You have ${{variables.{sid}.gold}} coins.")
            lines.append("@else")
            lines.append(f"@set variables.{sid}.gold += 1")
            lines.append("@endif")
        else:
            lines.append(f'<PlaySound("{rng.choice(WORDS)}", {rng.randrange(10)}, loop)> {{"volume": 0.5}}')
    return "\n".join(lines)


def _properties(rng: random.Random, language: str) -> str:
    name, rarity, weight = rng.choice(WORDS).title(), rng.choice(["Common", "Rare"]), rng.randrange(1, 50)
    if language == "json":
        return f'{{"name": "{name}", "rarity": "{rarity}", "weight": {weight}, "tags": ["{rng.choice(WORDS)}"]}}'
    if language == "yaml":
        return f"name: {name}\nrarity: {rarity}\nweight: {weight}\ntags:\n  - {rng.choice(WORDS)}\n"
    if language == "toml":
        return f'name = "{name}"\nrarity = "{rarity}"\nweight = {weight}\ntags = ["{rng.choice(WORDS)}"]\n'
    return (
        f"// {_sentence(rng, 12)}\nname: {name}\nrarity: {rarity}\nweight: {weight}\n"
        f"description: {_sentence(rng, 16)}\nproperties: {{\n  material: {rng.choice(WORDS)}\n"
        f"  fragile: {str(rng.random() < 0.5).lower()}\n}}\ntags: [\n  {rng.choice(WORDS)}\n]\n"
    )


def make_docs(count: int, seed: int = 11) -> list[dict[str, Any]]:
    """``count`` documents spread over the 15 collections (minus the settings document)."""
    from storyloom.project.collections import COLLECTIONS
    from storyloom.project.tree import spread_keys

    rng = random.Random(seed)
    apps = [c.app_name for c in COLLECTIONS if c.app_name != "ProjectSettings"]
    per = count // len(apps)
    docs: list[dict[str, Any]] = []
    sids = [f"state_{i}" for i in range(per + 1)]  # the Variable collection may get one more
    for a, app in enumerate(apps):
        n = per + (1 if a < count - per * len(apps) else 0)
        folders = [f"{app.lower()}-folder-{i:03d}" for i in range(max(1, n // 20))]
        keys = spread_keys(n)
        for i in range(n):
            doc_id = f"{app.lower()}-{i:05d}"
            base: dict[str, Any] = {
                "_id": doc_id,
                "name": f"{app} {i} {rng.choice(WORDS)}",
                "parent": None,
                "sortKey": keys[i],
                "collection": app,
                "icon": "file",
                "color": "#cec4d1",
                "isClonable": True,
                "isRemovable": True,
                "isReadOnly": False,
                "comments": "",
                "alias": rng.choice(WORDS),
                "created": "2026-02-18T13:23:47.269Z",
                "modified": "2026-02-21T21:36:00.000Z",
                "createdBy": "bench",
                "modifiedBy": "bench",
                "locked": False,
                "lockedBy": "nobody",
            }
            if i < len(folders):
                base.update({"_id": folders[i], "type": "Folder", "icon": "folder"})
                docs.append(base)
                continue
            base["type"] = app
            base["parent"] = rng.choice(folders) if rng.random() < 0.7 else None
            language = rng.choice(["hjson", "hjson", "yaml", "json", "toml"])
            if app == "Script":
                base.update(editorMode="lua", isDialogueScript=False, content={"script": _script(rng, sids[40:90])})
            elif app == "Gdd":
                base["content"] = {
                    "gdd": "# " + _sentence(rng) + "\n\n" + "\n".join(_sentence(rng, 20) for _ in range(5))
                }
            elif app == "Dialogue":
                nodes = [
                    {
                        "id": f"n{k}",
                        "type": "base",
                        "position": {"x": k * 120.5, "y": rng.random() * 300},
                        "data": {
                            "label": f"{k} - node",
                            "nodeType": ["start", "script", "choice", "condition", "end"][k],
                            "handles": [{"id": f"h{k}in", "type": "target"}, {"id": f"h{k}out", "type": "source"}],
                            "scriptId": None,
                        },
                    }
                    for k in range(5)
                ]
                edges = [
                    {
                        "id": f"e{k}",
                        "source": f"n{k}",
                        "sourceHandle": f"h{k}out",
                        "target": f"n{k + 1}",
                        "targetHandle": f"h{k + 1}in",
                    }
                    for k in range(4)
                ]
                base["content"] = {"tree": {"nodes": nodes, "edges": edges}}
            elif app in ("Item", "Misc"):
                base["editorLanguage"] = language
                base["content"] = (
                    {"item": _properties(rng, language)}
                    if app == "Item"
                    else {"properties": _properties(rng, language)}
                )
            elif app == "Quest":
                base["editorLanguage"] = language
                base["content"] = {"properties": _properties(rng, language), "conditions": _properties(rng, language)}
            elif app == "Actor":
                base["editorLanguage"] = language
                base["content"] = {
                    "bio": _sentence(rng, 40),
                    "expressions": [],
                    "properties": _properties(rng, language),
                }
            elif app == "Variable":
                sid = sids[i]
                source = (
                    f"_sid: {sid}\nlevel: {rng.randrange(10)}\ngold: {rng.randrange(100)}\nname: {rng.choice(WORDS)}\n"
                    f"found: false\nspeed: 1.5\nstats:\n  hp: 10\n  tags: [a, b]\n"
                )
                base["content"] = {"variables": source, "json": "{}"}
            elif app == "Scenario":
                chosen = rng.sample(sids[40 : max(43, per // 2)], 3)  # the first ids are folders
                source = "".join(f"{sid}: {{\n  level: {rng.randrange(10)}\n  found: true\n}}\n" for sid in chosen)
                base["editorLanguage"] = "hjson"
                base["content"] = {"scenario": source, "json": "{}"}
            elif app == "Scene":
                base["content"] = {
                    "items": [
                        {"docId": f"script-{k:05d}", "docType": "Script", "startLine": 1, "startNode": None}
                        for k in range(4)
                    ]
                }
            elif app == "Grid":
                base["content"] = {
                    "columns": [
                        {"id": c, "title": c, "type": "text", "name": c, "width": 100} for c in ("id", "en", "es")
                    ],
                    "data": [[f"loc_{k}", _sentence(rng, 5), _sentence(rng, 5)] for k in range(6)],
                    "style": {},
                    "meta": {},
                    "comments": {},
                    "worksheetName": "Sheet1",
                }
            elif app == "Kanban":
                base["content"] = {
                    "columns": [
                        {
                            "id": c,
                            "title": c,
                            "cards": [
                                {"id": f"{c}{k}", "title": _sentence(rng, 4), "tags": [], "related": []}
                                for k in range(3)
                            ],
                        }
                        for c in ("todo", "doing", "done")
                    ],
                    "template": None,
                    "settings": {},
                }
            elif app == "Canvas":
                base["content"] = {
                    "nodes": [{"id": f"c{k}", "text": _sentence(rng, 6), "x": k * 10, "y": k * 5} for k in range(6)],
                    "edges": [{"id": f"ce{k}", "source": f"c{k}", "target": f"c{k + 1}"} for k in range(5)],
                }
            elif app == "Map":
                cells = {
                    f"{rng.randrange(16)},{rng.randrange(16)}": {"type": rng.choice(["floor", "wall", "water"])}
                    for _ in range(30)
                }
                edges = {
                    f"{rng.randrange(16)},{rng.randrange(16)}:{rng.choice('NESW')}": {"type": "door"} for _ in range(10)
                }
                base["content"] = {
                    "width": 16,
                    "height": 16,
                    "cells": cells,
                    "edges": edges,
                    "markers": {"spawn": {"x": 1, "y": 1}, "exit": {"x": 15, "y": 15}},
                    "editor": {"zoom": 2, "tool": "cell"},
                }
            docs.append(base)
    return docs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5, help="rounds (every phase once per round)")
    parser.add_argument("--dir", help="STORYLOOM_HOME to use (default: a temporary directory)")
    args = parser.parse_args()

    home = args.dir or tempfile.mkdtemp(prefix="storyloom-export-bench-")
    os.environ["STORYLOOM_HOME"] = home
    try:
        return run(args)
    finally:
        if not args.dir:  # a temporary home is ours: leave nothing behind (a --dir is the caller's)
            shutil.rmtree(home, ignore_errors=True)


def run(args: argparse.Namespace) -> int:
    """The benchmark proper, in the ``STORYLOOM_HOME`` that :func:`main` set up."""
    from storyloom.project.manager import ProjectManager

    manager = ProjectManager()
    project = manager.create(f"export-bench-{random.randrange(10**9)}")
    try:
        return _measure(args, project)
    finally:
        project.close()


def _measure(args: argparse.Namespace, project: Any) -> int:
    from storyloom.export.cache import cache_for, gc_paused
    from storyloom.export.collections_filter import EXPORT_NAMES
    from storyloom.export.game_export import build_game_export, dumps_export
    from storyloom.export.schema_export import build_schema
    from storyloom.project.documents import EDITOR_MODES

    templates = {
        "speechExportMapping": {mode: '%actor:say("%speech", "%expression", "%tag")' for mode in EDITOR_MODES},
        "commandSpeechExportMapping": {mode: "%command(%params(, ))" for mode in EDITOR_MODES},
        "interpolateVariablesOnExport": False,
    }
    project.editor.update_settings({"exportMappings": templates})
    docs = make_docs(args.docs)
    start = time.perf_counter()
    for i in range(0, len(docs), 500):
        failures = [r for r in project.store.bulk_docs(docs[i : i + 500]) if "error" in r]
        if failures:
            raise SystemExit(f"write failed: {failures[:3]}")
    written = time.perf_counter() - start
    collections = list(EXPORT_NAMES)
    print(
        f"project: {project.store.info()['doc_count']} documents over {len(collections)} collections "
        f"(written in {written:.2f}s), {args.repeat} rounds"
    )

    db = project.db  # the read view the export itself reads through (and whose memo it keeps)
    cache = cache_for(db)
    assert cache is not None

    def read_all() -> Any:
        return db.all_docs(include_docs=True)

    def read_all_gc_paused() -> Any:
        with gc_paused():
            return db.all_docs(include_docs=True)

    def export() -> Any:
        return build_game_export(project, collections, "bench")

    def export_and_dump() -> str:
        return dumps_export(build_game_export(project, collections, "bench"))

    def schema() -> Any:
        return build_schema(project, collections)

    def cold(fn: Callable[[], Any]) -> Callable[[], Any]:
        def run() -> Any:
            cache.clear()  # every run starts from an empty memo: the first export of an opened project
            return fn()

        return run

    # Every round runs every phase once, in this order, so that each ratio compares runs made
    # under the same conditions (the machine may be shared: its load drifts during a run).
    phases: list[tuple[str, Callable[[], Any]]] = [
        ("baseline: all_docs(include_docs)", read_all),
        ("baseline*: same, GC paused", read_all_gc_paused),
        ("game export, cold", cold(export)),
        ("game export + serialise, cold", cold(export_and_dump)),
        ("schema export, cold", cold(schema)),
        ("game export, warm", export),
        ("game export + serialise, warm", export_and_dump),
        ("schema export, warm", schema),
    ]
    times: dict[str, list[float]] = {name: [] for name, _ in phases}
    for _ in range(args.repeat):
        for name, fn in phases:
            if name == "game export, warm":
                export()  # the cold schema run emptied the memo: fill it (not timed)
            started = time.perf_counter()
            result = fn()
            times[name].append(time.perf_counter() - started)
            del result  # freed outside the timing; no result stays alive into the next phase

    assert len(read_all()["rows"]) == args.docs + 1
    exported = cold(export)()
    text = dumps_export(exported)
    schema_value = schema()
    warnings = exported["_meta"]["warnings"]
    lines = sum(len(d.get("content", {}).get("lines", [])) for d in exported["scripts"])
    print(
        f"export: {len(text) / 1e6:.1f} MB of JSON, {lines} script lines, {len(warnings)} warnings; "
        f"schema: {len(schema_value['$defs'])} $defs"
    )
    print(
        "cold = the per-revision memo emptied before each run (first export after opening a project); "
        "warm = memo filled (repeated exports of an open project, e.g. the API)."
    )
    print()
    base = times["baseline: all_docs(include_docs)"]
    base_paused = times["baseline*: same, GC paused"]
    print(
        f"{'phase':<34}{'best s':>9}{'median s':>10}{'ratio':>8}{'ratio*':>8}{'rounds':>8}{'rounds*':>9}"
        f"  target {TARGET:.0f}x"
    )
    ok = True
    for name, _ in phases:
        best, median = min(times[name]), statistics.median(times[name])
        ratio, ratio_paused = best / min(base), best / min(base_paused)
        per_round = statistics.median(t / b for t, b in zip(times[name], base, strict=True))
        per_round_paused = statistics.median(t / b for t, b in zip(times[name], base_paused, strict=True))
        if name.startswith("baseline"):
            verdict = ""
        else:
            verdict = "ok" if ratio <= TARGET else "OVER"
            ok = ok and (verdict == "ok" or "cold" in name)
        print(
            f"{name:<34}{best:>9.3f}{median:>10.3f}{ratio:>7.2f}x{ratio_paused:>7.2f}x"
            f"{per_round:>7.2f}x{per_round_paused:>8.2f}x  {verdict}"
        )
    print(
        "ratio = best against the best baseline as it runs; ratio* = against the best baseline with the GC "
        "paused too; rounds, rounds* = median over the rounds of the same ratios taken within each round"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
