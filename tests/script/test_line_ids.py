"""Stable line ids of speech lines (storyloom.script.line_ids; docs/localization.md)."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from storyloom.script import SpeechLine, parse_script
from storyloom.script.line_ids import (
    LINE_ID_LENGTH,
    anchor,
    anchor_merged,
    fingerprint,
    is_current,
    new_line_id,
    reanchor,
    speech_line_ids,
    speech_lines,
)

DOC = "doc-1"


def ids_by_line(table: list[list[str]], text: str) -> dict[str, str]:
    """``{stripped speech line: id}`` of the untagged speech lines (the texts are distinct)."""
    untagged = [line for tag, line in speech_lines(text) if tag is None]
    assert len(untagged) == len(table)
    assert [fp for _, fp in table] == [fingerprint(line) for line in untagged]
    return {line: entry[0] for line, entry in zip(untagged, table, strict=True)}


def script(*lines: str) -> str:
    return "\n".join(lines) + "\n"


BASE = script("// intro", "::Ann:: Hello.", "<Wait(1)>", "::Bob:: Hi, Ann.", "::Ann:: How are you?")


def test_a_new_table_has_one_entry_per_untagged_speech_line_and_none_for_tagged_ones() -> None:
    text = BASE + "[#tag_1.a]::Bob:: Fine. [happy]\n"
    table = anchor(None, text, DOC)
    assert len(table) == 3
    assert all(re.fullmatch(rf"[a-z2-7]{{{LINE_ID_LENGTH}}}", line_id) for line_id, _ in table)
    assert len({line_id for line_id, _ in table}) == 3
    assert speech_line_ids(text, table, DOC)[-1] == "tag_1.a"


def test_insertions_above_keep_every_id() -> None:
    before = anchor(None, BASE, DOC)
    after_text = script("::Cid:: Wait!", "::Cid:: Listen.") + BASE
    after = anchor(before, after_text, DOC)
    old, new = ids_by_line(before, BASE), ids_by_line(after, after_text)
    assert all(new[line] == line_id for line, line_id in old.items())
    assert len(set(new.values())) == 5


def test_an_edit_of_another_line_keeps_this_lines_id() -> None:
    before = anchor(None, BASE, DOC)
    edited = BASE.replace("Hi, Ann.", "Hi there, Ann.")
    after = anchor(before, edited, DOC)
    assert ids_by_line(after, edited)["::Ann:: Hello."] == ids_by_line(before, BASE)["::Ann:: Hello."]


def test_an_edit_of_the_line_itself_keeps_its_id() -> None:
    before = anchor(None, BASE, DOC)
    edited = BASE.replace("Hi, Ann.", "Hi there, Ann. [warm]")
    after = anchor(before, edited, DOC)
    assert [line_id for line_id, _ in after] == [line_id for line_id, _ in before]
    assert after[1][1] != before[1][1]


def test_a_deleted_line_takes_its_id_away_and_the_others_keep_theirs() -> None:
    before = anchor(None, BASE, DOC)
    shorter = BASE.replace("::Bob:: Hi, Ann.\n", "")
    after = anchor(before, shorter, DOC)
    assert [line_id for line_id, _ in after] == [before[0][0], before[2][0]]


def test_a_line_cut_and_pasted_elsewhere_keeps_its_id_by_fingerprint() -> None:
    text = script(*(f"::Ann:: line {n}." for n in range(8)))
    before = anchor(None, text, DOC)
    lines = text.splitlines()
    moved = script(lines[6], *lines[:6], lines[7])  # line 6 to the top
    after = anchor(before, moved, DOC)
    assert ids_by_line(after, moved) == ids_by_line(before, text)


def test_a_pasted_copy_of_a_line_gets_a_new_id_and_the_original_keeps_its() -> None:
    before = anchor(None, BASE, DOC)
    doubled = BASE + "::Ann:: Hello.\n"
    after = anchor(before, doubled, DOC)
    assert after[0][0] == before[0][0]
    assert after[-1][1] == after[0][1]
    assert after[-1][0] not in {line_id for line_id, _ in before}
    assert len({line_id for line_id, _ in after}) == len(after)


def test_new_ids_are_deterministic_per_document_and_differ_between_documents() -> None:
    stale = anchor(None, BASE, DOC)
    text = BASE + "::Bob:: New line.\n" + "::Bob:: New line.\n"
    one, two = anchor(stale, text, DOC), anchor([list(e) for e in stale], text, DOC)
    assert one == two
    assert anchor(None, text, DOC) == anchor(None, text, DOC)
    other = anchor(None, text, "doc-2")
    assert not {i for i, _ in other} & {i for i, _ in anchor(None, text, DOC)}


def test_new_ids_step_past_ids_already_used() -> None:
    first = new_line_id(DOC, "key", 0)
    assert new_line_id(DOC, "key", 0, {first}) not in {first}
    # a tag that happens to equal the id a line would get does not give that id twice
    untagged = "::Ann:: Hello.\n"
    would_be = anchor(None, untagged, DOC)[0][0]
    text = f"[#{would_be}]::Bob:: Tagged.\n" + untagged
    table = anchor(None, text, DOC)
    assert table[0][0] != would_be
    assert speech_line_ids(text, table, DOC) == [would_be, table[0][0]]


def test_a_current_table_is_returned_as_is_and_a_damaged_one_is_rebuilt() -> None:
    table = anchor(None, BASE, DOC)
    assert is_current(table, BASE)
    assert anchor(table, BASE, DOC) == table
    damaged = [table[0], table[0], "junk", table[2]]
    rebuilt = anchor(damaged, BASE, DOC)
    assert is_current(rebuilt, BASE)
    assert rebuilt[0][0] == table[0][0] and rebuilt[2][0] == table[2][0]
    assert anchor({"not": "a table"}, BASE, DOC) == anchor(None, BASE, DOC)


def test_speech_line_ids_anchor_a_stale_table_as_a_reader_must() -> None:
    table = anchor(None, BASE, DOC)
    edited = "::Eve:: First!\n" + BASE
    ids = speech_line_ids(edited, table, DOC)
    assert ids[1:] == [line_id for line_id, _ in table]
    assert ids == [line_id for line_id, _ in anchor(table, edited, DOC)]


def test_merged_text_keeps_the_ids_of_both_sides() -> None:
    base_table = anchor(None, BASE, DOC)
    ours_text = BASE.replace("::Ann:: Hello.", "::Ann:: Hello!") + "::Ann:: Ours.\n"
    theirs_text = "::Bob:: Theirs.\n" + BASE
    ours, theirs = anchor(base_table, ours_text, DOC), anchor(base_table, theirs_text, DOC)
    merged_text = "::Bob:: Theirs.\n" + ours_text
    merged = anchor_merged(ours, theirs, merged_text, DOC)
    got = ids_by_line(merged, merged_text)
    assert got["::Bob:: Theirs."] == ids_by_line(theirs, theirs_text)["::Bob:: Theirs."]
    for line, line_id in ids_by_line(ours, ours_text).items():
        assert got[line] == line_id


# ------------------------------------------------------------------------ the parser agrees

_LINE_PARTS = st.sampled_from(["::", "[#t1]", "[#bad tag]", " ", "Ann", "text", "[happy]", "{\"a\": 1}",
                               "//", "@if", "<Cmd(1)>", "\t", ":", "#", "[", "]", "\xa0", "\u3000", "\x1f",
                               "\r", "\r\n", "\x0b", "\x1c", "\u2028", "\x85", "[#a.b_c]"])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(_LINE_PARTS, max_size=6).map("".join), max_size=12))
def test_speech_lines_are_exactly_the_lines_the_parser_reads_as_speech(lines: list[str]) -> None:
    text = "\n".join(lines)
    parsed = [line for line in parse_script(text).lines if isinstance(line, SpeechLine)]
    found = speech_lines(text)
    assert [tag for tag, _ in found] == [line.tag for line in parsed]
    raw = text.splitlines()
    assert [line for _, line in found] == [raw[line.line - 1].strip() for line in parsed]


# ------------------------------------------------------------------- id stability, property

_counter = iter(range(10**9))


def _fresh(draw_actor: str) -> str:
    return f"::{draw_actor}:: line {next(_counter)}."


@st.composite
def edit_steps(draw: st.DrawFn) -> list[tuple[str, int, int]]:
    kinds = st.sampled_from(["insert", "delete", "edit", "move", "insert-block", "other"])
    return draw(st.lists(st.tuples(kinds, st.integers(0, 50), st.integers(0, 50)), min_size=1, max_size=12))


def _apply(lines: list[str], step: tuple[str, int, int]) -> tuple[list[str], set[str]]:
    """``lines`` after one edit, and the lines the edit changed (new or edited texts)."""
    kind, a, b = step
    lines = list(lines)
    changed: set[str] = set()
    n = len(lines)
    if kind == "insert" or (kind != "other" and n == 0):
        new = _fresh("Ann")
        lines.insert(a % (n + 1), new)
        changed.add(new)
    elif kind == "insert-block":
        block = [_fresh("Bob") for _ in range(b % 4 + 1)]
        at = a % (n + 1)
        lines[at:at] = block
        changed.update(block)
    elif kind == "delete":
        del lines[a % n]
    elif kind == "edit":
        new = lines[a % n].rstrip(".") + f" (edit {next(_counter)})."
        lines[a % n] = new
        changed.add(new)
    elif kind == "move":
        line = lines.pop(a % n)
        lines.insert(b % n, line)
    else:  # a line that is not speech: the ids do not care
        lines.insert(a % (n + 1), f"// note {next(_counter)}")
    return lines, changed


def _text(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 6), edit_steps())
def test_random_edits_keep_every_surviving_unedited_lines_id(start: int, steps: list[tuple[str, int, int]]) -> None:
    lines = [_fresh("Ann") for _ in range(start)]
    table = anchor(None, _text(lines), DOC)
    born = ids_by_line(table, _text(lines))  # the id each line had when it was written
    for step in steps:
        lines, changed = _apply(lines, step)
        text = _text(lines)
        table = anchor(table, text, DOC)
        now = ids_by_line(table, text)
        assert len(set(now.values())) == len(now), "ids are distinct"
        for line, line_id in now.items():
            if line in born:
                assert line_id == born[line], f"{line!r} lost its id"
        born.update({line: now[line] for line in changed if line in now})


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 6), edit_steps(), edit_steps())
def test_two_clients_anchoring_the_same_stale_table_get_the_same_ids(
        start: int, one: list[tuple[str, int, int]], two: list[tuple[str, int, int]]) -> None:
    lines = [_fresh("Ann") for _ in range(start)]
    stale = anchor(None, _text(lines), DOC)
    for step in one + two:  # a Drafft teammate's edits: the table is not touched
        lines, _ = _apply(lines, step)
    text = _text(lines)
    assert anchor(stale, text, DOC) == anchor([list(e) for e in stale], text, DOC)
    assert speech_line_ids(text, stale, DOC) == speech_line_ids(text, list(stale), DOC)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 6), edit_steps(), edit_steps(), st.booleans())
def test_reanchoring_an_edit_is_anchoring_the_previous_table_twice_and_leaves_it_alone(
        start: int, before: list[tuple[str, int, int]], edit: list[tuple[str, int, int]], written: bool) -> None:
    lines = [_fresh("Ann") for _ in range(start)]
    table = anchor(None, _text(lines), DOC)
    for step in before:  # written by the gate (the table current) or by a Drafft teammate (stale)
        lines, _ = _apply(lines, step)
        if written:
            table = anchor(table, _text(lines), DOC)
    previous_text = _text(lines)
    for step in edit:
        lines, _ = _apply(lines, step)
    text = _text(lines)
    kept = [list(entry) for entry in table]
    expected = anchor(anchor(table, previous_text, DOC), text, DOC)
    assert reanchor(table, previous_text, text, DOC) == expected
    if written:  # the table is current for the previous text: the caller may say so
        assert reanchor(table, previous_text, text, DOC, previous_current=True) == expected
    assert table == kept
    got = reanchor(table, previous_text, previous_text, DOC)
    assert got == anchor(table, previous_text, DOC)
    assert all(entry is not kept_entry for entry in got for kept_entry in table)  # a copy: the new revision's own


def test_reanchoring_a_damaged_previous_table_rebuilds_it_first() -> None:
    table = anchor(None, BASE, DOC)
    damaged = [table[0], "junk", table[2]]
    edited = BASE.replace("::Bob:: Hi, Ann.", "::Bob:: Hi there, Ann.")
    assert reanchor(damaged, BASE, edited, DOC) == anchor(anchor(damaged, BASE, DOC), edited, DOC)
    assert reanchor(None, BASE, edited, DOC) == anchor(anchor(None, BASE, DOC), edited, DOC)
