"""The docs stay true: every ``storyloom.…`` name in docs/architecture.md exists (with the
parameters it is shown with), and every CLI verb is documented."""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest

from storyloom.cli.main import build_parser

ROOT = Path(__file__).resolve().parents[1]
ARCHITECTURE = ROOT / "docs" / "architecture.md"
# `storyloom.a.b.Name` optionally followed by a parameter list, inside backticks (which may wrap).
REFERENCE = re.compile(r"`(storyloom(?:\.\w+)+)(\([^`]*\))?")


def references(text: str) -> list[tuple[str, str | None]]:
    return [(m.group(1), m.group(2)) for m in REFERENCE.finditer(text)]


def resolve(dotted: str) -> object:
    """The object a dotted name names: the longest importable module, then attributes."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ModuleNotFoundError(dotted)


def parameter_names(args: str) -> list[str]:
    """Names in a documented parameter list such as ``(path, revs_limit=None, *, create=True)``."""
    inner = args.strip()[1:-1]
    names = []
    depth = 0
    token = ""
    for ch in inner + ",":
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            name = token.strip().split("=")[0].strip().lstrip("*")
            if re.fullmatch(r"[A-Za-z_]\w*", name):
                names.append(name)
            token = ""
        else:
            token += ch
    return names


def signature_problems(text: str) -> list[str]:
    problems = []
    for dotted, args in references(text):
        try:
            obj = resolve(dotted)
        except (ImportError, AttributeError) as exc:
            problems.append(f"{dotted}: does not exist ({exc})")
            continue
        if args is None or not callable(obj):
            continue
        try:
            params = inspect.signature(obj).parameters
        except (TypeError, ValueError):
            continue
        if isinstance(obj, type) and "self" in params:
            params = {k: v for k, v in params.items() if k != "self"}
        takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
        for name in parameter_names(args):
            if name not in params and not takes_any:
                problems.append(f"{dotted}{args}: no parameter {name!r} (it has {list(params)})")
    return problems


def test_architecture_names_only_what_exists() -> None:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    assert len(references(text)) > 40
    assert signature_problems(text) == []


def test_the_check_catches_a_stale_signature() -> None:
    stale = (
        "`storyloom.store.Database(path, revs_limit=None, colour=None)` and "
        "`storyloom.project.manager.ProjectManager.reopen(name)` and `storyloom.nothing.Here`"
    )
    problems = signature_problems(stale)
    assert len(problems) == 3
    assert "no parameter 'colour'" in problems[0]
    assert "reopen" in problems[1] and "does not exist" in problems[1]
    assert "storyloom.nothing.Here" in problems[2]


def _verbs() -> list[str]:
    parser = build_parser()
    for action in parser._actions:
        if getattr(action, "choices", None) and isinstance(action.choices, dict):
            return sorted(action.choices)
    raise AssertionError("the storyloom parser has no verbs")


@pytest.mark.parametrize("verb", _verbs())
def test_every_cli_verb_is_documented(verb: str) -> None:
    docs = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    pattern = re.compile(rf"(storyloom|scripts/run) {re.escape(verb)}\b")
    assert any(pattern.search(doc.read_text(encoding="utf-8")) for doc in docs), (
        f"the verb {verb!r} is not shown in README.md or docs/ (as `storyloom {verb} ...`)"
    )
