"""Suite-wide fixtures: every test gets its own STORYLOOM_HOME (and keeps remote passwords in a
file there) so none touches the real home or the OS keyring.

The tiers (docs/architecture.md, "Quality gates"): ``integration`` marks a test that starts a real
server or another process (pouchdb-server, nginx, the API server, a CLI in a subprocess, Xvfb, a
tmpfs mount), ``slow`` one that takes seconds on its own; ``scripts/test --fast`` runs neither.
Where a test lives marks it: every test of the folders in :data:`INTEGRATION_FOLDERS`, and every
test anywhere that uses a fixture of :data:`INTEGRATION_FIXTURES`, and as slow every test that
opens a project window (:data:`SLOW_FIXTURES`); elsewhere a module says so with ``pytestmark`` (or
one test with a decorator)."""

from __future__ import annotations

from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
#: The suites of the servers: every test here starts pouchdb-server (and nginx) or the API server
#: (examples: the worked examples run as processes against it).
INTEGRATION_FOLDERS = frozenset({"api", "examples", "sync", "team"})
#: The shared fixtures that start a real server (tests/support): a test using one, directly or
#: through another fixture, is an integration test whatever folder it is in.
INTEGRATION_FIXTURES = frozenset({"couch_server", "fresh_couch", "nginx_proxy"})
#: The fixtures that open a whole project window (tests/gui/conftest.py: the garden sample's, the
#: sample project's): a test using one takes a second or more, so it is slow wherever it is.
SLOW_FIXTURES = frozenset({"window", "sample_window"})


#: The fast tier's selection, as ``scripts/test --fast`` passes it to ``-m``.
FAST_TIER = "not slow and not integration"


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """With the fast tier's selection, the integration folders are not even imported (every test
    there would be deselected; their imports and assertion rewriting cost seconds a process)."""
    if config.getoption("markexpr") == FAST_TIER and collection_path.parent == TESTS:
        return collection_path.name in INTEGRATION_FOLDERS or None
    return None


@pytest.hookimpl(tryfirst=True)  # before `-m` selects on the markers
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        try:
            folder = item.path.resolve().relative_to(TESTS).parts[0]
        except ValueError:  # not under tests/
            folder = ""
        fixtures = getattr(item, "fixturenames", ())
        if folder in INTEGRATION_FOLDERS or INTEGRATION_FIXTURES.intersection(fixtures):
            item.add_marker(pytest.mark.integration)
        if SLOW_FIXTURES.intersection(fixtures):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def storyloom_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    home = tmp_path_factory.mktemp("storyloom-home")
    monkeypatch.setenv("STORYLOOM_HOME", str(home))
    monkeypatch.delenv("STORYLOOM_API_KEY", raising=False)
    monkeypatch.delenv("STORYLOOM_REMOTE_PASSWORD", raising=False)
    # Remote passwords go to the private file under the test's home, never the real OS keyring.
    monkeypatch.setenv("STORYLOOM_PASSWORD_STORE", "file")
    return home
