"""The app as a real process on a virtual X display (Xvfb, the xcb platform plugin): it opens a
project with the local API on, answers GET /info, and SIGTERM (or SIGINT) ends it cleanly (exit code 0,
the port released) within a few seconds."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest
from tools.xvfb import virtual_display

from storyloom.project.manager import ProjectManager
from tests.support.app_api import wait_for_info

pytestmark = pytest.mark.integration  # the app as a process on Xvfb

API_KEY = "process-test-key-0123456789abcdef"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _port_is_free(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


@pytest.fixture
def xvfb() -> Iterator[str]:
    """A virtual display on a free number (tools.xvfb)."""
    if shutil.which("Xvfb") is None:
        pytest.fail("Xvfb is not installed: scripts/test installs it (apt package xvfb)")
    with virtual_display() as display:
        yield display


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_the_app_serves_the_api_and_ends_cleanly_on_a_signal(signum, xvfb, storyloom_home, tmp_path):
    port = _free_port()
    config = storyloom_home / "config"
    config.mkdir(parents=True, exist_ok=True)
    (config / "options.json").write_text(json.dumps({
        "username": "process-tester", "api_enabled": True, "api_key": API_KEY, "api_port": port,
    }))
    with ProjectManager().create("Goddess", "served from the app"):
        pass
    env = {
        **os.environ, "DISPLAY": xvfb, "QT_QPA_PLATFORM": "xcb", "STORYLOOM_HOME": str(storyloom_home),
        "PYTHONUNBUFFERED": "1",
    }
    env.pop("WAYLAND_DISPLAY", None)
    log = (tmp_path / "app.log").open("w+")
    app = subprocess.Popen([sys.executable, "-m", "storyloom", "app", "Goddess"], env=env,
                           stdout=log, stderr=subprocess.STDOUT)
    try:
        body = wait_for_info(app, port, API_KEY, log)
        assert body["project"]["name"] == "Goddess"
        assert body["project"]["description"] == "served from the app"
        assert body["user"]["username"] == "process-tester"

        started = time.monotonic()
        app.send_signal(signum)
        code = app.wait(timeout=15)
        elapsed = time.monotonic() - started
        log.seek(0)
        output = log.read()
        assert code == 0, output
        assert elapsed < 5, f"{signum.name} took {elapsed:.1f} s"
        assert "Traceback" not in output, output
        assert _port_is_free(port)
    finally:
        if app.poll() is None:
            app.kill()
            app.wait(10)
        log.close()
