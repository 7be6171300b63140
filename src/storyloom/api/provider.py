"""Which project the API serves: a :class:`ProjectProvider` answers "which project is loaded
now?" (``None`` → 503). The desktop app's :class:`~storyloom.api.controller.ApiController` is
one; headless ``serve`` uses :class:`StaticProjectProvider`. A plain zero-argument callable works
too.

The exports' answers come from the export layer's one cache,
:class:`storyloom.export.cache.ExportCache`, which the server keeps (``ApiServer(exports=…)``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable

from storyloom.project import ProjectLike


@runtime_checkable
class ProjectProvider(Protocol):
    def current_project(self) -> ProjectLike | None:
        """The loaded project, or ``None`` when none is (the API answers 503)."""
        ...


class StaticProjectProvider:
    """Always the same project (headless ``storyloom serve``)."""

    def __init__(self, project: ProjectLike | None) -> None:
        self.project = project

    def current_project(self) -> ProjectLike | None:
        return self.project


class _CallableProvider:
    def __init__(self, func: Callable[[], ProjectLike | None]) -> None:
        self._func = func

    def current_project(self) -> ProjectLike | None:
        return self._func()


def as_provider(value: ProjectProvider | Callable[[], ProjectLike | None]) -> ProjectProvider:
    """Accept a provider object or a zero-argument callable returning the project."""
    if isinstance(value, ProjectProvider):
        return value
    if callable(value):
        return _CallableProvider(value)
    raise TypeError(f"not a project provider: {value!r}")
