"""Suite-wide fixtures: every test gets its own STORYLOOM_HOME (and keeps remote passwords in a
file there) so none touches the real home or the OS keyring."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def storyloom_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    home = tmp_path_factory.mktemp("storyloom-home")
    monkeypatch.setenv("STORYLOOM_HOME", str(home))
    monkeypatch.delenv("STORYLOOM_API_KEY", raising=False)
    monkeypatch.delenv("STORYLOOM_REMOTE_PASSWORD", raising=False)
    # Remote passwords go to the private file under the test's home, never the real OS keyring.
    monkeypatch.setenv("STORYLOOM_PASSWORD_STORE", "file")
    return home
