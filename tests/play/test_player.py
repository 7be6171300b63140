"""The dialogue player on the built-in sample: scripted walks through "The Interview" (a choice
with port scripts, scripts with @if and @set, a condition node, a jump, an event, two endings),
checked line by line, from the Defaults, from Scenarios and from Live; step back, restart, the
changed variables, the position, and writing to Live."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from storyloom.app import AppOptions, Workspace
from storyloom.play.live_state import read_live
from storyloom.play.play_session import PlayError, PlaySession, expression_image, program_for, start_state
from storyloom.play.player import Player, PlayItem
from storyloom.project.sample import create_sample_project

OPENS = [
    "Tobias Marsh [defensive]: Ask what you like. I've nothing to hide.",
    "Wren Hale [determined]: Then you won't mind if I look around.",
]
LOGBOOK = [
    "> Ask about the logbook",
    '<ShowItem("keepers_logbook")>',
    "Wren Hale [determined]: The last page of the log is gone. Cut, not torn. Someone used a knife.",
]
CHOICES = ["Ask about the logbook", "Examine the wick", "Find Maud", "Take the morning boat"]
LIGHT_RESTORED = [
    '<CutTo("oil_store")>',
    '<PlaySound("door_forced", 1.0)>',
    "Wren Hale [shocked]: Miss Vane? Edda!",
]


@pytest.fixture
def session() -> Iterator[object]:
    workspace = Workspace(options=AppOptions(username="tester"))
    create_sample_project(workspace.manager, "Sample").close()
    opened = workspace.open_session("Sample")
    yield opened
    opened.close()
    workspace.close()


def _doc(session, doc_type: str, name: str) -> dict:  # type: ignore[no-untyped-def]
    summary = next(s for s in session.index.summaries() if s.type == doc_type and s.name == name)
    return session.db.get(summary.id)


def _interview(session, source: str = "defaults", scenario: str | None = None, **options) -> PlaySession:  # type: ignore[no-untyped-def]
    doc = _doc(session, "Dialogue", "The Interview")
    return PlaySession(session, program_for(doc), source=source, scenario=scenario, **options)


def _step(play: PlaySession) -> list[str]:
    return [entry.display() for entry in play.advance()]


def _choose(play: PlaySession, label: str) -> list[str]:
    labels = [choice.label for choice in play.player.choices()]
    return [entry.display() for entry in play.choose(labels.index(label))]


def test_a_walk_from_the_defaults_line_by_line(session) -> None:  # type: ignore[no-untyped-def]
    play = _interview(session)
    assert _step(play) == OPENS[:1]
    assert _step(play) == OPENS[1:]
    assert _step(play) == [] and play.player.waiting_for_choice
    assert [c.label for c in play.player.choices()] == CHOICES
    assert all(c.leads_on for c in play.player.choices())
    # The port script sets lastQuestion; the logbook script shows a command, then stops at speech.
    assert _choose(play, "Ask about the logbook") == LOGBOOK
    assert play.player.states["player"]["lastQuestion"] == "logbook"
    assert _step(play) == ["Tobias Marsh [nervous]: Edda cuts out the pages she blots. She's particular like that."]
    # @set island.clues.logbook and player.clues += 1, then ${v.player.clues} shown evaluated.
    assert _step(play) == ["Wren Hale [neutral]: That makes 1 things tonight that don't add up."]
    # The condition "v.player.clues >= 2" is false: the jump goes back to the choice.
    assert _step(play) == [] and play.player.waiting_for_choice
    assert play.player.position.node_label == "Where does Wren press?"
    # Maud's trust is 1 by default: the @else branch of the cove script.
    assert _choose(play, "Find Maud") == [
        "> Find Maud", '<CutTo("post_office")>',
        "Maud Pell [worried]: I saw a lantern down in Smugglers' Cove last night. Swinging, like a signal."]
    assert _step(play) == ["Wren Hale [neutral]: Did you see who held it?"]
    assert _step(play) == ["Maud Pell [worried]: Too dark, too far. Come back when I've had a think, love."]
    assert play.player.states["trust"]["maud"] == 1  # the @set after @endif has not run yet
    assert _step(play) == [] and play.player.waiting_for_choice
    assert play.player.states["trust"]["maud"] == 2
    assert _choose(play, "Take the morning boat") == [
        "> Take the morning boat", '<CutTo("gullrock_jetty")>',
        "Maud Pell [worried]: Going already? The boat won't wait for questions."]
    assert _step(play) == ["Wren Hale [neutral]: I'll file my report. The Board will send a new keeper."]
    assert _step(play) == ["<FadeOut(4)>", "Narrator: Behind the boat the tower stands dark. Beneath it, in the "
                                           "oil store, someone is still knocking."]
    assert _step(play) == ["= End: The Dark Tide"]
    assert play.player.finished and _step(play) == []
    changed = {c.path: c.texts() for c in play.player.changes()}
    assert changed == {"island.clues.logbook": ("false", "true"), "player.clues": ("0", "1"),
                       "player.lastQuestion": ('""', '"boat"'), "trust.maud": ("1", "2")}
    assert not [e for e in play.player.entries if e.kind == "problem"]


def test_the_good_ending_and_its_event(session) -> None:  # type: ignore[no-untyped-def]
    play = _interview(session)
    play.play_on()
    _choose(play, "Ask about the logbook")
    play.play_on()
    assert _choose(play, "Examine the wick") == [
        "> Examine the wick", '<ShowItem("trimmed_wick")>',
        "Wren Hale [shocked]: This wick has been cut down to nothing. No lamp burns on that."]
    play.play_on()
    shown = [e.display() for e in play.player.entries]
    assert shown[-6:] == [
        "Tobias Marsh [ashamed]: They said nobody would drown. They said she'd only run aground.",
        "Edda Vane [relieved]: They always say that, lad.",
        "<FadeOut(3)>",
        "Narrator: The lamp of Gullrock burns again, and the sea remembers where the rocks are.",
        "* lamp_relit",
        "= End: The Light Restored",
    ]
    states = play.player.states
    assert states["island"]["lampLit"] is True and states["player"]["accusation"] == "Tobias Marsh"
    assert states["trust"]["tobias"] == 1  # @set v.trust.tobias -= 1 in the wick script
    # The session's defaults are untouched, and nothing was written to Live.
    assert session.index.states()["player"]["clues"] == 0
    assert not read_live(session.db).exists


def test_a_scenario_changes_the_walk(session) -> None:  # type: ignore[no-untyped-def]
    midpoint = _doc(session, "Scenario", "Midpoint: two clues found")
    play = _interview(session, "scenario", midpoint["_id"])
    assert play.start.label == "Midpoint: two clues found" and play.problems == []
    assert play.player.states["player"]["clues"] == 2
    play.play_on()
    assert _choose(play, "Ask about the logbook") == LOGBOOK
    _step(play)
    assert _step(play) == ["Wren Hale [neutral]: That makes 3 things tonight that don't add up."]
    # Three clues: the condition is true, the good ending follows at once.
    assert _step(play) == LIGHT_RESTORED
    assert {c.path: c.texts() for c in play.player.changes()}["player.clues"] == ("2", "3")

    maud = _doc(session, "Scenario", "Maud trusts the inspector")
    play.set_source("scenario", maud["_id"])
    assert play.player.entries == [] and play.player.states["trust"]["maud"] == 3
    play.play_on()
    _choose(play, "Find Maud")
    assert _step(play) == ["Wren Hale [neutral]: Did you see who held it?"]
    assert _step(play) == ["Maud Pell [warm]: I saw his coat. Board blue, with the brass buttons."]
    assert _step(play) == ["Maud Pell [warm]: Two people on this rock wear that coat, and one of them is missing."]
    assert _step(play) == [] and play.player.waiting_for_choice  # one clue only: keep asking
    assert play.player.states["island"]["clues"]["coveLantern"] is True
    assert play.player.states["trust"]["maud"] == 4


def test_step_back_and_restart_restore_the_state(session) -> None:  # type: ignore[no-untyped-def]
    play = _interview(session)
    play.play_on()
    _choose(play, "Ask about the logbook")
    _step(play)
    _step(play)
    assert play.player.states["player"]["clues"] == 1
    position = play.player.position
    assert position.line == 7 and position.node_label == "The logbook"
    script = session.db.get(position.script)
    assert script["name"] == "The logbook"
    assert script["content"]["script"].splitlines()[6].startswith("[#log_003]")
    assert play.step_back()
    assert play.player.states["player"]["clues"] == 0
    assert play.player.entries[-1].display().startswith("Tobias Marsh [nervous]")
    assert play.player.position.line == 4
    assert play.step_back() and play.step_back()
    assert play.player.waiting_for_choice and play.player.states["player"]["lastQuestion"] == ""
    play.restart()
    assert play.player.entries == [] and not play.player.can_step_back
    assert _step(play) == OPENS[:1]


def test_play_from_a_node_and_from_a_line(session) -> None:  # type: ignore[no-untyped-def]
    doc = _doc(session, "Dialogue", "The Interview")
    wick = next(n["id"] for n in doc["content"]["tree"]["nodes"] if n["data"]["label"] == "The wick")
    play = PlaySession(session, program_for(doc, node=wick))
    assert _step(play) == ['<ShowItem("trimmed_wick")>',
                           "Wren Hale [shocked]: This wick has been cut down to nothing. No lamp burns on that."]
    lamp = _doc(session, "Script", "02 The Lamp Room")
    play = PlaySession(session, program_for(lamp, line=13))
    assert _step(play) == ["Wren Hale [determined]: And yet the lamp went out."]
    # ${} in a text line, after the @set before it.
    assert _step(play) == ["It is 20 o'clock. The tide is rising."]
    assert play.player.states["island"]["lampRoomVisited"] is True
    assert _step(play) == ["= The end"] and play.player.finished


def test_the_live_state_as_a_source_and_as_a_target(session) -> None:  # type: ignore[no-untyped-def]
    assert start_state(session, "live").label.startswith("Live (not stored")
    play = _interview(session, write_to_live=True)
    play.play_on()
    _choose(play, "Ask about the logbook")
    assert read_live(session.db).states["player"]["lastQuestion"] == "logbook"
    play.play_on()
    assert read_live(session.db).states["player"]["clues"] == 1
    play.step_back()  # the step to the choice
    play.step_back()  # the line shown after @set clues += 1
    assert read_live(session.db).states["player"]["clues"] == 0
    play.play_on()
    second = _interview(session, "live")
    assert second.start.label == "Live" and second.player.states["player"]["clues"] == 1
    second.play_on()
    _choose(second, "Ask about the logbook")
    second.play_on()
    assert second.player.states["player"]["clues"] == 2  # played on from Live
    assert read_live(session.db).states["player"]["clues"] == 1  # a scratch copy: Live unchanged
    with pytest.raises(PlayError, match="choose a scenario"):
        start_state(session, "scenario", "missing")


def test_scenes_play_their_items_in_order(session) -> None:  # type: ignore[no-untyped-def]
    scene = _doc(session, "Scene", "Night one")
    play = PlaySession(session, program_for(scene))
    assert _step(play) == ["# 01 Arrival", '<CutTo("gullrock_jetty")>',
                           '<PlayMusic("low_tide", 0.4)>', "<FadeIn(1.5)>",
                           "Narrator: The lamp of Gullrock has been dark for a night and a day."]
    assert _step(play) == ["Wren Hale [determined]: Wren Hale, Lighthouse Board. I'm here about the lamp."]
    play.play_on()
    shown = [e.display() for e in play.player.entries]
    assert "Maud Pell [worried]: Mind the steps. In weather like this they're slick as eels." in shown
    assert "# 02 The Lamp Room" in shown and "# The Interview" in shown
    assert "It is 21 o'clock. The tide is rising." in shown  # the @set of the first script carried on
    assert play.player.waiting_for_choice


def test_expression_images(session) -> None:  # type: ignore[no-untyped-def]
    image = expression_image(session, "Maud Pell", "worried")
    assert image is not None and session.db.get(image)["type"] == "Attachment"
    assert expression_image(session, "maud pell", "WARM") not in (None, image)  # names ignore case
    assert expression_image(session, "Maud Pell", None) is None  # no "default" expression
    assert expression_image(session, "Maud Pell", "furious") is None
    assert expression_image(session, "Nobody", "worried") is None


# ---------------------------------------------------------------------------------- without a project
def _graph(nodes: list[dict], edges: list[tuple[str, str, str]]) -> dict:
    def node(node_id: str, kind: str, outs: list[str], **data: object) -> dict:
        handles = [{"id": "in", "type": "target", "label": "In"}] + [
            {"id": label, "type": "source", "label": label} for label in outs]
        return {"id": node_id, "position": {"x": 0, "y": 0}, "type": "base",
                "data": {"label": node_id, "nodeType": kind, "handles": handles, **data}}

    built = [node(**spec) for spec in nodes]
    return {"_id": "d", "type": "Dialogue", "name": "Test", "content": {"tree": {
        "nodes": built,
        "edges": [{"id": f"e{i}", "source": s, "sourceHandle": h, "target": t, "targetHandle": "in"}
                  for i, (s, h, t) in enumerate(edges)]}}}


def _lines(text: str) -> dict:
    return {"_id": "s", "type": "Script", "name": "S", "content": {"script": text}}


STATES = {"p": {"_sid": "p", "mood": "calm", "gold": 3, "flags": {"met": False}}}


def _play(docs: dict, program: list[PlayItem], **kwargs) -> Player:  # type: ignore[no-untyped-def]
    return Player(program, STATES, STATES, docs.get, **kwargs)


def test_switch_nodes_and_nested_ifs() -> None:
    dialogue = _graph([
        {"node_id": "start", "kind": "start", "outs": ["Out"]},
        {"node_id": "sw", "kind": "switch", "outs": ["'calm'", "'angry'", "default"], "switch": "v.p.mood"},
        {"node_id": "calm", "kind": "script", "outs": [], "scriptId": "s"},
        {"node_id": "angry", "kind": "end", "outs": []},
        {"node_id": "other", "kind": "return", "outs": []},
    ], [("start", "Out", "sw"), ("sw", "'calm'", "calm"), ("sw", "'angry'", "angry"), ("sw", "default", "other")])
    script = _lines("@if v.p.gold > 2\n  @if v.p.flags.met\n    met\n  @else\n    ::A:: Hi ${v.p.gold}!\n"
                    "  @endif\n  @set v.p.flags.met = true\n@else\n  poor\n@endif\n::A:: Bye [sad]\n")
    player = _play({"d": dialogue, "s": script}, [PlayItem("d", "Dialogue")])
    assert [e.display() for e in player.play_on()] == ["A: Hi 3!", "A [sad]: Bye",
                                                     "! nothing leads on from 'calm': the dialogue stops here",
                                                     "= The end"]
    assert player.states["p"]["flags"]["met"] is True
    angry = {**STATES, "p": {**STATES["p"], "mood": "angry"}}
    player = Player([PlayItem("d", "Dialogue")], angry, STATES, {"d": dialogue, "s": script}.get)
    assert [e.display() for e in player.play_on()] == ["= angry"]
    odd = {**STATES, "p": {**STATES["p"], "mood": "odd"}}
    player = Player([PlayItem("d", "Dialogue")], odd, STATES, {"d": dialogue, "s": script}.get)
    assert [e.display() for e in player.play_on()] == ["= other"]


def test_problems_never_stop_the_player() -> None:
    script = _lines("@if v.p.nope\nskipped\n@endif\n@set v.p.gold += 'x'\nGold: ${v.p.gold + 'x'}\nafter\n")
    player = _play({"s": script}, [PlayItem("s", "Script")])
    shown = [e.display() for e in player.play_on()]
    assert shown[0].startswith("! @if v.p.nope:") and "taken as false" in shown[0]
    assert shown[1].startswith("! @set v.p.gold += 'x':")
    assert shown[2].startswith("! Gold: ${v.p.gold + 'x'}:") and shown[3] == "Gold: ${v.p.gold + 'x'}"
    assert shown[4:] == ["after", "= The end"]


def test_a_loop_without_lines_stops() -> None:
    dialogue = _graph([
        {"node_id": "start", "kind": "start", "outs": ["Out"]},
        {"node_id": "a", "kind": "jump", "outs": [], "jumpTo": "b"},
        {"node_id": "b", "kind": "jump", "outs": [], "jumpTo": "a"},
    ], [("start", "Out", "a")])
    player = _play({"d": dialogue}, [PlayItem("d", "Dialogue")], max_steps=50)
    shown = [e.display() for e in player.advance()]
    assert "loop" in shown[0] and shown[-1] == "= The end" and player.finished


def test_missing_documents_and_nodes() -> None:
    dialogue = _graph([{"node_id": "start", "kind": "start", "outs": ["Out"], "scriptId": "gone"}],
                      [("start", "Out", "nowhere")])
    player = _play({"d": dialogue}, [PlayItem("x", "Script"), PlayItem("d", "Dialogue"),
                                     PlayItem("d", "Dialogue", start_node="zz")])
    shown = [e.display() for e in player.play_on()]
    assert shown == ["# x", "! the script 'x' of this play does not exist",
                     "# Test", "! the node 'start' links a script that does not exist",
                     "! the link out of 'start' leads to a node that does not exist",
                     "# Test", "! the node 'zz' is not in the dialogue 'Test'", "= The end"]
    with pytest.raises(IndexError):
        player.choose(0)


def test_choice_labels_are_interpolated_without_side_effects() -> None:
    dialogue = _graph([
        {"node_id": "start", "kind": "start", "outs": ["Out"]},
        {"node_id": "ask", "kind": "choice", "outs": ["Pay ${v.p.gold} gold", "Pay ${v.p.nope}"]},
        {"node_id": "end", "kind": "end", "outs": []},
    ], [("start", "Out", "ask"), ("ask", "Pay ${v.p.gold} gold", "end")])
    dialogue["content"]["tree"]["nodes"][1]["data"]["handles"][1]["portScript"] = "@set v.p.gold -= 1\n::A:: Paid."
    player = _play({"d": dialogue}, [PlayItem("d", "Dialogue")])
    assert player.advance() == [] and player.waiting_for_choice
    for _ in range(3):  # asking again adds nothing to the transcript
        assert [c.label for c in player.choices()] == ["Pay 3 gold", "Pay ${v.p.nope}"]
    assert player.entries == [] and not player.choices()[1].leads_on
    assert [e.display() for e in player.choose(0)] == ["> Pay 3 gold", "A: Paid."]
    assert player.states["p"]["gold"] == 2
    assert [e.display() for e in player.advance()] == ["= end"]
