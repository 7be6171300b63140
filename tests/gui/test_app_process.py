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

import httpx
import pytest

from storyloom.project.manager import ProjectManager

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
    """A virtual display on a free number (Xvfb picks it and writes it to -displayfd)."""
    if shutil.which("Xvfb") is None:
        pytest.fail("Xvfb is not installed: scripts/test installs it (apt package xvfb)")
    read, write = os.pipe()
    server = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write), "-nolisten", "tcp", "-screen", "0", "1440x900x24"],
        pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    os.close(write)
    try:
        with os.fdopen(read) as pipe:
            number = pipe.readline().strip()
        assert number.isdigit(), f"Xvfb gave no display number (exit code {server.poll()})"
        yield f":{number}"
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(5)


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
        body = None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and app.poll() is None:
            try:
                response = httpx.get(f"http://127.0.0.1:{port}/info", headers={"x-api-key": API_KEY}, timeout=2)
            except httpx.TransportError:
                time.sleep(0.2)
                continue
            assert response.status_code == 200, response.text
            body = response.json()
            break
        log.seek(0)
        assert body is not None, f"the app never answered /info (exit code {app.poll()}):\n{log.read()}"
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
