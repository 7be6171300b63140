"""The quick HJSON and YAML readers of ``storyloom.project.content`` against the libraries.

``_quick_hjson`` and ``_quick_yaml`` read the common shapes of property text without hjson-py
or PyYAML, and promise exactly the libraries' result (``docs/export-format.md``,
Performance). Whenever a quick reader accepts a text (returns anything but ``_NOT_QUICK``), the
library must read the same text without error and give the same value, down to ``repr``
(``1`` vs ``1.0`` vs ``True``). The texts are generated in the shapes the quick path accepts,
with hazards mixed in (odd keys and values, comments, indentation, line ends) and as random
single-character mutations of well-formed texts.
"""

from __future__ import annotations

from typing import Any

import hjson
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from storyloom.project.content import languages, quick_readers, yaml12

pytestmark = pytest.mark.slow  # hypothesis, and the libraries on every sample

EXAMPLES = settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _hjson_reference(text: str) -> tuple[str, Any]:
    try:
        return "ok", languages.to_json(hjson.loads(text), "hjson")
    except Exception as exc:  # any library failure is an answer to compare
        return "error", type(exc).__name__


def _yaml_reference(text: str) -> tuple[str, Any]:
    try:
        return "ok", languages.to_json(yaml.load(text, Loader=yaml12.Yaml12Loader), "yaml")
    except Exception as exc:  # any library failure is an answer to compare
        return "error", type(exc).__name__


def _check(quick: Any, reference: tuple[str, Any], text: str) -> None:
    if quick is quick_readers.NOT_QUICK:
        return  # handed to the library: nothing to compare
    assert reference[0] == "ok", f"quick reader accepted {text!r}, the library refuses it: {reference[1]}"
    assert repr(reference[1]) == repr(quick), f"{text!r}: library {reference[1]!r}, quick {quick!r}"


def _mutate(draw: st.DrawFn, text: str, alphabet: list[str], edits: tuple[int, int]) -> str:
    for _ in range(draw(st.integers(*edits))):
        at = draw(st.integers(0, len(text)))
        kind = draw(st.sampled_from(["insert", "delete", "replace"]))
        char = draw(st.sampled_from(alphabet))
        if kind == "insert":
            text = text[:at] + char + text[at:]
        elif kind == "delete":
            text = text[:at] + text[at + 1 :]
        else:
            text = text[:at] + char + text[at + 1 :]
    return text


# -- HJSON ---------------------------------------------------------------------------------------

HJSON_KEYS = ["name", "a", "b.c", "x-y", "$k", "1", "0", "_sid", "key ", "bad key", '"q"', "k#", "", "null",
              "true", "a/b", "é"]  # fmt: skip
HJSON_VALUES = [
    "Leaf", "12", "-3", "1.5", "1e5", "1E400", "0", "012", "-0", "-0.0", "1.", ".5", "true", "false", "null",
    "True", "nulls", "a, b", "a,", "x # c", "x // c", "x /* c", "http://x", "{", "[", "}", "]", "'s'", '"s"',
    "'''", "-", "1 2", "12  ", "  7", "a: b", "١٢", "-٣", "12345678901", "1.5e10", "1e9", "x\x00y", "\xa0x",
    "x\x0by", "tab\tin", "", " ", "{}", "[]", "x}", "x]", "1,", "true,", "1e-3", "2.50", "--1", "1-2", "#",
    "//", "ünï", "a:b:c",
]  # fmt: skip
HJSON_GOOD_KEYS = ["name", "a", "b.c", "x-y", "$k", "1", "_sid"]
HJSON_GOOD_VALUES = ["Leaf", "12", "-3", "1.5", "1e5", "0", "012", "true", "false", "null", "nulls", "http:x",
                     "a b", "1 2", "-", "ünï"]  # fmt: skip
HJSON_MUTATIONS = list(" :#/*-\n\t'\"[]{},0123456789aZ_.\u2028\x85\ufeff\r\\\x0b")


@st.composite
def _hjson_lines(draw: st.DrawFn, depth: int = 0, in_list: bool = False) -> list[str]:
    lines: list[str] = []
    for _ in range(draw(st.integers(0, 5))):
        indent = draw(st.sampled_from(["", "  ", "\t", " \t "]))
        kind = draw(st.sampled_from(["comment", "block", "entry", "entry", "entry", "entry"]))
        if kind == "comment":
            lines.append(indent + draw(st.sampled_from(["# c", "// c", "/* c */", "#", "//x: 1"])))
        elif kind == "block" and depth < 3:
            opening, closing = draw(st.sampled_from([("{", "}"), ("[", "]")]))
            if in_list:
                lines.append(indent + opening)
            else:
                separator = draw(st.sampled_from([":", ": ", " : ", ":\t"]))
                lines.append(indent + draw(st.sampled_from(HJSON_KEYS)) + separator + opening)
            lines += draw(_hjson_lines(depth + 1, opening == "["))
            lines.append(indent + closing + draw(st.sampled_from(["", "", ",", " ", " x"])))
        elif in_list:
            lines.append(indent + draw(st.sampled_from(HJSON_VALUES)) + draw(st.sampled_from(["", "", " ", ","])))
        else:
            separator = draw(st.sampled_from([":", ": ", " : ", ":\t", " "]))
            tail = draw(st.sampled_from(["", "", " ", "\t"]))
            key, value = draw(st.sampled_from(HJSON_KEYS)), draw(st.sampled_from(HJSON_VALUES))
            lines.append(indent + key + separator + value + tail)
        if draw(st.integers(0, 19)) == 0:
            lines.append(draw(st.sampled_from(["", "  ", "}", "]", "{", "x", "\r", "\ufeff"])))
    return lines


@st.composite
def hjson_texts(draw: st.DrawFn) -> str:
    lines = draw(_hjson_lines())
    if draw(st.integers(0, 4)) == 0:  # a root { ... }, sometimes with something after it
        lines = ["{", *lines, "}"] + ([draw(st.sampled_from(["", "x", "}", ","]))] if draw(st.booleans()) else [])
    if draw(st.integers(0, 9)) == 0:
        lines.insert(0, draw(st.sampled_from(["\ufeff", "# c", "// c"])))
    newline = draw(st.sampled_from(["\n", "\r\n", "\n\n"]))
    return newline.join(lines) + draw(st.sampled_from(["", "\n"]))


@st.composite
def _hjson_good_lines(draw: st.DrawFn, depth: int = 0, in_list: bool = False) -> list[str]:
    lines: list[str] = []
    for _ in range(draw(st.integers(1, 5))):
        kind = draw(st.sampled_from(["comment", "block", "block", "entry", "entry", "entry", "entry"]))
        if kind == "comment":
            lines.append(draw(st.sampled_from(["# c", "// c"])))
        elif kind == "block" and depth < 3:
            opening, closing = draw(st.sampled_from([("{", "}"), ("[", "]")]))
            lines.append(opening if in_list else draw(st.sampled_from(HJSON_GOOD_KEYS)) + ": " + opening)
            lines += draw(_hjson_good_lines(depth + 1, opening == "["))
            lines.append(closing)
        else:
            value = draw(st.sampled_from(HJSON_GOOD_VALUES))
            entry = value if in_list else draw(st.sampled_from(HJSON_GOOD_KEYS)) + ": " + value
            lines.append(("  " if depth else "") + entry)
    return lines


@st.composite
def mutated_hjson_texts(draw: st.DrawFn) -> str:
    text = "\n".join(draw(_hjson_good_lines())) + "\n"
    return _mutate(draw, text, HJSON_MUTATIONS, (0, 3))


@EXAMPLES
@given(hjson_texts())
def test_quick_hjson_reads_what_hjson_py_reads(text: str) -> None:
    _check(quick_readers.quick_hjson(text), _hjson_reference(text), text)


@EXAMPLES
@given(mutated_hjson_texts())
def test_quick_hjson_on_mutated_texts(text: str) -> None:
    _check(quick_readers.quick_hjson(text), _hjson_reference(text), text)


# -- YAML ----------------------------------------------------------------------------------------

YAML_KEYS = ["name", "a", "_sid", "true", "True", "null", "yes", "on", "y", "n", "1", "012", "key ", "b-c", "é",
             "x_1", "NULL", "off", "Y", "~", "<<", "a.b"]  # fmt: skip
YAML_VALUES = [
    "Leaf", "12", "-3", "1.5", "1e5", "1E400", "0", "012", "-0", "-0.0", "1.", ".5", "true", "false", "null",
    "True", "TRUE", "tRue", "yes", "no", "on", "off", "Null", "NULL", "~", "0o17", "0x1F", "0o9", "1_000",
    "2024-01-01", "2024-01-01 10:00:00", "12:30", "a b c", "a, b", "a #c", "a#b", "a: b", "a:", "http://x",
    "[a, b]", "[1, 2.5, true, null]", "[]", "{}", "[a, [b]]", "[a,]", "[ a , b ]", "'q'", '"q"', "'it''s'",
    '"a\\nb"', '"a', "'a", '"a"b', "- x", "-", "-1", "-a", "+1", ".inf", "-.inf", ".nan", "&a x", "*a",
    "!!str 1", "|", ">", "%x", "@x", "`x", "a 'b' c", 'say "hi"', "protagonist's house", "ünï", "١٢", "²",
    "1e-3", "6.0", "3.14e2", "0.0", "1,2", "{a: 1}", "a ]", "x}", "? x", "a  b", "x y z.", "1 2", "1.5.6",
    "0b101", "inf", "nan", "Infinity", "-0o17", "+12",
]  # fmt: skip
YAML_MUTATIONS = list(" :#-\n\t'\"[]{},&*!|>%@`?~.0123456789aZ_\u2028\x85\ufeff\r\\")


def _accepted(candidates: list[str], template: str) -> list[str]:
    """The candidates the quick reader takes in ``template`` (a key or a value on its own)."""
    return [c for c in candidates if quick_readers.quick_yaml(template.format(c)) is not quick_readers.NOT_QUICK]


YAML_GOOD_KEYS = _accepted(YAML_KEYS, "{}: 1")
YAML_GOOD_VALUES = _accepted(YAML_VALUES, "k: {}")


@st.composite
def _yaml_lines(draw: st.DrawFn, depth: int, indent: int, good: bool) -> list[str]:
    def pick(everything: list[str], accepted: list[str]) -> str:
        if good and draw(st.integers(0, 32)) > 0:
            return draw(st.sampled_from(accepted))
        return draw(st.sampled_from(everything))

    lines: list[str] = []
    for _ in range(draw(st.integers(1, 5))):
        pad = " " * indent
        if draw(st.integers(0, 199 if good else 32)) == 0:  # a misaligned line
            pad = " " * max(0, indent + draw(st.sampled_from([-1, 1, 2])))
        kind = draw(st.sampled_from(["comment", "nested", "nested", "entry", "entry", "entry", "entry", "entry"]))
        if kind == "comment":
            comments = ["# c", "#", "", "# x: 1"] if good else ["# c", "#", "  # c", "---", "...", "\t# c", ""]
            lines.append(pad + draw(st.sampled_from(comments)))
        elif kind == "nested" and depth < 3:
            after_key = [":", ":  "] if good else [":", ":  ", ": # c"]
            lines.append(pad + pick(YAML_KEYS, YAML_GOOD_KEYS) + draw(st.sampled_from(after_key)))
            if draw(st.booleans()):
                lines += draw(_yaml_lines(depth + 1, indent + draw(st.sampled_from([1, 2, 4])), good))
            else:
                item_indent = " " * (indent + draw(st.sampled_from([0, 0, 2, 3])))
                dashes = ["- ", "-  "] if good else ["- ", "-  ", "-", "- - "]
                for _ in range(draw(st.integers(0, 3))):
                    lines.append(item_indent + draw(st.sampled_from(dashes)) + pick(YAML_VALUES, YAML_GOOD_VALUES))
        else:
            separators = [": ", ":  "] if good else [": ", ":  ", ":", " : ", ":\t"]
            key = pick(YAML_KEYS, YAML_GOOD_KEYS)
            value = pick(YAML_VALUES, YAML_GOOD_VALUES)
            tail = draw(st.sampled_from(["", "", " ", "  "]))
            lines.append(pad + key + draw(st.sampled_from(separators)) + value + tail)
        if draw(st.integers(0, 99 if good else 24)) == 0:
            lines.append(draw(st.sampled_from(["  continued", "x", "- y", "\r", "\ufeff", "\u2028", "# c\u2028a: 1"])))
    return lines


@st.composite
def yaml_texts(draw: st.DrawFn) -> str:
    good = draw(st.booleans())
    lines = draw(_yaml_lines(0, draw(st.sampled_from([0, 0, 0, 2])), good))
    newline = draw(st.sampled_from(["\n", "\n\n"] if good else ["\n", "\r\n", "\n\n"]))
    return newline.join(lines) + draw(st.sampled_from(["", "\n"]))


@st.composite
def mutated_yaml_texts(draw: st.DrawFn) -> str:
    text = "\n".join(draw(_yaml_lines(0, 0, True))) + "\n"
    return _mutate(draw, text, YAML_MUTATIONS, (1, 3))


@EXAMPLES
@given(yaml_texts())
def test_quick_yaml_reads_what_pyyaml_reads(text: str) -> None:
    _check(quick_readers.quick_yaml(text), _yaml_reference(text), text)


@EXAMPLES
@given(mutated_yaml_texts())
def test_quick_yaml_on_mutated_texts(text: str) -> None:
    _check(quick_readers.quick_yaml(text), _yaml_reference(text), text)


# -- the generators do reach the quick path --------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["name: Leaf\nage: 12\n", "{\n  a: 1\n  b: [\n    x\n    2.5\n  ]\n}\n", "# c\nk: {\n  x: true\n}\n"],
)
def test_typical_hjson_is_read_quickly_and_exactly(text: str) -> None:
    quick = quick_readers.quick_hjson(text)
    assert quick is not quick_readers.NOT_QUICK
    _check(quick, _hjson_reference(text), text)


@pytest.mark.parametrize(
    "text",
    ["name: Leaf\nage: 12\n", "a:\n  b: [1, 2.5, true, null]\n  c:\n    - x\n    - 0o17\n", "k: yes\nn: null\n"],
)
def test_typical_yaml_is_read_quickly_and_exactly(text: str) -> None:
    quick = quick_readers.quick_yaml(text)
    assert quick is not quick_readers.NOT_QUICK
    _check(quick, _yaml_reference(text), text)


def test_the_good_pools_are_not_empty() -> None:
    assert len(YAML_GOOD_KEYS) >= 5 and len(YAML_GOOD_VALUES) >= 20
