"""Fixtures of the project tests: a manager with a fixed username, and the Drafft sample files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from storyloom.project.manager import Project, ProjectManager
from tests.support.fixtures import DRAFFT_PROJECTS as FIXTURES

FIXTURE_FILES = {
    "one-bullet": FIXTURES / "v1" / "one-bullet.json",
    "gof-v1": FIXTURES / "v1" / "the-goddess-of-fate.v1.json",
    "gof-partial": FIXTURES / "v1" / "the-goddess-of-fate.partially-migrated.json",
    "tgof": FIXTURES / "v2" / "tgof.json",
    "tgof-v1.0.21": FIXTURES / "v2" / "tgof_v1.0.21.json",
    "tgof-v1": FIXTURES / "v2" / "tgof_v1.json",
    "garden": FIXTURES / "v2" / "the-garden-of-fading-memories.json",
}


def fixture_path(key: str) -> Path:
    path = FIXTURE_FILES[key]
    if not path.exists():
        pytest.fail(f"Drafft fixture {path} is missing: ../shared/fixtures must sit beside the repository")
    return path


_CACHE: dict[str, dict[str, Any]] = {}


def fixture_dump(key: str) -> dict[str, Any]:
    """The parsed fixture (cached; never mutate it)."""
    if key not in _CACHE:
        _CACHE[key] = json.loads(fixture_path(key).read_text(encoding="utf-8"))
    return _CACHE[key]


def fixture_docs(key: str) -> dict[str, dict[str, Any]]:
    return {row["id"]: row["doc"] for row in fixture_dump(key)["rows"]}


@pytest.fixture
def username() -> str:
    return "tester"


@pytest.fixture
def manager(username: str) -> ProjectManager:
    return ProjectManager(username=username)


@pytest.fixture
def project(manager: ProjectManager):
    opened: Project = manager.create("Test Project", "for tests")
    yield opened
    opened.close()
