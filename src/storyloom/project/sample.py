"""The built-in sample project, "The Lighthouse Keeper": something for a new user to open.

:func:`create_sample_project` builds a new project and writes a short mystery with two endings
into it, through the project's editor (the one write gate), using every collection: design
pages, scripts, a dialogue graph, actors with expression images, quests, items, misc,
variables, scenarios, a scene, a grid, a kanban board, a canvas and a map, with folders,
export mappings and project settings. The text lives in :mod:`storyloom.project.sample_content`.

The sample is built in a staging folder (:meth:`ProjectManager.staging`): if any write fails,
nothing is left behind. Every write must come back without a warning; one that does not is a
bug of the sample and fails the build (:class:`SampleError`), and so does a script that
:func:`storyloom.script.parse_script` finds a problem in.
"""

from __future__ import annotations

import base64
import struct
import zlib
from typing import Any

from storyloom.errors import StoryloomError
from storyloom.project import content as typed
from storyloom.project import sample_content as text
from storyloom.project.collections import EXPORT_NAMES
from storyloom.project.dialogue_graph import script_preview
from storyloom.project.dialogue_layout import layered_layout, node_geometry
from storyloom.project.documents import EDITOR_MODES, new_id, permalink
from storyloom.project.editor import Editor, WriteResult
from storyloom.project.manager import Project, ProjectManager
from storyloom.project.settings import (
    COMMAND_MAPPING,
    DEFAULT_SCREENPLAY,
    INTERPOLATE,
    SPEECH_MAPPING,
    default_settings,
)
from storyloom.script import parse_script

SAMPLE_NAME = "The Lighthouse Keeper"
SAMPLE_DESCRIPTION = (
    "A sample mystery with two endings: the lamp of Gullrock has gone dark and its keeper is "
    "missing. Every collection holds an example to open and change."
)

# Export mappings of the sample (Godot-style calls), for the scripts' language and GDScript.
SPEECH_TEMPLATE = 'dialogue.say("%actor", "%speech", "%expression", "%tag")'
COMMAND_TEMPLATE = "commands.%command(%params)"


class SampleError(StoryloomError):
    """The sample could not be written as designed (a bug of the sample, not of the user)."""

    code = "sample_failed"


def png_image(rgb: tuple[int, int, int], size: int = 16) -> bytes:
    """A tiny PNG: a square of colour ``rgb`` with a darker frame (an expression placeholder)."""
    dark = bytes(max(0, c - 60) for c in rgb)
    fill = bytes(rgb)
    rows = []
    for y in range(size):
        edge = y in (0, size - 1)
        row = b"".join(dark if edge or x in (0, size - 1) else fill for x in range(size))
        rows.append(b"\x00" + row)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(b"".join(rows), 9)) + chunk(b"IEND", b""))


def create_sample_project(manager: ProjectManager, name: str = SAMPLE_NAME, *,
                          description: str | None = None) -> Project:
    """Create the project ``name`` holding the sample story; returns it open.

    Raises the manager's errors for a name that is taken or invalid; a failed write leaves no
    project behind."""
    name = manager.check_new_name(name)
    with manager.staging(None, name) as project:
        settings = default_settings(name, SAMPLE_DESCRIPTION if description is None else description,
                                    project_id=project.id)
        _accept(project.editor.create_settings(settings))
        write_sample(project.editor)
    return project


def write_sample(editor: Editor) -> list[WriteResult]:
    """Write the sample's documents and settings through ``editor``; returns every write."""
    return _SampleWriter(editor).write()


def _accept(result: WriteResult) -> WriteResult:
    if result.warnings:
        raise SampleError(f"the sample document {result.id!r} was written with warnings: "
                          + "; ".join(str(w) for w in result.warnings))
    return result


class _SampleWriter:
    def __init__(self, editor: Editor) -> None:
        self.editor = editor
        self.results: list[WriteResult] = []
        self.ids: dict[str, str] = {}

    def create(self, doc_type: str, name: str, key: str | None = None, **fields: Any) -> str:
        result = _accept(self.editor.create(doc_type, name, **fields))
        self.results.append(result)
        if key:
            self.ids[key] = result.id
        return result.id

    def folder(self, collection: str, name: str, key: str | None = None, **fields: Any) -> str:
        return self.create("Folder", name, key, collection=collection, **fields)

    def image(self, name: str, rgb: tuple[int, int, int], notes: str) -> str:
        data = base64.b64encode(png_image(rgb)).decode("ascii")
        return self.create("Attachment", name, mimeType="image/png", content={"notes": notes},
                           _attachments={"blob": {"content_type": "image/png", "data": data}})

    def write(self) -> list[WriteResult]:
        self.settings()
        self.variables()
        self.scripts()
        self.dialogue()
        self.scene()
        self.actors()
        self.quests_items_misc()
        self.design()
        self.boards()
        self.island_map()
        return self.results

    # -- settings ------------------------------------------------------------------------------

    def settings(self) -> None:
        modes = {mode: "" for mode in EDITOR_MODES}
        mappings = {
            SPEECH_MAPPING: modes | {"text": SPEECH_TEMPLATE, "gdscript": SPEECH_TEMPLATE},
            COMMAND_MAPPING: modes | {"text": COMMAND_TEMPLATE, "gdscript": COMMAND_TEMPLATE},
            INTERPOLATE: False,
        }
        result = self.editor.update_settings({
            "projectVersion": "1.0",
            "defaultEditorLanguage": "hjson",
            "defaultScriptEditorMode": "text",
            "exportSections": list(EXPORT_NAMES),
            "exportMappings": mappings,
            "screenPlay": dict(DEFAULT_SCREENPLAY),
        })
        self.results.append(_accept(result))

    # -- variables and scenarios ---------------------------------------------------------------

    def variables(self) -> None:
        state = self.folder("Variable", "State")
        for name, language, source in (("Player", "yaml", text.PLAYER_VARIABLES),
                                       ("Island", "hjson", text.ISLAND_VARIABLES),
                                       ("Trust", "toml", text.TRUST_VARIABLES)):
            self.create("Variable", name, parent=state, editorLanguage=language,
                        content={"variables": source, "json": ""})
        for name, language, source in (("Midpoint: two clues found", "hjson", text.SCENARIO_MIDPOINT),
                                       ("Maud trusts the inspector", "yaml", text.SCENARIO_MAUD_TRUSTS),
                                       ("A calm night", "hjson", text.SCENARIO_CALM_NIGHT)):
            self.create("Scenario", name, editorLanguage=language, content={"scenario": source, "json": ""})

    # -- scripts -------------------------------------------------------------------------------

    def scripts(self) -> None:
        act1 = self.folder("Script", "Act 1: Gullrock")
        self.create("Script", "01 Arrival", "arrival", parent=act1, alias="arrival",
                    content={"script": text.SCRIPT_ARRIVAL})
        self.create("Script", "02 The Lamp Room", "lamp_room", parent=act1, alias="lamp",
                    content={"script": text.SCRIPT_LAMP_ROOM})
        lines = self.folder("Script", "Interview lines", "interview_lines", isDialogueScriptFolder=True)
        for key, name, source in (
            ("opens", "Tobias opens", text.SCRIPT_INTERVIEW_OPENS),
            ("logbook", "The logbook", text.SCRIPT_LOGBOOK),
            ("wick", "The wick", text.SCRIPT_WICK),
            ("cove", "Maud and the cove", text.SCRIPT_COVE),
            ("light", "Ending: The Light Restored", text.SCRIPT_LIGHT_RESTORED),
            ("dark", "Ending: The Dark Tide", text.SCRIPT_DARK_TIDE),
        ):
            self.create("Script", name, key, parent=lines, isDialogueScript=True, content={"script": source})
        states = typed.collect_states(r.doc for r in self.results if r.doc.get("type") == "Variable")
        for result in self.results:
            if result.doc.get("type") == "Script":
                problems = parse_script(result.doc["content"]["script"], known_state=states).problems
                if problems:
                    raise SampleError(f"the sample script {result.doc['name']!r} has problems: "
                                      + "; ".join(f"line {p.line}: {p.code}: {p.message}" for p in problems))

    # -- the dialogue graph --------------------------------------------------------------------

    def dialogue(self) -> None:
        graph = _Graph()
        start = graph.node("start", "Start", 0, 200, ins=[], outs=["Out"])
        opens = graph.node("script", "Tobias opens", 200, 200, script=self.ids["opens"])
        choice = graph.node("choice", "Where does Wren press?", 440, 200, outs=[
            ("Ask about the logbook", '@set v.player.lastQuestion = "logbook"'),
            ("Examine the wick", '@set v.player.lastQuestion = "wick"'),
            ("Find Maud", '@set v.player.lastQuestion = "cove"'),
            ("Take the morning boat", '@set v.player.lastQuestion = "boat"'),
        ], notes="Each question may add a clue; the boat ends the night at once.")
        logbook = graph.node("script", "The logbook", 720, 40, script=self.ids["logbook"])
        wick = graph.node("script", "The wick", 720, 180, script=self.ids["wick"])
        cove = graph.node("script", "Maud and the cove", 720, 320, script=self.ids["cove"])
        condition = graph.node("condition", "Enough evidence?", 980, 180, outs=["True", "False"],
                               condition="v.player.clues >= 2")
        again = graph.node("jump", "Keep asking", 1220, 320, outs=[], jump_to=choice)
        light = graph.node("script", "The Light Restored", 1220, 60, script=self.ids["light"])
        relit = graph.node("event", "Lamp relit", 1460, 60, event="lamp_relit")
        end_light = graph.node("end", "End: The Light Restored", 1700, 60, outs=[])
        dark = graph.node("script", "The Dark Tide", 720, 480, script=self.ids["dark"])
        end_dark = graph.node("end", "End: The Dark Tide", 980, 480, outs=[])
        graph.link(start, opens)
        graph.link(opens, choice)
        graph.link(choice, logbook, "Ask about the logbook")
        graph.link(choice, wick, "Examine the wick")
        graph.link(choice, cove, "Find Maud")
        graph.link(choice, dark, "Take the morning boat")
        for clue in (logbook, wick, cove):
            graph.link(clue, condition)
        graph.link(condition, light, "True")
        graph.link(condition, again, "False")
        graph.link(light, relit)
        graph.link(relit, end_light)
        graph.link(dark, end_dark)
        act2 = self.folder("Dialogue", "Act 2")
        self.create("Dialogue", "The Interview", "interview", parent=act2, alias="interview",
                    dialogueScriptFolderID=self.ids["interview_lines"], content={"tree": self.laid_out(graph.tree())})
        self.ids["interview_start"] = start["id"]

    def laid_out(self, tree: dict[str, Any]) -> dict[str, Any]:
        """The graph placed as the dialogue editor's Auto layout places it (each script node's
        box as tall as the first lines it shows)."""
        shown = {r.id: len(script_preview(r.doc["content"]["script"])) for r in self.results
                 if r.doc.get("type") == "Script"}
        boxes = {n["id"]: node_geometry(n, shown.get(n["data"]["scriptId"])) for n in tree["nodes"]}
        for node_id, (x, y) in layered_layout(tree, boxes).items():
            next(n for n in tree["nodes"] if n["id"] == node_id)["position"] = {"x": x, "y": y}
        return tree

    def scene(self) -> None:
        items = [
            {"docId": self.ids["arrival"], "docType": "Script", "startLine": 1, "startNode": None},
            {"docId": self.ids["lamp_room"], "docType": "Script", "startLine": 1, "startNode": None},
            {"docId": self.ids["interview"], "docType": "Dialogue", "startLine": None,
             "startNode": self.ids["interview_start"]},
        ]
        self.create("Scene", "Night one", "scene", content={"items": items},
                    comments="The whole story in play order: two scripts, then the interview.")

    # -- actors --------------------------------------------------------------------------------

    def actors(self) -> None:
        cast = self.folder("Actor", "Islanders")
        for name, alias, bio, language, properties, expressions in text.ACTORS:
            listed = []
            for expression, rgb in expressions:
                image = self.image(f"{alias}_expression_{expression}", rgb,
                                   f"placeholder for {name}'s {expression} portrait")
                listed.append({"name": expression, "permalink": permalink(image), "_id": image})
            parent = None if alias in ("wren", "narrator") else cast
            self.create("Actor", name, f"actor_{alias}", parent=parent, alias=alias, editorLanguage=language,
                        content={"bio": bio, "properties": properties, "expressions": listed})

    # -- quests, items, misc -------------------------------------------------------------------

    def quests_items_misc(self) -> None:
        for name, language, properties, conditions, notes in text.QUESTS:
            content = {"properties": properties, "conditions": conditions}
            if notes:
                content["notes"] = notes
            self.create("Quest", name, editorLanguage=language, content=content)
        evidence = self.folder("Item", "Evidence")
        for name, language, item, is_evidence in text.ITEMS:
            self.create("Item", name, parent=evidence if is_evidence else None, editorLanguage=language,
                        content={"item": item})
        for name, language, properties in text.MISC:
            self.create("Misc", name, editorLanguage=language, content={"properties": properties})

    # -- design pages --------------------------------------------------------------------------

    def design(self) -> None:
        island_art = self.image("gullrock_concept", (70, 90, 110), "concept art placeholder: Gullrock at dusk")
        design = self.folder("Gdd", "Design")
        ids = {key: new_id() for key in ("overview", "characters", "solution")}
        ids["island_art"] = island_art
        self.ids["island_art"] = island_art
        for key, name, page in (("overview", "Overview", text.GDD_OVERVIEW),
                                ("characters", "Characters", text.GDD_CHARACTERS),
                                ("solution", "The Solution", text.GDD_SOLUTION)):
            self.create("Gdd", name, key, parent=None if key == "overview" else design, doc_id=ids[key],
                        editor="markdown", content={"gdd": page.format(**ids)})

    # -- grid, kanban, canvas ------------------------------------------------------------------

    def boards(self) -> None:
        columns = [
            {"id": "clue", "title": "Clue", "type": "text", "name": "clue", "width": 130},
            {"id": "where", "title": "Found", "type": "text", "name": "where", "width": 175},
            {"id": "points", "title": "Points", "type": "number", "name": "points", "width": 82, "mask": "0"},
            {"id": "script", "title": "Script", "type": "document", "name": "script", "width": 150},
            {"id": "kind", "title": "Kind", "type": "dropdown", "name": "kind", "width": 100,
             "source": ["Object", "Testimony", "Place"]},
            {"id": "solved", "title": "Solved", "type": "checkbox", "name": "solved", "width": 80},
            {"id": "key", "title": "Key clue", "type": "radio", "name": "key", "width": 90},
            {"id": "logged", "title": "Logged", "type": "calendar", "name": "logged", "width": 105},
            {"id": "pin", "title": "Pin", "type": "color", "name": "pin", "width": 100},
        ]
        data = [
            ["The logbook", "Lamp room desk, last page cut out", "1", self.ids["logbook"], "Object", True, False,
             "1896-11-02", "#c2410c"],
            ["The wick", "The lamp itself, trimmed to a stub", "1", self.ids["wick"], "Object", True, True,
             "1896-11-02", "#ca8a04"],
            ["The cove lantern", "Maud, if she trusts Wren (trust.maud >= 2)", "1", self.ids["cove"], "Testimony",
             False, False, "1896-11-03", "#2563eb"],
        ]
        self.create("Grid", "Clue ledger", content={"columns": columns, "data": data, "worksheetName": "Clues",
                                                     "style": {"A1": "font-weight: bold"}, "meta": {}})

        def card(title: str, description: str, tags: list[str], related: list[str],
                 completed: bool = False, assigned: str = "", due: str = "",
                 checklist: list[dict[str, Any]] | None = None) -> dict[str, Any]:
            return {"id": new_id(), "type": "card", "title": title, "description": description, "tags": tags,
                    "related": related, "completed": completed, "dueDate": due, "assigned": assigned,
                    "checklist": checklist or []}

        board = [
            {"id": "todo", "title": "To do", "cards": [
                card("Record Maud's lines", "Bea Kowalski, session 2.", ["Audio"], [self.ids["cove"]],
                     due="2027-03-01"),
                card("Paint final portraits", "Replace the coloured placeholder squares.", ["Art"],
                     [self.ids["actor_tobias"], self.ids["actor_maud"]]),
            ]},
            {"id": "doing", "title": "Writing", "cards": [
                card("Polish The Dark Tide", "The last line should land harder.", ["Writing"],
                     [self.ids["dark"]], assigned="wren", checklist=[
                         {"id": "c1", "text": "Read it aloud", "done": True},
                         {"id": "c2", "text": "Cut the last sentence in half", "done": False},
                         {"id": "c3", "text": "Check it against The Solution", "done": False}]),
            ]},
            {"id": "done", "title": "Done", "cards": [
                card("Interview graph", "Three clues, one condition, two endings.", ["Design"],
                     [self.ids["interview"]], completed=True),
            ]},
        ]
        self.create("Kanban", "Production", content={"columns": board, "template": "writing",
                                                     "settings": {"showCompleted": True}})

        def note(node_id: str, x: int, y: int, body: str, **data: Any) -> dict[str, Any]:
            return {"id": node_id, "type": "note", "position": {"x": x, "y": y}, "width": 220, "height": 90,
                    "data": {"text": body, **data}}

        nodes = [
            note("lamp", 0, 0, "**The lamp went dark** last night.", color="yellow"),
            note("tobias", -150, 170, "Tobias: was alone in the tower.", docId=self.ids["actor_tobias"]),
            note("maud", 150, 170, "Maud: saw a lantern in the cove.", docId=self.ids["actor_maud"]),
            note("edda", -150, 340, "Edda: where is she?", docId=self.ids["actor_edda"]),
            # a group comes before its nodes, whose positions are relative to it
            {"id": "island", "type": "group", "position": {"x": 160, "y": 310}, "width": 248, "height": 352,
             "data": {"label": "The island"}},
            {"id": "overview", "type": "document", "position": {"x": 24, "y": 268}, "width": 200, "height": 60,
             "parentId": "island", "data": {"docId": self.ids["overview"], "docType": "Gdd"}},
            {"id": "art", "type": "image", "position": {"x": 24, "y": 52}, "width": 200, "height": 200,
             "parentId": "island", "data": {"docId": self.ids["island_art"], "caption": "Gullrock at dusk"}},
        ]
        edges = [
            {"id": "e1", "source": "lamp", "target": "tobias", "label": "had the keys"},
            {"id": "e2", "source": "lamp", "target": "maud", "label": "watched it go out"},
            {"id": "e3", "source": "tobias", "target": "edda", "label": "last to see her"},
            {"id": "e4", "source": "maud", "target": "art", "label": "the cove"},
        ]
        self.create("Canvas", "Suspect board", content={"nodes": nodes, "edges": edges,
                                                        "viewport": {"x": 0, "y": 0, "zoom": 1}})

    # -- the map -------------------------------------------------------------------------------

    def island_map(self) -> None:
        rows = text.MAP_ROWS
        cells: dict[str, dict[str, Any]] = {}
        found: dict[str, tuple[int, int]] = {}
        for y, row in enumerate(rows):
            for x, char in enumerate(row):
                if char in text.MAP_LEGEND:
                    cells[f"{x},{y}"] = dict(text.MAP_LEGEND[char])
                    found.setdefault(char, (x, y))
        (lx, ly), (ox, oy), (px, py) = found["L"], found["o"], found["P"]
        (jx, jy), (cx, cy) = found["J"], found["c"]
        edges = {
            f"{lx},{ly}:S": {"type": "door", "locked": False},
            f"{ox},{oy}:W": {"type": "door", "locked": True, "key": "keepers_key"},
            f"{px},{py}:N": {"type": "door", "locked": False},
            f"{cx},{cy}:N": {"type": "cliff_path", "steep": True},
        }
        markers = {
            "spawn": {"x": jx, "y": jy, "facing": "E"},
            "lighthouse": {"x": lx, "y": ly},
            "oil_store": {"x": ox, "y": oy},
            "post_office": {"x": px, "y": py},
            "cove_lantern": {"x": cx, "y": cy},
        }
        self.create("Map", "Gullrock", content={
            "width": len(rows[0]), "height": len(rows), "cells": cells, "edges": edges, "markers": markers,
            "properties": {"tileset": "gullrock", "ambient": "storm_wind", "default": "water"},
            "editor": {"zoom": 2, "tool": "cell", "layers": {"grid": True}},
        })


class _Graph:
    """A dialogue graph being drawn: nodes with In/Out handles, edges by handle label."""

    def __init__(self) -> None:
        self.nodes: list[dict[str, Any]] = []
        self.edges: list[dict[str, Any]] = []

    def node(self, node_type: str, label: str, x: int, y: int, *, script: str | None = None,
             ins: list[str] | None = None, outs: list[Any] | None = None, notes: str = "",
             **extra: Any) -> dict[str, Any]:
        handles = [{"id": new_id(), "type": "target", "label": label_}
                   for label_ in (["In"] if ins is None else ins)]
        for out in ["Out"] if outs is None else outs:
            label_, port = out if isinstance(out, tuple) else (out, None)
            handle = {"id": new_id(), "type": "source", "label": label_}
            if port:
                handle["portScript"] = port
            handles.append(handle)
        data: dict[str, Any] = {"label": label, "nodeType": node_type, "notes": notes, "metadata": [],
                                "related": [], "scriptId": script, "handles": handles}
        if "jump_to" in extra:
            data["jumpTo"] = extra.pop("jump_to")["id"]
        data.update(extra)
        node = {"id": new_id(), "position": {"x": x, "y": y}, "type": "base", "data": data}
        self.nodes.append(node)
        return node

    @staticmethod
    def _handle(node: dict[str, Any], kind: str, label: str) -> str:
        handle_id: str = next(h["id"] for h in node["data"]["handles"] if h["type"] == kind and h["label"] == label)
        return handle_id

    def link(self, source: dict[str, Any], target: dict[str, Any], label: str = "Out") -> None:
        self.edges.append({
            "id": new_id(),
            "source": source["id"], "sourceHandle": self._handle(source, "source", label),
            "target": target["id"], "targetHandle": self._handle(target, "target", "In"),
        })

    def tree(self) -> dict[str, Any]:
        return {"nodes": self.nodes, "edges": self.edges}
