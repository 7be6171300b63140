"""Parse every script of the Drafft sample projects (read in place from ../shared/fixtures)."""

from __future__ import annotations

import copy
from collections import Counter

import pytest

from storyloom.script import (
    CommandLine,
    ElseLine,
    EndIfLine,
    IfLine,
    SetLine,
    SpeechLine,
    apply_set,
    evaluate,
    interpolate,
    parse_script,
    render_mapping,
)
from tests.script.drafft_samples import GARDEN, PROJECTS, port_scripts, project_files, scripts, variables_state


def garden_scripts() -> dict[str, str]:
    """``{script name: text}`` of the garden sample (its names are unique)."""
    if not GARDEN.exists():
        pytest.fail(f"{GARDEN} not found: ../shared/fixtures must sit beside the repository")
    return {name: text for name, text in scripts(GARDEN).values()}


# ----------------------------------------------------------------------------- every sample


@pytest.mark.parametrize("relative", [p.relative_to(PROJECTS).as_posix() for p in sorted(PROJECTS.glob("**/*.json"))])
def test_no_sample_script_has_a_problem(relative: str) -> None:
    path = PROJECTS / relative
    found = {}
    for doc_id, (name, text) in scripts(path).items():
        parsed = parse_script(text)
        if parsed.problems:
            found[(doc_id, name)] = parsed.problems
        for line in parsed.lines:
            assert line.to_dict()["line"] == line.line
    assert found == {}


def test_every_sample_file_was_seen() -> None:
    names = [p.relative_to(PROJECTS).as_posix() for p in project_files()]
    assert names == [
        "v1/one-bullet.json",
        "v1/the-goddess-of-fate.partially-migrated.json",
        "v1/the-goddess-of-fate.v1.json",
        "v2/tgof.json",
        "v2/tgof_v1.0.21.json",
        "v2/tgof_v1.json",
        "v2/the-garden-of-fading-memories.json",
    ]
    assert [len(scripts(PROJECTS / n)) for n in names] == [11, 35, 35, 35, 35, 35, 9]


def kinds_of(path) -> Counter:
    counts: Counter = Counter()
    for _name, text in scripts(path).values():
        counts.update(line.kind for line in parse_script(text).lines)
    return counts


@pytest.mark.parametrize(
    ("relative", "kinds"),
    [
        ("v1/one-bullet.json", {"speech": 24, "command": 20, "comment": 19, "text": 3}),
        ("v1/the-goddess-of-fate.v1.json", {"speech": 474, "command": 13, "comment": 4}),
        ("v2/tgof.json", {"speech": 501, "command": 15, "comment": 6}),
        ("v2/the-garden-of-fading-memories.json",
         {"speech": 47, "if": 20, "else": 14, "endif": 20, "set": 29, "comment": 3}),
    ],
)  # fmt: skip
def test_line_kind_counts(relative: str, kinds: dict) -> None:
    path = PROJECTS / relative
    if not path.exists():
        pytest.fail(f"{path} not found: ../shared/fixtures must sit beside the repository")
    assert dict(kinds_of(path)) == kinds


# ----------------------------------------------------------------------------- v1 and tgof specifics


def test_one_bullet_tags_commands_and_text() -> None:
    path = PROJECTS / "v1" / "one-bullet.json"
    if not path.exists():
        pytest.fail(f"{path} not found: ../shared/fixtures must sit beside the repository")
    lines = [line for _name, text in scripts(path).values() for line in parse_script(text).lines]
    tagged = [(line.tag, line.actor, line.text, line.expression) for line in lines if getattr(line, "tag", None)]
    assert tagged == [
        ("edger_5Avk", "Rodney", "Never!", "angry"),
        ("edger_oh80", "Bella", "Not today, I've got stuff to do.", None),
        ("flax_PDba", "Rodney", "My trusted tool.", None),
        ("flax_GGun", "Rodney", "This helps me get in and out of the job faster.", None),
        ("ounce_lMcE", "Rodney", "I only use it in case of emergencies.", None),
        ("ounce_aatn", "Rodney", "I've never actually shot someone.", None),
        ("trout_p0xI", "Rodney", "I don't want to shoot her.", None),
    ]
    commands = Counter(line.name for line in lines if isinstance(line, CommandLine))
    assert commands == {
        "Animate": 10, "FadeIn": 2, "CutTo": 2, "LocateActor": 2,
        "CloseOn": 1, "DefaultView": 1, "FadeOut": 1, "Wait": 1,
    }  # fmt: skip
    locate = [line.params for line in lines if isinstance(line, CommandLine) and line.name == "LocateActor"]
    assert locate == [["rodney", "bedroom"], ["bella", "bedroom"]]
    texts = [line.text for line in lines if line.kind == "text"]
    assert texts == ["if player == 'Rodney':", "if player == 'Bella':", "You can edit here, the script:"]


def test_tgof_commands_expressions_and_leading_brackets() -> None:
    path = PROJECTS / "v2" / "tgof.json"
    if not path.exists():
        pytest.fail(f"{path} not found: ../shared/fixtures must sit beside the repository")
    lines = [line for _name, text in scripts(path).values() for line in parse_script(text).lines]
    commands = [line for line in lines if isinstance(line, CommandLine)]
    assert Counter(c.name for c in commands) == {
        "FadeOut": 6, "FadeIn": 2, "ChangeLocation": 2, "ChageLocation": 1, "ScreenMessage": 1,
        "PlayBackgroundMusic": 1, "Pause": 1, "ShowCharacter": 1,
    }  # fmt: skip
    by_name = {c.name: c for c in commands}
    assert by_name["ScreenMessage"].params == ["After some time"]
    assert by_name["ShowCharacter"].params == ['"Aries"', '"smiling"']
    assert by_name["ShowCharacter"].comment == "Show Aries smiling as she shares the library with Kenji"
    assert by_name["PlayBackgroundMusic"].params == ['"calm_library"']
    assert by_name["PlayBackgroundMusic"].comment == "Play calming background music as they enter the library"
    assert by_name["ChageLocation"].params == ["Kenji_House_Outside"]
    speech = [line for line in lines if isinstance(line, SpeechLine)]
    assert Counter(s.expression for s in speech if s.expression) == {"serious": 1, "sad": 1, "worried": 1, "happy": 1}
    # the sample writes most moods before the text: by the syntax (a *trailing* [word]) they stay text
    leading = [s for s in speech if s.text.startswith("[")]
    assert len(leading) == 14
    assert all(s.expression is None for s in leading)
    assert {s.actor for s in speech} == {"Aries", "Kenji", "Narrator", "Scorpio", "Girl"}
    assert all(s.tag is None and s.json is None for s in speech)


# ----------------------------------------------------------------------------- the garden sample


def test_garden_constructs() -> None:
    texts = garden_scripts()
    parsed = {name: parse_script(text) for name, text in texts.items()}
    lines = [line for p in parsed.values() for line in p.lines]
    speech = [line for line in lines if isinstance(line, SpeechLine)]
    assert Counter(s.actor for s in speech) == {"Narrator": 24, "Woman": 14, "Player": 7, "Memory Echo": 2}
    assert all(s.tag is None and s.expression is None and s.json is None for s in speech)
    sets = [line for line in lines if isinstance(line, SetLine)]
    assert Counter(s.operator for s in sets) == {"=": 19, "+=": 7, "-=": 3}
    interpolations = [(name, i.line, i.column, i.expression) for name, p in parsed.items() for i in p.interpolations]
    assert interpolations == [
        ("Reflection (Ending)", 3, 26, "variables.player.memories_count"),
        ("Reflection (Ending)", 21, 24, "variables.player.memories_count"),
        ("Reflection (Ending)", 22, 32, "variables.woman.trust_level"),
    ]
    reflection = parsed["Reflection (Ending)"].lines
    assert reflection[0] == IfLine(1, 'variables.woman.final_response_type == "open"')
    assert reflection[1] == SpeechLine(2, "Woman", "I knew you would come back. In my heart, I always knew.")
    assert SetLine(7, "variables.woman.final_gift_ready", "=", "false") in reflection
    assert [(line.line, line.kind) for line in reflection if isinstance(line, (IfLine, ElseLine, EndIfLine))] == [
        (1, "if"), (5, "if"), (8, "endif"), (10, "else"), (11, "if"), (14, "else"), (16, "endif"), (18, "endif"),
        (24, "if"), (26, "endif"),
    ]  # fmt: skip
    opening = parsed["Opening"].lines
    assert opening[0] == SetLine(1, "variables.player.courage", "=", "5")
    assert opening[-1] == SetLine(12, "variables.woman.final_response_type", "=", '"unsure"')


def test_garden_unknown_paths_against_its_variables() -> None:
    texts = garden_scripts()
    known = variables_state(GARDEN)
    assert sorted(known) == ["player", "woman", "world"]
    assert known["player"]["courage"] == 5 and known["woman"]["final_response_type"] == "unsure"
    found = {
        name: [
            (p.line, p.column, p.code, p.severity, p.message) for p in parse_script(text, known_state=known).problems
        ]
        for name, text in texts.items()
    }
    message = "unknown variable path variables.player.path: variables.player has no property 'path'"
    # player.path is only ever set by the port scripts of the "2 - Garden Meeting" dialogue
    assert {name: problems for name, problems in found.items() if problems} == {
        "Garden Meeting - Path Response": [
            (1, 5, "unknown-path", "error", message),
            (7, 5, "unknown-path", "error", message),
            (14, 5, "unknown-path", "error", message),
        ]
    }


def test_garden_port_scripts() -> None:
    ports = port_scripts(GARDEN)
    assert len(ports) == 8
    known = variables_state(GARDEN)
    parsed = [parse_script(text, known_state=known) for text in ports]
    assert sum(len(p.lines) for p in parsed) == 14
    assert all(isinstance(line, SetLine) for p in parsed for line in p.lines)
    problems = [(p.code, p.severity, p.message.split(" ")[0]) for pp in parsed for p in pp.problems]
    assert problems == [
        ("unknown-path", "warning", "variables.player.path"),
        ("unknown-path", "warning", "variables.player.path"),
        ("unknown-path", "warning", "variables.player.path"),
        ("unknown-path", "warning", "variables.player.ending_choice"),
        ("unknown-path", "warning", "variables.player.ending_choice"),
    ]


def run(text: str, live: dict, defaults: dict) -> list[str]:
    """A minimal walk of a script (the simulator comes later): returns 'Actor: text' of spoken lines."""
    spoken: list[str] = []
    active: list[bool] = []  # one entry per open @if: is its current branch taken?
    taken: list[bool] = []  # did the @if's condition hold?
    for line in parse_script(text).lines:
        if isinstance(line, IfLine):
            cond = all(active) and bool(evaluate(line.condition, live, defaults))
            taken.append(cond)
            active.append(cond)
        elif isinstance(line, ElseLine):
            active[-1] = not taken[-1] and all(active[:-1])
        elif isinstance(line, EndIfLine):
            active.pop()
            taken.pop()
        elif not all(active):
            continue
        elif isinstance(line, SetLine):
            apply_set(line, live, defaults)
        elif isinstance(line, SpeechLine):
            spoken.append(f"{line.actor}: {interpolate(line.text, live, defaults)}")
    return spoken


def test_garden_play_through_with_the_evaluator() -> None:
    texts = garden_scripts()
    defaults = variables_state(GARDEN)
    live = copy.deepcopy(defaults)
    assert run(texts["Opening"], live, defaults) == []
    # the "Approach openly" port of "1 - Opening Scene"
    opening_port = next(p for p in port_scripts(GARDEN) if 'approach = "open"' in p)
    for line in parse_script(opening_port).lines:
        apply_set(line, live, defaults)
    assert (live["player"]["approach"], live["player"]["courage"], live["woman"]["mood"]) == ("open", 6, "warm")
    spoken = run(texts["First Meeting"], live, defaults)
    assert spoken == [
        "Woman: You finally came.",
        "Player: I... have we met before?",
        "Narrator: She smiles slightly. You walked toward her without hesitation.",
        "Narrator: Her face is a blur you cannot place.",
        "Player: I don't want to pretend. I really don't remember.",
        "Player: I should probably go.",
    ]
    # open: +1, courage 6 < 7: -1; empathy 5 < 7: mood distant
    assert (live["woman"]["trust_level"], live["woman"]["mood"]) == (4, "distant")
    assert defaults["woman"]["trust_level"] == 4 and defaults["woman"]["mood"] == "neutral"
    ending = run(texts["Reflection (Ending)"], live, defaults)
    # final_response_type is still "unsure": the guarded/else branch, then the summary lines
    assert ending == [
        "Woman: I don't know you anymore.",
        "Narrator: The garden fades around you.",
        "Narrator: You carry 0 memories forward.",
        "Narrator: Her trust in you: 4 out of 10.",
    ]


def test_garden_lines_through_export_mappings() -> None:
    texts = garden_scripts()
    first = parse_script(texts["First Meeting"]).lines[0]
    assert render_mapping(first, '%actor.Say("%speech", "%expression", "%tag")') == (
        'Woman.Say("You finally came.", "", "")'
    )
