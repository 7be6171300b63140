"""Read the Drafft sample projects in place (never copied into the repo)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.fixtures import DRAFFT_PROJECTS as PROJECTS

GARDEN = PROJECTS / "v2" / "the-garden-of-fading-memories.json"


def project_files() -> list[Path]:
    """Every dump under projects/, sorted; fails the test when the fixtures are not there."""
    files = sorted(PROJECTS.glob("**/*.json"))
    if not files:
        pytest.fail(f"Drafft fixtures missing under {PROJECTS}")
    return files


@cache
def _docs(path: Path) -> tuple[dict[str, Any], ...]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return tuple(row["doc"] for row in data["rows"] if isinstance(row.get("doc"), dict))


def scripts(path: Path) -> dict[str, tuple[str, str]]:
    """``{doc id: (name, script text)}`` for Script docs (v2 ``content.script``, v1 ``content``)."""
    out = {}
    for doc in _docs(path):
        if doc.get("type") != "Script":
            continue
        content = doc.get("content")
        text = content.get("script") if isinstance(content, dict) else content
        out[doc["_id"]] = (doc.get("name", ""), text or "")
    return out


def variables_state(path: Path) -> dict[str, dict[str, Any]]:
    """``{sid: state}`` parsed from the Variable docs' YAML/HJSON source."""
    state = {}
    for doc in _docs(path):
        if doc.get("type") == "Variable":
            parsed = yaml.safe_load(doc["content"]["variables"])
            state[parsed["_sid"]] = parsed
    return state


def port_scripts(path: Path) -> list[str]:
    """The ``portScript`` of every dialogue handle, in file order."""
    out = []
    for doc in _docs(path):
        if doc.get("type") != "Dialogue" or not isinstance(doc.get("content"), dict):
            continue
        for node in doc["content"].get("tree", {}).get("nodes", []):
            for handle in node.get("data", {}).get("handles", []):
                if handle.get("portScript"):
                    out.append(handle["portScript"])
    return out
