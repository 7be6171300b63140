"""Fixtures of the localization tests: a project on a real store, edited through the real
editor gate, with French and Brazilian Portuguese as its target locales."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from storyloom.l10n.catalog import ReadEntry, ReadFile
from storyloom.project.manager import Project, ProjectManager


@pytest.fixture
def manager() -> ProjectManager:
    return ProjectManager(username="ana")


@pytest.fixture
def project(manager: ProjectManager) -> Iterator[Project]:
    opened = manager.create("Saga")
    opened.editor.update_settings({"targetLocales": ["fr", "pt-BR"]})
    yield opened
    opened.close()


def script(project: Project, name: str, text: str, parent: str | None = None, **fields: Any) -> str:
    """A new Script document through the gate; its id."""
    return project.editor.create("Script", name, parent=parent, content={"script": text}, **fields).id


def set_text(project: Project, doc_id: str, text: str) -> None:
    doc = project.editor.get(doc_id)
    doc["content"] = {**doc["content"], "script": text}
    project.editor.update(doc)


def read_file(locale: str | None, *entries: tuple[str, str, str | None] | ReadEntry) -> ReadFile:
    """A file as the formats read it back: ``(line id, source, target)`` entries."""
    made = tuple(e if isinstance(e, ReadEntry) else ReadEntry(e[0], e[1], e[2]) for e in entries)
    return ReadFile("en", locale, made)
