"""One generator of a realistic Storyloom project of any size, shared by every benchmark and by tests.

    .venv/bin/python bench/generate.py --docs 10000 [--plant N] [--seed S] [--name NAME]

creates the project NAME in ``$STORYLOOM_HOME`` (or the user's Storyloom home) and fills it, so
that ``storyloom check NAME`` or ``storyloom export NAME`` can be tried on it by hand.

:func:`generate` describes ``count`` documents (1,000 to 100,000 and beyond; any count of 15 or
more) spread over the 14 tree collections the way a long-running game project holds them:
mostly Scripts and Dialogues, then Items, Scenes, Quests, GDD pages, ... About 5% of each
collection are folders, nested up to three levels; 90% of the documents sit in a folder of their
own collection. The content is what writers write: scripts with speech, commands, comments,
``@if``/``@else``/``@set`` and ``${...}`` over the project's variables; HJSON, YAML, TOML and
JSON property text; YAML/HJSON/TOML variables with unique ``_sid``s; scenarios overriding them
with the right types; dialogue graphs with one start node whose nodes link existing scripts;
scenes over existing scripts and dialogues; grids, kanban boards (cards relate existing
documents), canvases and maps; a few Attachment documents (small PNGs) that actors' expressions
show. The settings set every export mapping, so every speech and command line is rendered.

Every reference is drawn from what the generator itself lays out (ids are functions of the
collection and an index, never of the total), so the project **validates clean at every size**:
``storyloom check`` finds no problem and the game export has no warning, except the problems
planted on purpose with ``plant``: ``plant`` documents (spread over the kinds in
:data:`PLANTED_KINDS`), each of which causes exactly one problem in ``storyloom check`` and one
warning in the game export. :attr:`Generated.planted` counts them by kind; a benchmark compares
``_meta.warningCount`` with :attr:`Generated.planted_total`.

Documents are produced lazily (:meth:`Generated.docs`, :meth:`Generated.batches`), so a
100,000-document project is written without holding it in memory; the same seed gives the same
documents.
"""

from __future__ import annotations

import argparse
import base64
import os
import random
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` and `storyloom` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench import paths

paths.setup()

#: Share of each collection among the documents (normalised). Scripts and dialogues dominate.
WEIGHTS: dict[str, float] = {
    "Script": 30,
    "Dialogue": 14,
    "Item": 8,
    "Scene": 6,
    "Quest": 5,
    "Gdd": 4,
    "Variable": 5,
    "Misc": 4,
    "Grid": 4,
    "Actor": 3,
    "Scenario": 3,
    "Canvas": 3,
    "Map": 3,
    "Kanban": 2,
}
FOLDER_SHARE = 20  # one folder per 20 documents of a collection
TOP_LEVEL_SHARE = 0.1  # documents outside any folder
ATTACHMENTS_PER = 1000  # one Attachment document per this many documents

#: Planted problems: (kind, what it is). Each causes exactly one problem in `storyloom check`
#: (and in the problems panel) and one warning in the game export.
PLANTED_KINDS: tuple[tuple[str, str], ...] = (
    ("script-unknown-path", "a Script reading a variable of a state id no Variable defines"),
    ("unknown-state", "a Scenario overriding a state id no Variable defines"),
    ("parse-error", "an Item whose YAML property text does not parse"),
)

WORDS = (
    "memory", "garden", "fountain", "autumn", "leaf", "silver", "locket", "shadow", "lantern", "whisper",
    "door", "key", "path", "stone", "river", "bridge", "tower", "candle", "letter", "secret", "promise",
    "dusk", "dawn", "light", "fading", "bloom", "thorn", "bell", "song", "harbour", "storm", "tide", "gull",
    "keeper", "lamp", "wick", "oil", "cove", "rope", "anchor", "map", "compass", "ember", "ash", "frost",
    "hollow", "meadow", "orchard", "well",
)
ACTORS = ("Narrator", "Wren", "Edda", "Tobias", "Maud", "Old Crow", "Child", "Gardener")
EXPRESSIONS = ("happy", "sad", "calm", "angry", "afraid")
STATE_KINDS = ("npc", "quest", "place", "item")
# 1x1 transparent PNG: what an expression image is, at the smallest.
PNG = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6360000002000100e221bc330000000049454e44ae426082"
    )
).decode()
STAMP = {"created": "2026-02-18T13:23:47.269Z", "modified": "2026-02-21T21:36:00.000Z"}


@dataclass
class Layout:
    """How many documents (and folders) one collection holds; ids are functions of the index."""

    app: str
    total: int  # folders included
    folders: int

    @property
    def prefix(self) -> str:
        return self.app.lower()

    def doc_id(self, index: int) -> str:
        """The id of the ``index``-th document (0-based, folders excluded)."""
        return f"{self.prefix}-{index:06d}"

    def folder_id(self, index: int) -> str:
        return f"{self.prefix}-folder-{index:05d}"

    @property
    def documents(self) -> int:
        return self.total - self.folders


@dataclass
class Generated:
    """A generated project: its documents (lazily), its settings, and the problems planted."""

    count: int
    seed: int
    plant: int
    layouts: dict[str, Layout]
    attachments: int
    planted: dict[str, int] = field(default_factory=dict)
    planted_ids: dict[str, list[str]] = field(default_factory=dict)

    @property
    def planted_total(self) -> int:
        return sum(self.planted.values())

    @property
    def settings(self) -> dict[str, Any]:
        """Settings to merge into the project's (``editor.update_settings``): every export mapping set."""
        from storyloom.project.documents import EDITOR_MODES

        return {
            "exportMappings": {
                "speechExportMapping": {mode: '%actor:say("%speech", "%expression", "%tag")' for mode in EDITOR_MODES},
                "commandSpeechExportMapping": {mode: "%command(%params(, ))" for mode in EDITOR_MODES},
                "interpolateVariablesOnExport": False,
            }
        }

    def docs(self) -> Iterator[dict[str, Any]]:
        """Every document, collection after collection (folders first in each), freshly built."""
        return _Builder(self).docs()

    def batches(self, size: int = 500) -> Iterator[list[dict[str, Any]]]:
        batch: list[dict[str, Any]] = []
        for doc in self.docs():
            batch.append(doc)
            if len(batch) == size:
                yield batch
                batch = []
        if batch:
            yield batch

    def ids_of(self, app: str) -> list[str]:
        """The ids of the (non-folder) documents of a collection."""
        layout = self.layouts[app]
        return [layout.doc_id(i) for i in range(layout.documents)]

    def folder_ids(self, app: str) -> list[str]:
        layout = self.layouts[app]
        return [layout.folder_id(i) for i in range(layout.folders)]

    def write(self, store: Any, batch: int = 500) -> float:
        """Write every document to ``store`` (a :class:`storyloom.store.Database`) with
        ``bulk_docs`` in batches; returns the seconds it took. Raises on a refused document."""
        started = time.perf_counter()
        for docs in self.batches(batch):
            failures = [r for r in store.bulk_docs(docs) if "error" in r]
            if failures:
                raise RuntimeError(f"write failed: {failures[:3]}")
        return time.perf_counter() - started

    def fill(self, project: Any, batch: int = 500) -> float:
        """Apply :attr:`settings` through the project's editor and write every document to its
        store (no validation: the documents are valid by construction); returns the seconds."""
        project.editor.update_settings(self.settings)
        return self.write(project.store, batch)


def generate(count: int, *, seed: int = 11, plant: int = 0) -> Generated:
    """A project of ``count`` documents (the settings document not counted) with ``plant``
    problems planted on purpose (see the module docstring)."""
    apps = list(WEIGHTS)
    if count < 2 * len(apps) + 1:
        raise ValueError(f"a generated project needs at least {2 * len(apps) + 1} documents, not {count}")
    attachments = max(1, count // ATTACHMENTS_PER)
    rest = count - attachments
    weight_sum = sum(WEIGHTS.values())
    totals = {app: max(2, int(rest * WEIGHTS[app] / weight_sum)) for app in apps}
    # Hand out the rounding remainder to the biggest collections first.
    leftover = rest - sum(totals.values())
    order = sorted(apps, key=lambda a: -WEIGHTS[a])
    i = 0
    while leftover != 0:
        app = order[i % len(order)]
        step = 1 if leftover > 0 else -1
        if totals[app] + step >= 2:
            totals[app] += step
            leftover -= step
        i += 1
    layouts = {app: Layout(app, total, max(1, total // FOLDER_SHARE)) for app, total in totals.items()}
    generated = Generated(count, seed, plant, layouts, attachments)
    # Planted problems go to the last documents of their collection, round-robin over the kinds.
    hosts = {"script-unknown-path": "Script", "unknown-state": "Scenario", "parse-error": "Item"}
    for n in range(plant):
        kind = PLANTED_KINDS[n % len(PLANTED_KINDS)][0]
        layout = layouts[hosts[kind]]
        taken = len(generated.planted_ids.setdefault(kind, []))
        if taken >= layout.documents - 1:
            raise ValueError(f"too many planted problems of kind {kind} for {count} documents")
        generated.planted_ids[kind].append(layout.doc_id(layout.documents - 1 - taken))
        generated.planted[kind] = taken + 1
    return generated


def open_or_generate(name: str, count: int) -> tuple[Any, float | None]:
    """The project ``name`` of the current ``STORYLOOM_HOME``, open: the one an earlier run kept
    (``--dir``), else a new one filled with :func:`generate` ``(count)`` (deleted again if the
    filling fails). Returns it and the seconds its writing took (``None`` when reused)."""
    from storyloom.project.manager import ProjectManager, ProjectNotFound

    manager = ProjectManager(username="bench")
    try:
        return manager.open(name), None
    except ProjectNotFound:
        pass
    project = manager.create(name)
    try:
        return project, generate(count).fill(project)
    except BaseException:
        project.close()
        manager.delete(name)
        raise


# --------------------------------------------------------------------------------------------
# Building the documents


class _Builder:
    def __init__(self, generated: Generated) -> None:
        self.g = generated
        self.layouts = generated.layouts
        self.planted = {doc_id: kind for kind, ids in generated.planted_ids.items() for doc_id in ids}
        # The first Actor documents are named from ACTORS and scripts speak only those names: a
        # speaker who is not an actor is a problem (`storyloom check`), never planted by chance.
        self.speakers = ACTORS[:min(len(ACTORS), self.layouts["Actor"].documents)]

    # -- helpers -------------------------------------------------------------------------------
    @staticmethod
    def sentence(rng: random.Random, n: int = 10) -> str:
        return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."

    def sid(self, index: int) -> str:
        """The ``_sid`` of the ``index``-th Variable document."""
        return f"{STATE_KINDS[index % len(STATE_KINDS)]}_{index}"

    def random_id(self, rng: random.Random, app: str) -> str:
        layout = self.layouts[app]
        return layout.doc_id(rng.randrange(layout.documents))

    def random_sid(self, rng: random.Random) -> str:
        return self.sid(rng.randrange(self.layouts["Variable"].documents))

    # -- the documents -------------------------------------------------------------------------
    def docs(self) -> Iterator[dict[str, Any]]:
        from storyloom.project.tree import spread_keys

        for a in range(self.g.attachments):
            yield self.attachment(a)
        for app, layout in self.layouts.items():
            rng = random.Random(f"{self.g.seed}-{app}")
            keys = spread_keys(layout.total)
            for f in range(layout.folders):
                yield self.folder(layout, f, keys[f])
            for i in range(layout.documents):
                doc_id = layout.doc_id(i)
                if layout.folders and rng.random() >= TOP_LEVEL_SHARE:
                    parent: str | None = layout.folder_id(rng.randrange(layout.folders))
                else:
                    parent = None
                doc = self.base(rng, app, doc_id, f"{app} {i} {rng.choice(WORDS)}", parent, keys[layout.folders + i])
                getattr(self, app.lower())(rng, doc, i)
                kind = self.planted.get(doc_id)
                if kind is not None:
                    self.plant(kind, doc)
                yield doc

    def base(self, rng: random.Random, app: str, doc_id: str, name: str, parent: str | None,
             key: str) -> dict[str, Any]:
        return {
            "_id": doc_id,
            "type": app,
            "collection": app,
            "name": name,
            "parent": parent,
            "sortKey": key,
            "icon": "file",
            "color": "#cec4d1",
            "isClonable": True,
            "isRemovable": True,
            "isReadOnly": False,
            "comments": "",
            "alias": rng.choice(WORDS),
            **STAMP,
            "createdBy": "bench",
            "modifiedBy": "bench",
            "locked": False,
            "lockedBy": "nobody",
        }

    def folder(self, layout: Layout, index: int, key: str) -> dict[str, Any]:
        # The first quarter at the top level; each other folder inside an earlier one (index // 4).
        top = max(1, layout.folders // 4)
        parent = None if index < top else layout.folder_id(index // 4)
        doc = {
            "_id": layout.folder_id(index),
            "type": "Folder",
            "collection": layout.app,
            "name": f"{layout.app} folder {index}",
            "parent": parent,
            "sortKey": key,
            "icon": "folder",
            "color": "#666",
            "isClonable": False,
            "isRemovable": True,
            "isReadOnly": False,
            **STAMP,
        }
        if layout.app == "Script":
            doc["isDialogueScriptFolder"] = False
        return doc

    def attachment(self, index: int) -> dict[str, Any]:
        doc_id = f"attachment-{index:05d}"
        return {
            "_id": doc_id,
            "type": "Attachment",
            "collection": "Attachment",
            "name": f"portrait {index}.png",
            "mimeType": "image/png",
            "permalink": f"storyloom://image/{doc_id}",
            "content": {"notes": ""},
            "isClonable": False,
            **STAMP,
            "_attachments": {"blob": {"content_type": "image/png", "data": PNG}},
        }

    def properties(self, rng: random.Random, language: str) -> str:
        name, rarity, weight = rng.choice(WORDS).title(), rng.choice(["Common", "Rare"]), rng.randrange(1, 50)
        tag = rng.choice(WORDS)
        if language == "json":
            return f'{{"name": "{name}", "rarity": "{rarity}", "weight": {weight}, "tags": ["{tag}"]}}'
        if language == "yaml":
            return f"name: {name}\nrarity: {rarity}\nweight: {weight}\ntags:\n  - {tag}\n"
        if language == "toml":
            return f'name = "{name}"\nrarity = "{rarity}"\nweight = {weight}\ntags = ["{tag}"]\n'
        return (
            f"// {self.sentence(rng, 12)}\nname: {name}\nrarity: {rarity}\nweight: {weight}\n"
            f"description: {self.sentence(rng, 16)}\nproperties: {{\n  material: {rng.choice(WORDS)}\n"
            f"  fragile: {str(rng.random() < 0.5).lower()}\n}}\ntags: [\n  {tag}\n]\n"
        )

    @staticmethod
    def language(rng: random.Random) -> str:
        return rng.choice(("hjson", "hjson", "yaml", "json", "toml"))

    # -- per collection --------------------------------------------------------------------------
    def script(self, rng: random.Random, doc: dict[str, Any], index: int) -> None:
        lines = [f"// {self.sentence(rng, 6)}", "<FadeIn(1.5)>"]
        for i in range(rng.randrange(12, 24)):
            roll = rng.random()
            actor = rng.choice(self.speakers)
            if roll < 0.6:
                expression = f" [{rng.choice(EXPRESSIONS)}]" if rng.random() < 0.4 else ""
                lines.append(f"[#line_{index}_{i}]::{actor}:: {self.sentence(rng)}{expression}")
            elif roll < 0.75:
                sid = self.random_sid(rng)
                lines += [
                    f"@if variables.{sid}.level > {rng.randrange(5)}",
                    f"::{actor}:: You have ${{variables.{sid}.gold}} coins.",
                    "@else",
                    f"@set variables.{sid}.gold += 1",
                    "@endif",
                ]
            elif roll < 0.8:
                lines.append(f"// {self.sentence(rng, 5)}")
            else:
                lines.append(f'<PlaySound("{rng.choice(WORDS)}", {rng.randrange(10)}, loop)> {{"volume": 0.5}}')
        doc.update(editorMode=rng.choice(("lua", "text", "yarn_spinner", "gdscript")), isDialogueScript=False)
        doc["content"] = {"script": "\n".join(lines)}

    def gdd(self, rng: random.Random, doc: dict[str, Any], index: int) -> None:
        paragraphs = "\n\n".join(self.sentence(rng, 20) for _ in range(rng.randrange(3, 7)))
        doc["editor"] = "markdown"
        doc["content"] = {"gdd": f"# {self.sentence(rng, 4)}\n\n{paragraphs}\n\n- {self.sentence(rng, 6)}\n"}

    def dialogue(self, rng: random.Random, doc: dict[str, Any], index: int) -> None:
        kinds = ["start", *rng.sample(["script", "choice", "condition", "event", "note"], 3), "end"]
        nodes = []
        for k, kind in enumerate(kinds):
            nodes.append({
                "id": f"n{k}",
                "type": "base",
                "position": {"x": k * 120.5, "y": round(rng.random() * 300, 1)},
                "data": {
                    "label": f"{k} - {kind}",
                    "nodeType": kind,
                    "handles": [{"id": f"h{k}in", "type": "target"}, {"id": f"h{k}out", "type": "source"}],
                    "scriptId": self.random_id(rng, "Script") if kind == "script" else None,
                },
            })
        edges = [
            {"id": f"e{k}", "source": f"n{k}", "sourceHandle": f"h{k}out", "target": f"n{k + 1}",
             "targetHandle": f"h{k + 1}in"}
            for k in range(len(nodes) - 1)
        ]
        doc["content"] = {"tree": {"nodes": nodes, "edges": edges}}

    def _property_doc(self, rng: random.Random, doc: dict[str, Any], fields: tuple[str, ...]) -> None:
        language = self.language(rng)
        doc["editorLanguage"] = language
        doc["content"] = {name: self.properties(rng, language) for name in fields}

    def item(self, rng: random.Random, doc: dict[str, Any], index: int) -> None:
        self._property_doc(rng, doc, ("item",))

    def misc(self, rng: random.Random, doc: dict[str, Any], index: int) -> None:
        self._property_doc(rng, doc, ("properties",))

    def quest(self, rng: random.Random, doc: dict[str, Any], index: int) -> None:
        self._property_doc(rng, doc, ("properties", "conditions"))

    def actor(self, rng: random.Random, doc: dict[str, Any], index: int) -> None:
        if index < len(ACTORS):  # the names the scripts speak
            doc["name"] = ACTORS[index]
        self._property_doc(rng, doc, ("properties",))
        doc["content"]["bio"] = self.sentence(rng, 40)
        expressions = []
        if rng.random() < 0.3:
            target = f"attachment-{rng.randrange(self.g.attachments):05d}"
            expressions.append({"name": "default", "permalink": f"storyloom://image/{target}", "_id": target})
        doc["content"]["expressions"] = expressions

    def variable(self, rng: random.Random, doc: dict[str, Any], index: int) -> None:
        sid = self.sid(index)
        level, gold, name = rng.randrange(10), rng.randrange(100), rng.choice(WORDS)
        language = rng.choice(("yaml", "yaml", "hjson", "toml"))
        if language == "yaml":
            source = (f"# {self.sentence(rng, 6)}\n_sid: {sid}\nlevel: {level}\ngold: {gold}\nname: {name}\n"
                      "found: false\nspeed: 1.5\nstats:\n  hp: 10\n  tags: [a, b]\n")
        elif language == "hjson":
            source = (f"// {self.sentence(rng, 6)}\n_sid: {sid}\nlevel: {level}\ngold: {gold}\nname: {name}\n"
                      "found: false\nspeed: 1.5\nstats: {\n  hp: 10\n  tags: [\"a\", \"b\"]\n}\n")
        else:
            source = (f'# {self.sentence(rng, 6)}\n_sid = "{sid}"\nlevel = {level}\ngold = {gold}\n'
                      f'name = "{name}"\nfound = false\nspeed = 1.5\n[stats]\nhp = 10\ntags = ["a", "b"]\n')
        doc["editorLanguage"] = language
        doc["content"] = {"variables": source, "json": ""}

    def scenario(self, rng: random.Random, doc: dict[str, Any], index: int) -> None:
        count = min(3, self.layouts["Variable"].documents)
        chosen = {self.random_sid(rng) for _ in range(count)}
        source = "".join(
            f"{sid}: {{\n  level: {rng.randrange(10)}\n  found: true\n  stats: {{\n    hp: {rng.randrange(1, 20)}\n"
            "  }\n}\n"
            for sid in sorted(chosen)
        )
        doc["editorLanguage"] = "hjson"
        doc["content"] = {"scenario": f"// {self.sentence(rng, 5)}\n{source}", "json": ""}

    def scene(self, rng: random.Random, doc: dict[str, Any], index: int) -> None:
        items = []
        for _ in range(rng.randrange(2, 6)):
            if rng.random() < 0.6:
                items.append({"docId": self.random_id(rng, "Script"), "docType": "Script", "startLine": 1,
                              "startNode": None})
            else:
                items.append({"docId": self.random_id(rng, "Dialogue"), "docType": "Dialogue", "startLine": None,
                              "startNode": "n0"})
        doc["content"] = {"items": items}

    def grid(self, rng: random.Random, doc: dict[str, Any], index: int) -> None:
        doc["content"] = {
            "columns": [{"id": c, "title": c, "type": "text", "name": c, "width": 100} for c in ("id", "en", "es")],
            "data": [[f"loc_{index}_{k}", self.sentence(rng, 5), self.sentence(rng, 5)] for k in range(6)],
            "style": {},
            "meta": {},
            "comments": {},
            "worksheetName": "Sheet1",
        }

    def kanban(self, rng: random.Random, doc: dict[str, Any], index: int) -> None:
        doc["content"] = {
            "columns": [
                {
                    "id": c,
                    "title": c,
                    "cards": [
                        {"id": f"{c}{k}", "title": self.sentence(rng, 4), "tags": [],
                         "related": [self.random_id(rng, rng.choice(("Script", "Quest", "Dialogue")))]}
                        for k in range(3)
                    ],
                }
                for c in ("todo", "doing", "done")
            ],
            "template": None,
            "settings": {},
        }

    def canvas(self, rng: random.Random, doc: dict[str, Any], index: int) -> None:
        doc["content"] = {
            "nodes": [{"id": f"c{k}", "text": self.sentence(rng, 6), "x": k * 10, "y": k * 5} for k in range(6)],
            "edges": [{"id": f"ce{k}", "source": f"c{k}", "target": f"c{k + 1}"} for k in range(5)],
        }

    def map(self, rng: random.Random, doc: dict[str, Any], index: int) -> None:
        size = 16
        cells = {f"{rng.randrange(size)},{rng.randrange(size)}": {"type": rng.choice(["floor", "wall", "water"])}
                 for _ in range(30)}
        # Only the north and west sides of inner cells: no edge is named twice (as 3,4:N and 3,3:S).
        edges = {f"{rng.randrange(1, size)},{rng.randrange(1, size)}:{rng.choice('NW')}": {"type": "door"}
                 for _ in range(10)}
        doc["content"] = {
            "width": size,
            "height": size,
            "cells": cells,
            "edges": edges,
            "markers": {"spawn": {"x": 1, "y": 1}, "exit": {"x": size - 1, "y": size - 1}},
            "editor": {"zoom": 2, "tool": "cell"},
        }

    # -- planted problems ------------------------------------------------------------------------
    def plant(self, kind: str, doc: dict[str, Any]) -> None:
        if kind == "script-unknown-path":
            doc["content"]["script"] += "\n::Narrator:: The ${variables.planted_missing.level} is unknown."
        elif kind == "unknown-state":
            doc["content"]["scenario"] += "planted_missing: {\n  level: 1\n}\n"
        elif kind == "parse-error":
            doc["editorLanguage"] = "yaml"
            doc["content"]["item"] = "name: Broken\ntags: [unclosed\n"


# --------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=10_000)
    parser.add_argument("--plant", type=int, default=0, help="problems to plant on purpose")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--name", help="project name (default: generated-<docs>)")
    args = parser.parse_args(argv)
    from storyloom.project.manager import ProjectManager

    generated = generate(args.docs, seed=args.seed, plant=args.plant)
    project = ProjectManager(username="bench").create(args.name or f"generated-{args.docs}")
    try:
        seconds = generated.fill(project)
        print(f"{project.name}: {generated.count} documents written in {seconds:.1f}s "
              f"under {os.environ.get('STORYLOOM_HOME') or 'the default Storyloom home'}; "
              f"{generated.planted_total} problem(s) planted {generated.planted or ''}")
    finally:
        project.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
