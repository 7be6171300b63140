"""Completion in the script editor: actors after ``::``, directives after ``@``, commands after
``<``, variable paths after ``@if``/``@set`` and in ``${}``, level by level through the parsed
states; what opens the list by itself; and the source built from a real project."""

from __future__ import annotations

from storyloom.app import AppOptions, Workspace
from storyloom.script import parse_script
from storyloom.script.completion import (
    ACTOR,
    COMMAND,
    DIRECTIVE,
    PATH,
    CompletionSource,
    auto_trigger,
    complete,
    opens_completion,
    source_for,
)

STATES = {
    "player": {"_sid": "player", "courage": 3, "name": "Ana", "inventory": {"keys": ["brass"], "gold": 12}},
    "world": {"_sid": "world", "storm": False},
}
SOURCE = CompletionSource(actors=["Keeper", "Woman", "Narrator"], states=STATES, commands=["Fade", "PlaySound"])


def _at_end(line: str):  # type: ignore[no-untyped-def]
    return complete(line, len(line), SOURCE)


def _texts(line: str) -> list[str]:
    context = _at_end(line)
    assert context is not None
    return [c.text for c in context.matching()]


def test_actors_after_the_speech_marker() -> None:
    context = _at_end("::Wo")
    assert context is not None and context.kind == ACTOR and context.prefix == "Wo"
    assert [(c.text, c.insert) for c in context.matching()] == [("Woman", "Woman:: ")]
    assert _texts("  [#tag_1] ::") == ["Keeper", "Woman", "Narrator"]
    # editing the name of a line that already has its closing ::: only the name is inserted
    closed = complete("::Wo:: Hello", 4, SOURCE)
    assert closed is not None and closed.matching()[0].insert == "Woman"
    assert _at_end("::Woman:: Hello") is None  # speech text is not completed
    assert _at_end("// ::Wo") is None


def test_directives_after_at() -> None:
    context = _at_end("  @")
    assert context is not None and context.kind == DIRECTIVE and context.prefix == ""
    assert [c.text for c in context.matching()] == ["if", "else", "endif", "set"]
    assert [(c.text, c.insert) for c in _at_end("@e").matching()] == [("else", "else"), ("endif", "endif")]
    assert _at_end("@s").matching()[0].insert == "set "
    assert complete("@i v.x", 2, SOURCE).matching()[0].insert == "if"  # the rest of the line stays


def test_commands_after_angle_bracket() -> None:
    context = _at_end("<Pl")
    assert context is not None and context.kind == COMMAND
    assert [(c.text, c.insert) for c in context.matching()] == [("PlaySound", "PlaySound(")]
    assert complete("<Fa(1)>", 3, SOURCE).matching()[0].insert == "Fade"


def test_paths_level_by_level() -> None:
    assert _texts("@if ") == ["v", "variables", "defaults"]
    assert _texts("@if v.") == ["player", "world"]
    assert _texts("@set variables.player.") == ["courage", "inventory", "name"]
    context = _at_end("@if v.player.inventory.g")
    assert context is not None and context.kind == PATH and context.prefix == "g"
    assert [(c.text, c.detail) for c in context.matching()] == [("gold", "number = 12")]
    assert _at_end("@if v.player.c").matching()[0].detail == "number = 3"
    assert _at_end("@if v.").matching()[0].detail == "state · 3 properties"
    assert _texts("@if defaults.") == ["variables", "v"]
    assert _texts("@if d.v.pl") == ["player"]
    assert _texts("@if v.player.courage > 2 and v.world.") == ["storm"]
    assert _at_end("@if v.nobody.") is None
    assert _at_end("@if v.player.courage.") is None  # a number has no properties
    assert _at_end("@if quests.") is None


def test_paths_inside_interpolations() -> None:
    assert _texts("::Keeper:: You have ${v.player.inventory.") == ["gold", "keys"]
    assert _texts("Gold: ${") == ["v", "variables", "defaults"]
    assert _at_end("Gold: ${v.player.gold} and v.") is None  # the ${} is closed


def test_what_opens_the_list_by_itself() -> None:
    def trigger(line: str) -> str | None:
        context = auto_trigger(line, len(line), SOURCE)
        return context.kind if context else None

    assert trigger("::") == ACTOR
    assert trigger(":") is None
    assert trigger("@") == DIRECTIVE
    assert trigger("<") == COMMAND
    assert trigger("@if ") == PATH
    assert trigger("@set v.") == PATH
    assert trigger("Gold ${") == PATH
    assert trigger("::Keeper:: Hello.") is None  # a full stop in speech
    assert trigger("::Keeper:: mail@") is None
    assert trigger("@if v.player.courage ") is None
    assert trigger("@if v.nobody.") is None  # nothing to offer: no list
    assert trigger("@ifx") is None  # letters only filter a list already open
    # the cheap question the editor asks on every key, from the line alone
    assert opens_completion("@if v.", 6) and opens_completion("::", 2) and opens_completion("x ${", 4)
    assert not opens_completion("::Keeper:: Hello. ", 17) and not opens_completion("::Keeper:: a b", 13)
    assert not opens_completion("// @if v.", 9) and not opens_completion("", 0)


def test_the_source_of_a_project() -> None:
    workspace = Workspace(options=AppOptions(username="ana"))
    try:
        workspace.manager.create("Completion").close()
        with workspace.open_session("Completion") as session:
            editor = session.editor
            editor.create("Actor", "Keeper")
            editor.create("Actor", "  ")  # no name: not offered
            editor.create("Variable", "Player", content={"variables": "_sid: player\ncourage: 3\n"})
            editor.update_settings({"screenPlay": {"locationCommand": "Location", "fadeInCommand": "FadeIn",
                                                   "fadeOutCommand": ""}})
            parsed = parse_script("::Ghost:: Boo\n<Shake(2)>\n")
            source = source_for(session.index.summaries(), session.index.states(), session.settings(), parsed.lines)
            assert source.actors == ["Ghost", "Keeper"]
            assert source.commands == ["FadeIn", "Location", "Shake"]
            assert [c.text for c in complete("@if v.player.", 13, source).matching()] == ["courage"]
    finally:
        workspace.close()


def test_enter_takes_a_choice_only_when_it_changes_the_text_or_the_writer_moved() -> None:
    from storyloom.script.completion import Candidate, takes_choice

    else_ = Candidate("else", "else", "directive")
    if_ = Candidate("if", "if ", "directive")
    assert not takes_choice("else", else_, moved=False)  # "@else" typed in full: Enter is a new line
    assert takes_choice("else", else_, moved=True)
    assert takes_choice("el", else_, moved=False)
    assert takes_choice("if", if_, moved=False)  # adds the space and goes on to the paths
    assert not takes_choice("", None, moved=True)


def test_a_space_after_a_choice_that_ended_with_one_is_typed_through() -> None:
    from storyloom.script.completion import types_through

    assert types_through("Woman:: ", " ")
    assert not types_through("Woman:: ", "H")
    assert not types_through("else", " ")
