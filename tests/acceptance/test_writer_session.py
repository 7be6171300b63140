"""A writer's session, as a real process on a real (virtual) desktop.

The app runs under Xvfb with the openbox window manager; every key and click is a real X event
sent by xdotool, at a writer's typing pace. The session creates a project; writes a Variables
document and a script with ``@if``/``@else``/``@endif``, speech lines and a command; builds a
five-node dialogue from the palette (Start, Script, Choice, Event, End), links it by dragging
from port to port, writes text on its nodes in the side panel (the choice's options and port
script, the event's name) and links the script; plays it in the player window through a choice,
writing the play to the Live state; prints the script as a screenplay (File > Print, Ctrl+Alt+P,
to a .fountain file); saves, closes the app, opens it again and finds it all. After the app has
ended, the test reads the project's store through storyloom's Qt-free API.

Where a click lands is asked of the app's read-only probe (``probe.py``, by object name), so the
test follows layout changes; what the session does is only keys and clicks.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from storyloom.play.variable_rows import LIVE_STATE_ID
from storyloom.project import ProjectManager
from storyloom.script import parse_script
from tests.acceptance.desktop import App, Desktop, wait_for

pytestmark = [pytest.mark.integration, pytest.mark.slow]

PROJECT = "Lighthouse"
VARIABLES_NAME = "Harbour"
VARIABLES = "_sid: harbour\nlamp_lit: false\nasked: false"
SCRIPT_NAME = "Harbour at dusk"
SCRIPT = """// The harbour at dusk
::Mara:: The lamp is out again. [worried]
@if v.harbour.lamp_lit
::Keeper:: I lit it an hour ago.
@else
::Keeper:: Then we climb before the ships come in.
@endif
<FadeOut(1)>"""
DIALOGUE_NAME = "Night watch"
ASK, LEAVE = "Ask about the lamp", "Leave her to it"
PORT_SCRIPT = "@set v.harbour.asked = true"
EVENT = "lamp_relit"
#: Where each node goes, as a fraction of the graph's viewport (the palette's corner and the
#: middle, where the palette drops a new node, stay free).
SLOTS = {"start": (0.28, 0.14), "script": (0.60, 0.14), "choice": (0.28, 0.80), "event": (0.60, 0.80),
         "end": (0.86, 0.46)}
PALETTE_TITLES = {"start": "Start", "script": "Script", "choice": "Choice", "event": "Event", "end": "End"}


def center(rect: list[int]) -> tuple[int, int]:
    return rect[0] + rect[2] // 2, rect[1] + rect[3] // 2


class Writer:
    """The session's steps: what a writer does with keys and the mouse, and what they wait to see."""

    def __init__(self, screen: Desktop, app: App) -> None:
        self.screen = screen
        self.app = app

    def replace_text(self, name: str, text: str, *, commit: str | None = None, nth: int = 0) -> None:
        """Click the field ``name`` (the ``nth`` shown), select all, type ``text`` (and ``commit``)."""
        fields = wait_for(f"{nth + 1} field(s) {name!r}", lambda: len(f := self.app.widgets(name)) > nth and f)
        self.screen.click(*center(fields[nth]["rect"]))
        wait_for(f"the focus in {name!r}", lambda: self.app.focused()["name"] == name)
        self.screen.key("ctrl+a")
        self.screen.type(text)
        if commit:
            self.screen.key(commit)

    def tabs(self) -> list[str]:
        shown = self.app.widgets("documentTabs")
        return shown[0]["tabs"] if shown else []

    def new_document(self, rail_key: str, collection: str, title: str) -> None:
        """Go to ``collection`` (its Alt+N), add a document with the tree's +, name it in its title."""
        self.screen.key(rail_key)
        wait_for(f"the {collection} tree", lambda: self.app.widget("explorerTitle")["text"] == collection.upper())
        count = len(self.tabs())
        self.app.click_widget("newDocument")
        wait_for("the new document's tab", lambda: len(self.tabs()) == count + 1)
        self.replace_text("docTitle", title, commit="Return")
        wait_for(f"the tab named {title!r}", lambda: title in self.tabs())

    def zoom_out(self, times: int) -> None:
        """Zoom the graph out with the toolbar's shortcut (Ctrl+-), once per step seen."""
        for _ in range(times):
            level = self.app.widget("zoomLevel")["text"]
            self.screen.key("ctrl+minus")
            wait_for("the graph zoomed out", lambda was=level: self.app.widget("zoomLevel")["text"] != was)

    def palette_add(self, node_type: str) -> dict[str, Any]:
        """Click the palette's entry; wait for the new node; drag it by its title to its slot."""
        before = {n["id"] for n in self.graph()["nodes"]}
        entry = wait_for(f"the palette's {node_type}", lambda: next(
            (i for i in self.app.ask("items", name="nodePalette") if i["text"] == PALETTE_TITLES[node_type]), None))
        self.screen.click(*center(entry["rect"]))
        node = wait_for(f"a new {node_type} node", lambda: next(
            (n for n in self.graph()["nodes"] if n["id"] not in before and n["type"] == node_type), None))
        viewport = self.graph()["viewport"]
        fx, fy = SLOTS[node_type]
        target = (round(viewport[0] + viewport[2] * fx), round(viewport[1] + viewport[3] * fy))
        self.screen.drag(tuple(node["title"]), target)
        return wait_for(f"the {node_type} node at its place", lambda: next(
            (n for n in self.graph()["nodes"] if n["id"] == node["id"]
             and abs(n["title"][0] - target[0]) < 40 and abs(n["title"][1] - target[1]) < 40), None))

    def graph(self) -> dict[str, Any]:
        return wait_for("the dialogue graph", lambda: self.app.ask("graph"))

    def node(self, node_type: str) -> dict[str, Any]:
        return next(n for n in self.graph()["nodes"] if n["type"] == node_type)

    def link(self, source: str, output: int, target: str) -> None:
        """Drag from ``source``'s output ``output`` to ``target``'s input; wait for the link."""
        links = self.graph()["edges"]
        start = self.node(source)["outputs"][output]["point"]
        end = next(iter(self.node(target)["inputs"].values()))
        self.screen.drag(tuple(start), tuple(end), steps=16)
        wait_for(f"the link {source} -> {target}", lambda: self.graph()["edges"] == links + 1)

    def play_until(self, done: Callable[[], object], what: str, steps: int = 20) -> None:
        """Press Space (the player's Continue) until ``done()``, waiting for each line to show."""
        for _ in range(steps):
            if done():
                return
            shown = self.app.widget("playerTranscript")["text"]
            self.screen.key("space")
            wait_for("the next line", lambda was=shown: done() or self.app.widget("playerTranscript")["text"] != was)
        assert done(), f"{what} never came: {self.app.widget('playerTranscript')['text']}"

    def select_node(self, node_type: str) -> None:
        """Click the node: its title, or the middle of its part in view when the view has
        scrolled its title away (a new node scrolls the view to itself)."""
        graph = self.graph()
        node = next(n for n in graph["nodes"] if n["type"] == node_type)
        vx, vy, vw, vh = graph["viewport"]
        x, y, w, h = node["rect"]
        left, top, right, bottom = max(x, vx), max(y, vy), min(x + w, vx + vw), min(y + h, vy + vh)
        assert left < right and top < bottom, f"the {node_type} node is out of view: {node}, {graph['viewport']}"
        tx, ty = node["title"]
        inside = left <= tx < right and top <= ty < bottom
        self.screen.click(*(node["title"] if inside else ((left + right) // 2, (top + bottom) // 2)))
        wait_for(f"the {node_type} node in the side panel",
                 lambda: self.node(node_type)["selected"] and self.app.widgets("nodeLabel"))


def store_docs(project: str) -> dict[str, dict[str, Any]]:
    """Every document of ``project`` by id (read after the app has ended)."""
    with ProjectManager().open(project) as opened:
        db = opened.db
        return {row["id"]: db.get(row["id"]) for row in db.all_docs()["rows"]} | {
            LIVE_STATE_ID: db.get(LIVE_STATE_ID)}


def test_a_writers_session(screen: Desktop, storyloom_home: Path, tmp_path: Path) -> None:
    started = time.monotonic()
    log = tmp_path / "app.log"
    with App(screen, storyloom_home, log).running(tmp_path) as app:
        me = Writer(screen, app)
        # -- a new project, from the project manager
        screen.focus(screen.find_window("^Projects — Storyloom$", timeout=60))
        screen.key("ctrl+n")
        screen.find_window("^New project$")
        wait_for("the name field focused", lambda: app.focused() == {"name": "", "class": "QLineEdit",
                                                                     "window": "New project"})
        screen.type(PROJECT)
        screen.key("Return")
        row = wait_for("the new project in the list", lambda: next(
            (r for r in app.ask("items", name="project-table") if r["text"] == PROJECT), None))
        screen.click(*center(row["rect"]), double=True)
        window = screen.find_window(f"^{PROJECT} — Storyloom$", timeout=60)
        screen.maximize(window)  # room for the graph
        screen.focus(window)

        # -- the variables the script reads
        me.new_document("alt+7", "Variables", VARIABLES_NAME)
        me.replace_text("variablesText", VARIABLES)

        # -- a script, typed line by line (completion must not eat an Enter)
        me.new_document("alt+2", "Scripts", SCRIPT_NAME)
        me.replace_text("codeEditor", SCRIPT)
        wait_for("the script as typed", lambda: app.widget("codeEditor")["text"] == SCRIPT)
        screen.key("ctrl+s")

        # -- a five-node dialogue from the palette, linked by dragging port to port
        me.new_document("alt+3", "Dialogues", DIALOGUE_NAME)
        me.zoom_out(times=2)
        for node_type in ("start", "script", "choice", "event", "end"):
            me.palette_add(node_type)
        me.link("start", 0, "script")
        me.link("script", 0, "choice")
        me.link("choice", 0, "event")
        me.link("choice", 1, "end")
        me.link("event", 0, "end")

        # -- text written on the nodes, in the side panel
        me.select_node("choice")
        me.replace_text("portLabel", ASK, commit="Return", nth=0)
        me.replace_text("portScript", PORT_SCRIPT, commit="Return", nth=0)
        me.replace_text("portLabel", LEAVE, commit="Return", nth=1)
        wait_for("the options on the node", lambda: [o["label"] for o in me.node("choice")["outputs"]] == [ASK, LEAVE])
        me.select_node("event")
        me.replace_text("node_event", EVENT, commit="Return")
        me.select_node("script")
        app.click_widget("scriptChoice")
        screen.key("Down", "Return")  # the popup's first script: the only one
        wait_for("the script linked", lambda: app.widget("scriptChoice")["text"] == SCRIPT_NAME)
        screen.key("ctrl+s")
        screen.screenshot(tmp_path / "graph.png")  # what was built, for a reader of a failed run

        # -- play it through the choice, writing to the Live state
        me.select_node("start")
        screen.key("F5")
        player = screen.find_window(f"^Play: {DIALOGUE_NAME}")
        screen.focus(player)
        app.click_widget("writeToLive")
        wait_for("Write to Live on", lambda: app.widget("writeToLive")["checked"])
        screen.focus(player)
        me.play_until(lambda: app.widgets("choiceButton"), "the choices")
        choices = [b["text"] for b in app.widgets("choiceButton")]
        assert any(ASK in text for text in choices), choices
        screen.key("1")
        wait_for("the choice played", lambda: ASK in app.widget("playerTranscript")["text"])
        me.play_until(lambda: EVENT in app.widget("playerTranscript")["text"], "the event")
        screen.screenshot(tmp_path / "player.png")
        transcript = app.widget("playerTranscript")["text"]
        assert "Then we climb before the ships come in." in transcript, transcript
        assert "I lit it an hour ago." not in transcript, transcript
        assert EVENT in transcript, transcript
        screen.key("Escape")
        wait_for("the player closed", lambda: not screen.window_ids("^Play: "))

        # -- print the script as a screenplay: Quick Open brings it forward, Ctrl+Alt+P prints it
        screen.focus(screen.find_window(f"^{PROJECT} — Storyloom$"))
        screen.key("ctrl+p")
        wait_for("Quick Open", lambda: app.focused()["name"] == "quickOpenQuery")
        screen.type(SCRIPT_NAME)
        screen.key("Return")
        wait_for("the script's tab in front", lambda: (shown := app.widgets("documentTabs"))
                 and shown[0]["tabs"][shown[0]["current"]] == SCRIPT_NAME)
        screen.key("ctrl+alt+p")
        screen.focus(screen.find_window("^Print / Export Document$"))
        screenplay = tmp_path / "harbour.fountain"
        me.replace_text("printOutput", str(screenplay), commit="Return")
        wait_for("the screenplay written", lambda: screenplay.exists()
                 and "Wrote" in app.widget("printMessage")["text"])
        printed = screenplay.read_text(encoding="utf-8")
        assert "MARA" in printed and "KEEPER" in printed, printed
        assert "(worried)" in printed and "Then we climb before the ships come in." in printed, printed
        assert "ELSE" in printed, printed
        screen.key("Escape")
        wait_for("the print dialog closed", lambda: not screen.window_ids("^Print / Export Document$"))

        # -- close the app (the project window, then the manager)
        screen.focus(screen.find_window(f"^{PROJECT} — Storyloom$"))
        screen.key("ctrl+shift+w")
        screen.focus(screen.find_window("^Projects — Storyloom$"))
        screen.key("ctrl+q")
        assert app.wait_exit() == 0, app.log()

    # -- and open it again: the project, its tabs and the graph are there
    with App(screen, storyloom_home, log).running(tmp_path) as again:
        screen.focus(screen.find_window("^Projects — Storyloom$", timeout=60))
        screen.key("ctrl+r")
        screen.focus(screen.find_window(f"^{PROJECT} — Storyloom$", timeout=60))
        tabs = wait_for("the open tabs restored", lambda: Writer(screen, again).tabs())
        assert {VARIABLES_NAME, SCRIPT_NAME, DIALOGUE_NAME} <= set(tabs), tabs
        screen.key("ctrl+shift+w")
        screen.focus(screen.find_window("^Projects — Storyloom$"))
        screen.key("ctrl+q")
        assert again.wait_exit() == 0, again.log()
    assert "Traceback" not in log.read_text(), log.read_text()

    # -- what the store holds
    docs = store_docs(PROJECT)
    by_name = {doc.get("name"): doc for doc in docs.values() if doc is not None}
    script = by_name[SCRIPT_NAME]
    assert script["content"]["script"] == SCRIPT
    parsed = parse_script(script["content"]["script"])
    assert parsed.ok, parsed.problems
    assert [line.kind for line in parsed.lines] == ["comment", "speech", "if", "speech", "else", "speech", "endif",
                                                     "command"]
    assert "_sid: harbour" in by_name[VARIABLES_NAME]["content"]["variables"]
    tree = by_name[DIALOGUE_NAME]["content"]["tree"]
    nodes = {node["data"]["nodeType"]: node for node in tree["nodes"]}
    assert sorted(nodes) == ["choice", "end", "event", "script", "start"], tree["nodes"]
    assert nodes["script"]["data"]["scriptId"] == script["_id"]
    assert nodes["event"]["data"]["event"] == EVENT
    options = [h for h in nodes["choice"]["data"]["handles"] if h["type"] == "source"]
    assert [(h["label"], h.get("portScript")) for h in options] == [(ASK, PORT_SCRIPT), (LEAVE, None)], options
    links = {(e["source"], e["target"]) for e in tree["edges"]}
    ids = {kind: node["id"] for kind, node in nodes.items()}
    assert links == {(ids["start"], ids["script"]), (ids["script"], ids["choice"]), (ids["choice"], ids["event"]),
                     (ids["choice"], ids["end"]), (ids["event"], ids["end"])}, tree["edges"]
    live = docs[LIVE_STATE_ID]
    assert live is not None and live["states"]["harbour"]["asked"] is True, live
    elapsed = time.monotonic() - started
    print(f"\nthe writer's session took {elapsed:.0f} s")
