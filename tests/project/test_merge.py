"""The three-way merge of document revisions (storyloom.project.merge): a table of cases, then
properties over random documents."""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any

import merge3
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from storyloom.project.merge import MergeOutcome, merge_documents, merge_lines, merge_text

pytestmark = pytest.mark.slow  # hypothesis, hundreds of examples a test

T0, T1, T2 = "2026-01-01T00:00:00.000Z", "2026-01-02T00:00:00.000Z", "2026-01-03T00:00:00.000Z"
SCRIPT = "one\ntwo\nthree\nfour\nfive\n"


def doc(**fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"type": "Script", "name": "S", "color": "#fff", "content": {"script": SCRIPT},
                            "locked": False, "lockedBy": "nobody", "modified": T0, "modifiedBy": "ann"}
    for key, value in fields.items():
        if value is DROP:
            base.pop(key, None)
        else:
            base[key] = value
    return base


DROP = object()
LOCKED_BY_BOB = {"locked": True, "lockedBy": "bob", "lockedAt": T1}
LOCKED_BY_CY = {"locked": True, "lockedBy": "cy", "lockedAt": T2}

# (name, base, ours, theirs, expected merged body or None for a conflict, conflicting paths)
CASES: list[tuple[str, Any, Any, Any, Any, list[str]]] = [
    ("different fields", doc(), doc(name="N", modified=T1), doc(color="red", modified=T2),
     doc(name="N", color="red", modified=T2), []),
    ("same field, same value", doc(), doc(name="N", modified=T1), doc(name="N", modified=T1),
     doc(name="N", modified=T1), []),
    ("same field, different values", doc(), doc(name="A", modified=T1), doc(name="B", modified=T2), None, ["name"]),
    ("a field added by one side", doc(), doc(modified=T1), doc(alias="x", modified=T2),
     doc(alias="x", modified=T2), []),
    ("a field removed by one side", doc(alias="x"), doc(alias="x", modified=T1), doc(alias=DROP, modified=T2),
     doc(modified=T2), []),
    ("removed against changed", doc(alias="x"), doc(alias="y", modified=T1), doc(alias=DROP, modified=T2),
     None, ["alias"]),
    ("script lines apart", doc(), doc(content={"script": "ONE\ntwo\nthree\nfour\nfive\n"}, modified=T1),
     doc(content={"script": "one\ntwo\nthree\nfour\nFIVE\n"}, modified=T2),
     doc(content={"script": "ONE\ntwo\nthree\nfour\nFIVE\n"}, modified=T2), []),
    ("script same line", doc(), doc(content={"script": "one\nTWO\nthree\nfour\nfive\n"}),
     doc(content={"script": "one\n2\nthree\nfour\nfive\n"}), None, ["content.script"]),
    ("nested keys merge one by one", doc(content={"script": SCRIPT, "x": {"a": 1, "b": 1}}),
     doc(content={"script": SCRIPT, "x": {"a": 2, "b": 1}}), doc(content={"script": SCRIPT, "x": {"a": 1, "b": 3}}),
     doc(content={"script": SCRIPT, "x": {"a": 2, "b": 3}}), []),
    ("lists are values", doc(tags=[1, 2]), doc(tags=[1, 2, 3]), doc(tags=[0, 1, 2]), None, ["tags"]),
    ("a non-text string both changed", doc(), doc(color="red"), doc(color="blue"), None, ["color"]),
    ("1 and true differ", doc(flag=1), doc(flag=True), doc(flag=1), doc(flag=True), []),
    ("lock taken on one side", doc(), doc(name="N", modified=T1), doc(**LOCKED_BY_BOB),
     doc(name="N", modified=T1, **LOCKED_BY_BOB), []),
    ("locks taken on both sides: the winner's", doc(), doc(**LOCKED_BY_CY), doc(**LOCKED_BY_BOB),
     doc(**LOCKED_BY_CY), []),
    # A lost provisional lock released on the longer (winning) branch writes lockedAt: null
    # where the base had no lockedAt: still free, so the holder's lock on the other side stays.
    ("a released lock is no change: the other side's lock stays", doc(),
     doc(name="N", modified=T1, lockedAt=None), doc(**LOCKED_BY_BOB),
     doc(name="N", modified=T1, **LOCKED_BY_BOB), []),
    ("stamps of the later edit", doc(), doc(name="N", modified=T2, modifiedBy="o"),
     doc(color="c", modified=T1, modifiedBy="t"), doc(name="N", color="c", modified=T2, modifiedBy="o"), []),
    ("Actor bio and properties", doc(type="Actor", content={"bio": "a\nb\nc\nd\n", "properties": "x: 1\n"}),
     doc(type="Actor", content={"bio": "A\nb\nc\nd\n", "properties": "x: 1\n"}),
     doc(type="Actor", content={"bio": "a\nb\nc\nD\n", "properties": "x: 2\n"}),
     doc(type="Actor", content={"bio": "A\nb\nc\nD\n", "properties": "x: 2\n"}), []),
    ("Gdd markdown", doc(type="Gdd", content={"gdd": "# T\n\np1\n\np2\n"}),
     doc(type="Gdd", content={"gdd": "# Title\n\np1\n\np2\n"}), doc(type="Gdd", content={"gdd": "# T\n\np1\n\np2!\n"}),
     doc(type="Gdd", content={"gdd": "# Title\n\np1\n\np2!\n"}), []),
    ("no base: equal additions", None, doc(), doc(), doc(), []),
    ("no base: different values", None, doc(name="A"), doc(name="B"), None, ["name"]),
]


@pytest.mark.parametrize(("name", "base", "ours", "theirs", "expected", "paths"), CASES, ids=[c[0] for c in CASES])
def test_merge_table(name: str, base: Any, ours: Any, theirs: Any, expected: Any, paths: list[str]) -> None:
    outcome = merge_documents(base, ours, theirs)
    assert [c.path for c in outcome.conflicts] == paths
    assert outcome.merged == expected
    assert outcome.clean == (expected is not None)
    assert outcome.partial is not None


def test_deletions() -> None:
    gone = {"_id": "x", "_rev": "2-a", "_deleted": True}
    assert merge_documents(doc(), gone, None).merged == {"_deleted": True}  # both deleted
    assert merge_documents(doc(), doc(modified=T1, **LOCKED_BY_BOB), gone).deleted  # unchanged, but stamps/lock
    edited = merge_documents(doc(), doc(name="N"), gone)
    assert edited.merged is None and [c.path for c in edited.conflicts] == ["_deleted"]
    assert edited.conflicts[0].ours is False and edited.conflicts[0].theirs is True
    assert merge_documents(doc(), None, doc(name="N")).conflicts[0].ours is True
    assert merge_documents(None, None, doc()).conflicts  # no base: a deletion against a document


def test_store_fields_are_not_merged_but_attachments_are() -> None:
    att = {"a.png": {"digest": "md5-x", "stub": True}}
    ours = {**doc(name="N"), "_id": "x", "_rev": "2-a", "_conflicts": ["2-b"]}
    theirs = {**doc(_attachments=att), "_id": "x", "_rev": "2-b"}
    merged = merge_documents({**doc(), "_id": "x", "_rev": "1-z"}, ours, theirs).merged
    assert merged == doc(name="N", _attachments=att)


def test_merge_text_follows_diff3() -> None:
    base = "a\nb\nc\nd\ne\n"
    assert merge_text(base, "A\nb\nc\nd\ne\n", "a\nb\nc\nd\nE\n") == "A\nb\nc\nd\nE\n"
    assert merge_text(base, "a\nB\nc\nd\ne\n", "a\nb\nC\nd\ne\n") is None  # adjacent hunks conflict
    assert merge_text(base, "a\nb\nX\nd\ne\n", "a\nb\nX\nd\ne\n") == "a\nb\nX\nd\ne\n"
    assert merge_text(base, base + "f\n", "z\n" + base) == "z\n" + base + "f\n"
    assert merge_text("x", "x", "y") == "y" and merge_text("", "a\n", "b\n") is None


def test_a_line_both_sides_moved_to_different_places_is_not_copied() -> None:
    base = "a\nb\nc\nd\ne\n"
    ours, theirs = "b\nc\na\nd\ne\n", "b\nc\nd\ne\na\n"
    diff3 = "".join(merge3.Merge3(*(t.splitlines(True) for t in (base, ours, theirs))).merge_lines())
    assert diff3.count("a\n") == 2  # what diff3 alone does
    assert merge_text(base, ours, theirs) is None
    assert merge_text(base, ours, ours) == ours  # moved to the same place
    # Copies each side pasted (the original kept) are not moves: all three stay.
    assert merge_text(base, "a\nb\nc\na\nd\ne\n", "a\nb\nc\nd\ne\na\n") == "a\nb\nc\na\nd\ne\na\n"


# -- properties ------------------------------------------------------------------------------

_keys = st.sampled_from(["name", "color", "alias", "tags", "n", "extra"])
_values = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.text("ab", max_size=3),
                    st.lists(st.integers(0, 2), max_size=2))
_lines = st.lists(st.sampled_from(["a", "b", "c", "d"]), max_size=6).map(lambda ls: "".join(x + "\n" for x in ls))


@st.composite
def _doc(draw: st.DrawFn) -> dict[str, Any]:
    body: dict[str, Any] = {"type": "Script"}
    body.update(draw(st.dictionaries(_keys, _values, max_size=4)))
    body["content"] = {"script": draw(_lines), **draw(st.dictionaries(st.sampled_from(["p", "q"]), _values))}
    return body


@st.composite
def _edit(draw: st.DrawFn, base: dict[str, Any]) -> dict[str, Any]:
    """``base`` with a few fields changed, added or removed."""
    out = copy.deepcopy(base)
    for _ in range(draw(st.integers(0, 3))):
        key = draw(_keys)
        if draw(st.booleans()) and key in out:
            del out[key]
        else:
            out[key] = draw(_values)
    if draw(st.booleans()):
        out["content"]["script"] = draw(_lines)
    return out


@st.composite
def _triples(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    base = draw(_doc())
    return base, draw(_edit(base)), draw(_edit(base))


def _same(a: MergeOutcome, b: MergeOutcome) -> bool:
    return a.merged == b.merged and {c.path for c in a.conflicts} == {c.path for c in b.conflicts}


@settings(max_examples=300, deadline=None)
@given(_lines, _lines, _lines)
def test_merge_lines_is_diff3_with_where_each_line_comes_from(base: str, ours: str, theirs: str) -> None:
    sides = [text.splitlines(True) for text in (base, ours, theirs)]
    lines = merge_lines(*sides)
    groups = list(merge3.Merge3(*sides).merge_groups())
    if any(group[0] == "conflict" for group in groups):
        assert lines is None
        return
    diff3 = [line for group in groups for line in group[1]]
    if lines is None:  # a line diff3 would hold more often than the sides and their changes add up to
        counts = [Counter(side) for side in sides]
        assert any(n > max(counts[1][line], counts[2][line], counts[1][line] + counts[2][line] - counts[0][line])
                   for line, n in Counter(diff3).items())
        return
    assert [line for line, *_ in lines] == diff3
    for line, in_ours, in_theirs, _ in lines:
        assert in_ours is not None or in_theirs is not None
        assert in_ours is None or sides[1][in_ours] == line
        assert in_theirs is None or sides[2][in_theirs] == line


@settings(max_examples=300, deadline=None)
@given(_triples())
def test_merge_is_symmetric_without_lock_or_stamps(triple: tuple) -> None:
    base, ours, theirs = triple
    there, back = merge_documents(base, ours, theirs), merge_documents(base, theirs, ours)
    assert {c.path for c in there.conflicts} == {c.path for c in back.conflicts}
    if there.clean:
        assert there.merged == back.merged


@settings(max_examples=300, deadline=None)
@given(_triples())
def test_an_unchanged_side_gives_the_other(triple: tuple) -> None:
    base, ours, theirs = triple
    assert merge_documents(base, base, theirs).merged == theirs
    assert merge_documents(base, ours, base).merged == ours
    assert merge_documents(base, ours, ours).merged == ours


@settings(max_examples=300, deadline=None)
@given(_triples())
def test_a_clean_merge_keeps_every_change_of_both_sides(triple: tuple) -> None:
    base, ours, theirs = triple
    outcome = merge_documents(base, ours, theirs)
    if not outcome.clean:
        assert outcome.merged is None and outcome.conflicts
        return
    merged = outcome.merged
    assert merged is not None
    for side in (ours, theirs):
        for key in set(side) | set(base):
            if key == "content":
                continue
            if side.get(key, DROP) != base.get(key, DROP):  # this side changed it: the merge has it
                assert merged.get(key, DROP) == side.get(key, DROP)
    assert merge_documents(base, ours, theirs).merged == merged  # a pure function


@settings(max_examples=200, deadline=None)
@given(_triples(), st.sampled_from([LOCKED_BY_BOB, LOCKED_BY_CY]), st.sampled_from([LOCKED_BY_BOB, LOCKED_BY_CY]))
def test_lock_fields_never_conflict_and_the_winner_keeps_its_lock(triple: tuple, a: dict, b: dict) -> None:
    base, ours, theirs = triple
    outcome = merge_documents(base, {**ours, **a}, {**theirs, **b})
    assert all(c.path.split(".")[0] not in a for c in outcome.conflicts)
    assert {k: outcome.partial[k] for k in a} == a  # type: ignore[index]
    only_theirs = merge_documents(base, ours, {**theirs, **b})
    assert {k: only_theirs.partial[k] for k in b} == b  # type: ignore[index]
