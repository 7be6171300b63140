"""The worked examples of docs/for-game-programmers.md (examples/python, examples/node), run as a game
programmer runs them: subprocesses against a served Garden sample, output asserted line by line.

Every subprocess has a timeout, so a broken example fails a test instead of hanging it.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.api.support import GARDEN, KEY, Harness, running_server
from tests.export.validators import check_schema, errors
from tests.support.fixtures import REPO_ROOT
from tests.support.node import node_binary

PYTHON_EXAMPLE = REPO_ROOT / "examples" / "python" / "storyloom_client.py"
NODE_EXAMPLE = REPO_ROOT / "examples" / "node" / "storyloom_client.mjs"
LANGUAGES = ["python", "node"]
DEADLINE = 30.0  # seconds, for any one run of an example

FIRST_MEETING = "65ab1326-7cf6-4214-9405-980709a00648"
OPENING_SCENE = "c983210f-b367-4c78-904c-e617b57dd4cc"
GARDEN_MEETING = "c666fdb3-4952-41c7-babd-7da5c27df20f"
WORLD_VARIABLE = "2adb3acb-dc30-460e-915b-012e26a9ef38"
SPEECH_MAPPING = '%actor.Say("%speech", "%expression", "%tag")'


def command(language: str, *args: str) -> list[str]:
    if language == "python":
        return [sys.executable, str(PYTHON_EXAMPLE), *args]
    return [node_binary(), str(NODE_EXAMPLE), *args]


def environment(url: str, key: str = KEY) -> dict[str, str]:
    return {**os.environ, "STORYLOOM_API_URL": url, "STORYLOOM_API_KEY": key}


def run(language: str, api: Harness, *args: str, key: str = KEY) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command(language, *args), capture_output=True, text=True, encoding="utf-8",
                          timeout=DEADLINE, env=environment(api.url, key), cwd=REPO_ROOT)


def output(language: str, api: Harness, *args: str) -> list[str]:
    result = run(language, api, *args)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    return result.stdout.splitlines()


def import_garden(root: Path) -> Any:
    from storyloom.drafft import import_backup
    from storyloom.project.manager import ProjectManager

    if not GARDEN.exists():
        pytest.fail(f"Drafft sample data missing: {GARDEN}")
    project, _report = import_backup(ProjectManager(root, username="tester"), GARDEN, name="Garden")
    return project


@pytest.fixture(scope="module")
def garden_api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Harness]:
    """The Garden sample as imported, served (read-only tests share it)."""
    project = import_garden(tmp_path_factory.mktemp("garden"))
    try:
        with running_server(project) as harness:
            yield harness
    finally:
        project.close()


@pytest.fixture(scope="module")
def mapped_api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Harness]:
    """The Garden sample with a speech export mapping for `text` scripts, a script with a tag and an
    expression, and a dialogue whose two nodes use the same handle id (legal: ids are per node)."""
    project = import_garden(tmp_path_factory.mktemp("mapped"))
    editor = project.editor
    mappings = editor.settings()["exportMappings"]
    mappings["speechExportMapping"]["text"] = SPEECH_MAPPING
    editor.update_settings({"exportMappings": mappings})
    editor.create("Script", "Tagged greeting", doc_id="tagged-greeting", editorMode="text", content={
        "script": "[#greet_01] ::Woman:: You finally came. [warm]\n::Player:: Have we met?"})
    handle = "h"  # the same handle id on both nodes: an edge end is (node id, handle id)
    editor.create("Dialogue", "Same handle ids", doc_id="same-handles", content={"tree": {
        "nodes": [
            {"id": "n-start", "type": "base", "position": {"x": 0, "y": 0},
             "data": {"label": "Begin", "nodeType": "start", "scriptId": "tagged-greeting",
                      "handles": [{"id": handle, "type": "source", "label": "Out"}]}},
            {"id": "n-end", "type": "base", "position": {"x": 200, "y": 0},
             "data": {"label": "Done", "nodeType": "end",
                      "handles": [{"id": handle, "type": "target", "label": "In"}]}},
        ],
        "edges": [
            {"id": "e-good", "source": "n-start", "sourceHandle": handle, "target": "n-end", "targetHandle": handle},
            {"id": "e-backwards", "source": "n-end", "sourceHandle": handle,
             "target": "n-start", "targetHandle": handle},
        ]}})
    try:
        with running_server(project) as harness:
            yield harness
    finally:
        project.close()


@pytest.fixture
def writable_api(tmp_path: Path) -> Iterator[Harness]:
    """A Garden of its own for a test that writes (heartbeat 0.5 s, so keep-alives keep coming)."""
    project = import_garden(tmp_path / "projects")
    try:
        with running_server(project, heartbeat=0.5) as harness:
            yield harness
    finally:
        project.close()


# -- lines -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("language", LANGUAGES)
def test_lines_lists_every_speech_line_with_actor_tag_and_expression(language, garden_api):
    lines = output(language, garden_api, "lines", "First Meeting")
    assert lines[0] == f'script "First Meeting" ({FIRST_MEETING})'
    assert lines[1] == "  line 1 Woman: You finally came.  [tag null, expression null]"
    assert lines[2] == "  line 2 Player: I... have we met before?  [tag null, expression null]"
    assert "  line 5 Narrator: She smiles slightly. You walked toward her without hesitation.  " \
           "[tag null, expression null]" in lines
    script = next(s for s in garden_api.get("/game-export?collections=Scripts").json()["scripts"]
                  if s["_id"] == FIRST_MEETING)
    speech = [line for line in script["content"]["lines"] if line["type"] == "speech"]
    assert [row.split(":")[0].strip() for row in lines[1:]] == [f"line {x['line']} {x['actor']}" for x in speech]
    assert not any("mapped:" in row for row in lines)  # the sample sets no export mapping
    by_id = output(language, garden_api, "lines", FIRST_MEETING)
    assert by_id == lines


@pytest.mark.parametrize("language", LANGUAGES)
def test_lines_show_the_mapped_line_when_export_mappings_are_set(language, mapped_api):
    lines = output(language, mapped_api, "lines", "Tagged greeting")
    assert lines == [
        'script "Tagged greeting" (tagged-greeting)',
        '  line 1 Woman: You finally came.  [tag "greet_01", expression "warm"]',
        '    mapped: Woman.Say("You finally came.", "warm", "greet_01")',
        "  line 2 Player: Have we met?  [tag null, expression null]",
        '    mapped: Player.Say("Have we met?", "", "")',
    ]
    sample = output(language, mapped_api, "lines", "First Meeting")
    assert sample[1:3] == ["  line 1 Woman: You finally came.  [tag null, expression null]",
                           '    mapped: Woman.Say("You finally came.", "", "")']


@pytest.mark.parametrize("language", LANGUAGES)
def test_lines_report_api_errors_with_their_reason(language, garden_api):
    wrong_key = run(language, garden_api, "lines", "First Meeting", key="not-the-key")
    assert wrong_key.returncode != 0
    assert "/game-export: 401 unauthorized: missing or wrong API key" in wrong_key.stderr
    unknown = run(language, garden_api, "lines", "No such script")
    assert unknown.returncode != 0
    assert "no script 'No such script'" in unknown.stderr


# -- walk --------------------------------------------------------------------------------------------------

OPENING_WALK = [
    f'dialogue "1 - Opening Scene" ({OPENING_SCENE})',
    'node 05d67e2b-4b87-41f7-9960-bab3055a7991 start "Begin"',
    '  next "Out" -> 455ec268-2ac4-4cdb-a7b1-f222f940fab8',
    'node 455ec268-2ac4-4cdb-a7b1-f222f940fab8 script "Enter the garden"',
    "  Narrator: The garden is quiet. Leaves drift like tired memories.",
    "  Narrator: A woman waits by the fountain, watching you approach.",
    "  Narrator: She looks both familiar and strange.",
    '  next "Out" -> 14fd3568-c108-4e9f-ba51-73872d6e28a5',
    'node 14fd3568-c108-4e9f-ba51-73872d6e28a5 choice "Opening Scene - Choice"',
    '  choice "Approach cautiously" -> 48bf7585-7cfe-486e-9448-27843a4a167f',
    '  choice "Walk forward openly" -> 48bf7585-7cfe-486e-9448-27843a4a167f',
    '  choice "Observe from distance" -> 48bf7585-7cfe-486e-9448-27843a4a167f',
    'node 48bf7585-7cfe-486e-9448-27843a4a167f end "End"',
]


@pytest.mark.parametrize("language", LANGUAGES)
def test_walk_follows_a_dialogue_from_its_start_node(language, garden_api):
    assert output(language, garden_api, "walk", "1 - Opening Scene") == OPENING_WALK


@pytest.mark.parametrize("language", LANGUAGES)
def test_walk_visits_every_node_once_and_prints_every_edge(language, garden_api):
    lines = output(language, garden_api, "walk", GARDEN_MEETING)
    dialogue = next(d for d in garden_api.get("/game-export?collections=Dialogues").json()["dialogues"]
                    if d["_id"] == GARDEN_MEETING)
    tree = dialogue["content"]["tree"]
    visited = [row.split()[1] for row in lines if row.startswith("node ")]
    assert sorted(visited) == sorted(n["id"] for n in tree["nodes"])  # each once, all reachable
    assert sum(" -> " in row for row in lines) == len(tree["edges"])
    assert '  choice "Tell me directly" -> 71fb34fd-' in "\n".join(lines)
    assert "  Woman: You finally came." in lines  # the script linked to "A familiar stranger"


@pytest.mark.parametrize("language", LANGUAGES)
def test_walk_resolves_edge_ends_by_node_and_handle(language, mapped_api):
    assert output(language, mapped_api, "walk", "Same handle ids") == [
        'dialogue "Same handle ids" (same-handles)',
        'node n-start start "Begin"',
        "  Woman: You finally came.",
        "  Player: Have we met?",
        '  next "Out" -> n-end',
        'node n-end end "Done"',
        "  dangling edge e-backwards",  # it leaves from n-end's handle "h", which is a target
    ]


# -- state -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("language", LANGUAGES)
def test_state_applies_a_scenario_to_the_defaults(language, garden_api):
    assert output(language, garden_api, "state", "player") == [
        "state player (defaults)", '  _sid = "player"', '  approach = "Unknown"', "  courage = 5", "  empathy = 5",
        "  gold = 20", "  intuition = 5", "  memories_count = 0", "  memory_echo_encountered = false",
        "  memory_locket_found = false"]
    brave = output(language, garden_api, "state", "player", "--scenario", "Courageous Explorer")
    assert brave[0] == 'state player (scenario "Courageous Explorer")'
    assert "  courage = 8  (default 5)" in brave
    assert "  gold = 35  (default 20)" in brave
    assert "  intuition = 5" in brave  # overridden with its default value: no note
    assert '  approach = "Unknown"' in brave  # not overridden
    reluctant = output(language, garden_api, "state", "woman", "--scenario", "b1c26996-1589-4d74-aae2-173d88ca9b1f")
    assert reluctant[0] == 'state woman (scenario "Reluctant Visitor")'
    assert "  remembers_player = false  (default true)" in reluctant
    assert '  mood = "distant"  (default "neutral")' in reluctant
    assert "  final_gift_ready = false" in reluctant


# -- validate ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("language", LANGUAGES)
def test_validate_checks_the_export_and_saves_what_a_full_validator_then_accepts(language, garden_api, tmp_path):
    assert output(language, garden_api, "validate", "--save", str(tmp_path)) == [
        "0 problems in what this client reads"]
    schema = json.loads((tmp_path / "schema.json").read_text("utf-8"))
    export = json.loads((tmp_path / "export.json").read_text("utf-8"))
    assert export["_meta"]["projectName"] == "Garden"
    assert schema == garden_api.get("/schema-export", params={
        "collections": ",".join(export["_meta"]["collections"])}).json()
    check_schema(schema)  # jsonschema and ajv both compile it
    assert errors(schema, export) == set()  # and both find the export the example checked valid


class TamperedApi:
    """A stand-in for the API that serves a hand-broken copy of the real export beside the real schema."""

    def __init__(self, export: dict[str, Any], schema: dict[str, Any]) -> None:
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        bodies = {"/game-export": export, "/schema-export": schema}

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                body = json.dumps(bodies[self.path.split("?")[0]]).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.mark.parametrize("language", LANGUAGES)
def test_validate_reports_what_the_schema_forbids(language, garden_api):
    export = garden_api.get("/game-export").json()
    schema = garden_api.get("/schema-export").json()
    script = next(s for s in export["scripts"] if s["_id"] == FIRST_MEETING)
    del script["content"]["lines"][0]["actor"]
    scenario = next(s for s in export["scenarios"] if s["name"] == "Courageous Explorer")
    scenario["content"]["scenario"]["player"]["bravery"] = 9
    export["_meta"]["formatVersion"] = 3
    fake = TamperedApi(export, schema)
    try:
        result = subprocess.run(command(language, "validate"), capture_output=True, text=True, timeout=DEADLINE,
                                env=environment(fake.url))
    finally:
        fake.server.shutdown()
        fake.server.server_close()
    assert result.returncode == 1, result.stderr
    assert result.stdout.splitlines() == [
        "problem: _meta.formatVersion is 3, the schema says 2",
        f'problem: script {FIRST_MEETING} line 1: no "actor"',
        f"problem: scenario {scenario['_id']}: player.bravery is no known state property",
        "3 problems in what this client reads",
    ]
    assert errors(schema, export) == {  # jsonschema and ajv agree, at the same places
        (("_meta", "formatVersion"), "const"),
        (("scripts", export["scripts"].index(script), "content", "lines", 0), "required"),
        (("scenarios", export["scenarios"].index(scenario), "content", "scenario", "player"), "additionalProperties"),
    }


# -- follow ------------------------------------------------------------------------------------------------


class Follower:
    """`follow` as a subprocess whose output lines are read by a thread (a read never blocks the test)."""

    def __init__(self, language: str, api: Harness, *args: str) -> None:
        self.process = subprocess.Popen(command(language, "follow", *args), stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True, encoding="utf-8",
                                        env=environment(api.url), cwd=REPO_ROOT)
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        assert self.process.stdout is not None
        stdout = self.process.stdout
        threading.Thread(target=lambda: [self.lines.put(line.rstrip("\n")) for line in stdout], daemon=True).start()

    def next_line(self) -> str:
        try:
            self.seen.append(self.lines.get(timeout=DEADLINE))
        except queue.Empty:
            self.process.kill()
            raise AssertionError(f"`follow` printed nothing more after {self.seen}") from None
        return self.seen[-1]

    def finish(self) -> list[str]:
        """Every line it printed, up to `last-event-id N` (its last), after it exits 0."""
        while not (self.seen and self.seen[-1].startswith("last-event-id ")):
            self.next_line()
        assert self.process.wait(timeout=DEADLINE) == 0, self.process.stderr.read() if self.process.stderr else ""
        return self.seen


def events(lines: list[str]) -> list[tuple[int, str, str]]:
    """(seq, collection, doc id) of each `event` line."""
    return [(int(row.split()[1]), row.split()[2], row.split()[3]) for row in lines if row.startswith("event ")]


@pytest.mark.parametrize("language", LANGUAGES)
def test_follow_reloads_what_changed_and_resumes_after_a_dropped_connection(language, writable_api):
    editor = writable_api.project.editor
    first = Follower(language, writable_api, "--max-events", "3", "--timeout", "20")
    assert first.next_line() == "connected (Last-Event-ID: none)"
    # While it follows: a new script, a new item, and a variable's default (scenarios depend on it).
    editor.create("Script", "Hot reload greeting", doc_id="hot-script",
                  content={"script": "::Woman:: Welcome back."})
    editor.create("Item", "Silver locket", doc_id="hot-item", content={"item": "weight: 1"})
    world = editor.get(WORLD_VARIABLE)
    editor.patch(WORLD_VARIABLE, {"content": {"variables": world["content"]["variables"].replace("dusk", "night")}})
    before = first.finish()
    assert before[0] == "connected (Last-Event-ID: none)"
    assert [(c, i) for _, c, i in events(before)] == [
        ("Script", "hot-script"), ("Item", "hot-item"), ("Variable", WORLD_VARIABLE)]
    assert '  reloaded Scripts: "Hot reload greeting"' in before
    assert '  reloaded Items: "Silver locket"' in before
    assert '  reloaded Scripts,Variables,Scenarios: "world"' in before
    last = before[-1].removeprefix("last-event-id ")
    assert last == str(events(before)[-1][0])

    # The connection is gone; the project changes meanwhile: a deletion and the settings.
    editor.delete("hot-item")
    mappings = editor.settings()["exportMappings"]
    mappings["speechExportMapping"]["text"] = SPEECH_MAPPING
    editor.update_settings({"exportMappings": mappings})

    second = Follower(language, writable_api, "--last-event-id", last, "--max-events", "2", "--timeout", "20")
    after = second.finish()
    assert after[0] == f"connected (Last-Event-ID: {last})"
    assert [(c, i) for _, c, i in events(after)] == [("Item", "hot-item"), ("-", "ProjectSettings")]
    assert any(row.startswith("event ") and row.endswith(" deleted") for row in after)
    assert "  reloaded Items" in after  # the deleted item is gone from the reloaded collection
    assert any(row.startswith("  reloaded Scripts,Dialogues,Actors") for row in after)  # settings: everything
    seqs = [seq for seq, _, _ in events(before) + events(after)]
    assert seqs == sorted(set(seqs)) and seqs[3] > int(last)  # nothing twice, nothing out of order
    assert after[-1] == f"last-event-id {seqs[-1]}"
