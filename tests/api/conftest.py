"""Fixtures: the Garden sample project (Drafft import) served on a free loopback port."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.api.support import GARDEN, Harness, RecordingNavigation, running_server


@pytest.fixture(autouse=True)
def loopback_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every server a test starts in this process listens on loopback only (never on every
    interface with a known key). A test of another bind address replaces the bind itself."""
    from storyloom.api import server as server_module

    real_bind = server_module.bind_socket

    def bind_loopback(host: str, port: int) -> Any:
        assert server_module.is_loopback(host), f"a test asked to listen on {host!r}: tests listen on loopback"
        return real_bind(host, port)

    monkeypatch.setattr(server_module, "bind_socket", bind_loopback)


@pytest.fixture
def garden(storyloom_home) -> Iterator[Any]:
    """The Drafft sample project, imported by the project layer's Drafft import."""
    if not GARDEN.exists():
        pytest.fail(f"Drafft sample data missing: {GARDEN}")
    from storyloom.drafft import import_backup
    from storyloom.project.manager import ProjectManager

    project, _report = import_backup(ProjectManager(), GARDEN, name="Garden")
    try:
        yield project
    finally:
        project.close()


@pytest.fixture
def api(garden) -> Iterator[Harness]:
    """A server for ``garden`` with a recording navigation port; ``api.client`` sends the key."""
    with running_server(garden, navigation=RecordingNavigation(), heartbeat=0.5) as harness:
        yield harness


@pytest.fixture
def headless(garden) -> Iterator[Harness]:
    """A server with no navigation port, as ``storyloom serve`` runs it."""
    with running_server(garden, navigation=None) as harness:
        yield harness


@pytest.fixture(scope="module")
def shared_garden(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One Garden import per module, for tests that only read (its own root and options, so it
    never depends on the per-test STORYLOOM_HOME)."""
    if not GARDEN.exists():
        pytest.fail(f"Drafft sample data missing: {GARDEN}")
    from storyloom.drafft import import_backup
    from storyloom.project.manager import ProjectManager

    manager = ProjectManager(tmp_path_factory.mktemp("shared-projects"), username="tester")
    project, _report = import_backup(manager, GARDEN, name="Garden")
    try:
        yield project
    finally:
        project.close()


@pytest.fixture(scope="module")
def shared_api(shared_garden) -> Iterator[Harness]:
    """A server for ``shared_garden``, shared by a module's read-only tests."""
    with running_server(shared_garden, navigation=RecordingNavigation(), heartbeat=0.5) as harness:
        yield harness
