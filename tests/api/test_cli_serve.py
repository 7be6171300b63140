"""``storyloom serve`` as a real subprocess: prints the URL, serves, stops cleanly on SIGTERM/SIGINT."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest

from tests.api.support import GARDEN, KEY, free_port

URL_LINE = re.compile(r"Serving project '(?P<name>[^']+)' at (?P<url>http://\S+) \(Ctrl-C to stop\)")


@pytest.fixture
def served_project(storyloom_home) -> str:
    """A project in the test's STORYLOOM_HOME (the Garden import), closed so the child opens it."""
    from storyloom.export.drafft_import import import_backup
    from storyloom.project.manager import ProjectManager

    project, _report = import_backup(ProjectManager(), GARDEN, name="Garden")
    name = project.name
    project.close()
    return name


@contextmanager
def serve(*args: str, env: dict[str, str] | None = None) -> Iterator[tuple[subprocess.Popen, str]]:
    process = subprocess.Popen(
        [sys.executable, "-m", "storyloom", "serve", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        match = URL_LINE.search(line)
        if not match:
            process.kill()
            _out, err = process.communicate(timeout=10)
            raise AssertionError(f"no URL line: {line!r}; stderr: {err}")
        yield process, match["url"]
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate(timeout=10)


def _finish(process: subprocess.Popen, sig: int) -> tuple[int, str, str]:
    process.send_signal(sig)
    out, err = process.communicate(timeout=20)
    return process.returncode, out, err


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_serve_prints_the_url_serves_and_stops_cleanly(served_project, sig):
    port = free_port()
    with serve(served_project, "--port", str(port), "--key", KEY) as (process, url):
        assert url == f"http://127.0.0.1:{port}"
        info = httpx.get(url + "/info", headers={"x-api-key": KEY}, timeout=10)
        assert info.status_code == 200
        assert info.json()["project"]["name"] == served_project
        navigate = httpx.get(url + "/navigate?id=ProjectSettings", headers={"x-api-key": KEY}, timeout=10)
        assert navigate.status_code == 400
        code, out, err = _finish(process, sig)
    assert code == 0, err
    assert "Traceback" not in err and "Traceback" not in out
    assert "Stopped." in out
    with pytest.raises(httpx.ConnectError):
        httpx.get(url + "/openapi.json", timeout=2)


def test_serve_stops_cleanly_while_a_client_streams_events(served_project):
    port = free_port()
    with serve(served_project, "--port", str(port), "--key", KEY) as (process, url):
        with httpx.stream("GET", url + "/events", headers={"x-api-key": KEY}, timeout=20) as response:
            assert response.status_code == 200
            lines = response.iter_lines()
            assert next(lines).startswith("retry:")
            started = time.monotonic()
            process.send_signal(signal.SIGTERM)
            rest = list(lines)
        assert "event: end" in rest
        _out, err = process.communicate(timeout=20)
        assert time.monotonic() - started < 10
    assert process.returncode == 0, err
    assert "Traceback" not in err


def test_headless_navigate_is_409(served_project):
    from storyloom.project.manager import ProjectManager

    with ProjectManager().open(served_project) as project:
        script = next(r["id"] for r in project.db.all_docs(include_docs=True)["rows"]
                      if r["doc"].get("type") == "Script")
    with serve(served_project, "--port", str(free_port()), "--key", KEY) as (process, url):
        response = httpx.get(url + "/navigate", params={"id": script}, headers={"x-api-key": KEY}, timeout=10)
        assert response.status_code == 409
        assert response.json()["success"] is False
        _finish(process, signal.SIGTERM)


def test_key_from_the_environment_then_the_options(served_project):
    from storyloom.project.options import AppOptions

    with serve(served_project, "--port", str(free_port()), env={"STORYLOOM_API_KEY": "from-env"}) as (p, url):
        assert httpx.get(url + "/info", headers={"x-api-key": "from-env"}).status_code == 200
        _finish(p, signal.SIGTERM)
    options = AppOptions.load()
    options.api_key = "from-options"
    options.api_port = free_port()
    options.save()
    with serve(served_project) as (p, url):
        assert url == f"http://127.0.0.1:{options.api_port}"
        assert httpx.get(url + "/info", headers={"x-api-key": "from-options"}).status_code == 200
        _finish(p, signal.SIGTERM)


def _run(*args: str, env: dict[str, Any] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "storyloom", "serve", *args],
        capture_output=True, text=True, timeout=60, env={**os.environ, **(env or {})},
    )


def test_serve_without_a_key_is_a_clear_error(served_project):
    result = _run(served_project, "--port", str(free_port()))
    assert result.returncode == 2
    assert "no API key" in result.stderr and "STORYLOOM_API_KEY" in result.stderr
    assert "Traceback" not in result.stderr


def test_serve_on_a_busy_port_is_a_clear_error(served_project):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = _run(served_project, "--port", str(port), "--key", KEY)
    assert result.returncode == 1
    assert f"port {port} is already in use" in result.stderr
    assert "Traceback" not in result.stderr


def test_serve_an_unknown_project_is_a_clear_error(storyloom_home):
    result = _run("no-such-project", "--key", KEY)
    assert result.returncode == 2
    assert "no-such-project" in result.stderr and "Traceback" not in result.stderr


def test_serve_on_another_address_warns(served_project):
    with serve(served_project, "--port", str(free_port()), "--key", KEY, "--host", "0.0.0.0") as (p, url):
        assert httpx.get(url + "/info", headers={"x-api-key": KEY}).status_code == 200
        code, _out, err = _finish(p, signal.SIGTERM)
    assert code == 0
    assert "warning" in err and "0.0.0.0" in err
