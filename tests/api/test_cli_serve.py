"""``storyloom serve`` as a real subprocess: prints the URL, serves, stops cleanly on SIGTERM/SIGINT.

Every server listens on loopback only; every blocking read has a timeout (``DEADLINE``, generous
for a loaded CI machine), so a broken ``serve`` fails a test instead of hanging it.
"""

from __future__ import annotations

import logging
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any

import httpx
import pytest

from tests.api.support import GARDEN, KEY, free_port

URL_LINE = re.compile(r"Serving project '(?P<name>[^']+)' at (?P<url>http://\S+) \(Ctrl-C to stop\)")
DEADLINE = 30.0  # seconds: for the child to start, answer, or exit
KEY_ENV = {"STORYLOOM_API_KEY": KEY}
# Where a key came from, told apart (each long enough for the key rule: 16 characters at least).
ENV_KEY, OPTIONS_KEY, FILE_KEY = "from-the-environment", "from-the-app-options", "from-the-key-file"


@pytest.fixture
def served_project(storyloom_home) -> str:
    """A project in the test's STORYLOOM_HOME (the Garden import), closed so the child opens it."""
    from storyloom.drafft import import_backup
    from storyloom.project.manager import ProjectManager

    project, _report = import_backup(ProjectManager(), GARDEN, name="Garden")
    name = project.name
    project.close()
    return name


class Served:
    """A ``storyloom serve`` child whose stdout and stderr are read by threads (reads never block a test)."""

    def __init__(self, args: tuple[str, ...], env: dict[str, str] | None) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "storyloom", "serve", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, **(env or {})},
        )
        self.stdout_lines: queue.Queue[str | None] = queue.Queue()
        self._out: list[str] = []
        self._err: list[str] = []
        assert self.process.stdout is not None and self.process.stderr is not None
        self._readers = [
            threading.Thread(target=self._read, args=(self.process.stdout, self._out, self.stdout_lines), daemon=True),
            threading.Thread(target=self._read, args=(self.process.stderr, self._err, None), daemon=True),
        ]
        for reader in self._readers:
            reader.start()

    @staticmethod
    def _read(stream: IO[str], into: list[str], lines: queue.Queue[str | None] | None) -> None:
        for line in stream:
            into.append(line)
            if lines is not None:
                lines.put(line)
        if lines is not None:
            lines.put(None)  # end of output

    def first_line(self) -> str:
        try:
            line = self.stdout_lines.get(timeout=DEADLINE)
        except queue.Empty:
            raise AssertionError(f"`storyloom serve` printed nothing within {DEADLINE} s; "
                                 f"stderr: {self.stderr}") from None
        return line or ""

    def wait(self) -> tuple[int, str, str]:
        """Wait for the child to exit (at most ``DEADLINE``); its exit code, stdout and stderr."""
        code = self.process.wait(timeout=DEADLINE)
        for reader in self._readers:
            reader.join(DEADLINE)
        return code, self.stdout, self.stderr

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=DEADLINE)

    @property
    def stdout(self) -> str:
        return "".join(self._out)

    @property
    def stderr(self) -> str:
        return "".join(self._err)


@contextmanager
def serve(*args: str, env: dict[str, str] | None = None) -> Iterator[tuple[Served, str]]:
    served = Served(args, env)
    try:
        line = served.first_line()
        match = URL_LINE.search(line)
        if not match:
            served.kill()
            _code, _out, err = served.wait()
            raise AssertionError(f"no URL line: {line!r}; stderr: {err}")
        yield served, match["url"]
    finally:
        served.kill()


def _finish(served: Served, sig: int) -> tuple[int, str, str]:
    served.process.send_signal(sig)
    return served.wait()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_serve_prints_the_url_serves_and_stops_cleanly(served_project, sig):
    port = free_port()
    with serve(served_project, "--port", str(port), env=KEY_ENV) as (served, url):
        assert url == f"http://127.0.0.1:{port}"
        info = httpx.get(url + "/info", headers={"x-api-key": KEY}, timeout=DEADLINE)
        assert info.status_code == 200
        assert info.json()["project"]["name"] == served_project
        navigate = httpx.get(url + "/navigate?id=ProjectSettings", headers={"x-api-key": KEY}, timeout=DEADLINE)
        assert navigate.status_code == 400
        code, out, err = _finish(served, sig)
    assert code == 0, err
    assert "Traceback" not in err and "Traceback" not in out
    assert "Stopped." in out
    with pytest.raises(httpx.ConnectError):
        httpx.get(url + "/openapi.json", timeout=DEADLINE)


def test_serve_stops_cleanly_while_a_client_streams_events(served_project):
    """SIGTERM ends the open stream with `event: end` and the child exits 0: it does not wait on it."""
    port = free_port()
    with serve(served_project, "--port", str(port), env=KEY_ENV) as (served, url):
        with httpx.stream("GET", url + "/events", headers={"x-api-key": KEY}, timeout=DEADLINE) as response:
            assert response.status_code == 200
            lines = response.iter_lines()
            assert next(lines).startswith("retry:")
            served.process.send_signal(signal.SIGTERM)
            rest = list(lines)  # returns only when the server ends the stream (read timeout: DEADLINE)
        assert "event: end" in rest
        assert 'data: {"reason":"server stopping"}' in rest
        code, out, err = served.wait()
    assert code == 0, err
    assert "Traceback" not in err
    assert "Stopped." in out
    assert "timeout graceful shutdown exceeded" not in err  # the stream ended; nothing was cancelled


def test_headless_navigate_is_409(served_project):
    from storyloom.project.manager import ProjectManager

    with ProjectManager().open(served_project) as project:
        script = next(r["id"] for r in project.store.all_docs(include_docs=True)["rows"]
                      if r["doc"].get("type") == "Script")
    with serve(served_project, "--port", str(free_port()), env=KEY_ENV) as (served, url):
        response = httpx.get(url + "/navigate", params={"id": script}, headers={"x-api-key": KEY},
                             timeout=DEADLINE)
        assert response.status_code == 409
        assert response.json()["success"] is False
        _finish(served, signal.SIGTERM)


def test_key_from_the_environment_then_the_options(served_project):
    from storyloom.app.options import AppOptions

    with serve(served_project, "--port", str(free_port()), env={"STORYLOOM_API_KEY": ENV_KEY}) as (p, url):
        assert httpx.get(url + "/info", headers={"x-api-key": ENV_KEY}, timeout=DEADLINE).status_code == 200
        _finish(p, signal.SIGTERM)
    options = AppOptions.load()
    options.api_key = OPTIONS_KEY
    options.api_port = free_port()
    options.save()
    with serve(served_project) as (p, url):
        assert url == f"http://127.0.0.1:{options.api_port}"
        assert httpx.get(url + "/info", headers={"x-api-key": OPTIONS_KEY}, timeout=DEADLINE).status_code == 200
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


@pytest.mark.parametrize("source", ["environment", "key file", "app options"])
def test_serve_refuses_a_key_shorter_than_16_characters_from_every_source(served_project, tmp_path, source):
    from storyloom.app.options import AppOptions

    short = "hunter2-hunter2"  # 15 characters
    args, env, named = ["--port", str(free_port())], {}, ""
    if source == "environment":
        env, named = {"STORYLOOM_API_KEY": short}, "$STORYLOOM_API_KEY is too short (15 characters)"
    elif source == "key file":
        file = _key_file(tmp_path, short, 0o600)
        args += ["--key-file", str(file)]
        named = f"the key in {file} is too short (15 characters)"
    else:
        options = AppOptions.load()
        options.api_key = short  # as an options file written before the rule would hold it
        options.save()
        named = "the app options' API key is too short (15 characters)"
    result = _run(served_project, *args, env=env)
    assert result.returncode == 2
    assert result.stderr.startswith(f"storyloom: error: {named}: an API key needs at least 16 characters")
    assert "`storyloom options set api.key new`" in result.stderr
    assert short not in result.stderr + result.stdout and "Serving" not in result.stdout
    assert "Traceback" not in result.stderr


def test_serve_on_a_busy_port_is_a_clear_error(served_project):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = _run(served_project, "--port", str(port), env=KEY_ENV)
    assert result.returncode == 1
    assert f"port {port} is already in use" in result.stderr
    assert "Traceback" not in result.stderr


def test_serve_an_unknown_project_is_a_clear_error(storyloom_home):
    result = _run("no-such-project", env=KEY_ENV)
    assert result.returncode == 2
    assert "no-such-project" in result.stderr and "Traceback" not in result.stderr


def test_serve_on_another_address_warns_once_and_asks_for_that_address(served_project, monkeypatch, capsys,
                                                                        caplog):
    """`--host 0.0.0.0`, in process, with the bind replaced: the test itself listens on loopback only.

    The CLI prints the warning once (the server does not log it a second time) and asks the
    socket layer for exactly the address given.
    """
    from storyloom.api import server as server_module
    from storyloom.cli.main import main

    asked: list[tuple[str, int]] = []
    real_bind = server_module.bind_socket

    def fake_bind(host: str, port: int) -> socket.socket:
        asked.append((host, port))
        signal.raise_signal(signal.SIGTERM)  # stop as soon as it serves: `serve`'s own handler catches it
        return real_bind("127.0.0.1", 0)

    monkeypatch.setattr(server_module, "bind_socket", fake_bind)
    caplog.set_level(logging.WARNING)
    monkeypatch.setenv("STORYLOOM_API_KEY", KEY)
    port = free_port()
    code = main(["serve", served_project, "--port", str(port), "--host", "0.0.0.0"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert asked == [("0.0.0.0", port)]
    warning = server_module.exposure_warning("0.0.0.0")
    assert warning is not None
    assert err.count(warning) == 1 and f"storyloom: {warning}" in err
    assert "listens on 0.0.0.0, not only on this machine's loopback address" in warning
    assert not [r for r in caplog.records if "not only on this machine" in r.getMessage()]
    assert "Serving project" in out and "Stopped." in out and "Traceback" not in err


def _key_file(directory, key: str, mode: int):
    file = directory / "api.key"
    file.write_text(key + "\n", encoding="utf-8")
    file.chmod(mode)
    return file


def test_key_from_a_private_key_file_wins_over_the_environment(served_project, tmp_path):
    file = _key_file(tmp_path, FILE_KEY, 0o600)
    with serve(served_project, "--port", str(free_port()), "--key-file", str(file),
               env={"STORYLOOM_API_KEY": ENV_KEY}) as (served, url):
        assert httpx.get(url + "/info", headers={"x-api-key": FILE_KEY}, timeout=DEADLINE).status_code == 200
        assert httpx.get(url + "/info", headers={"x-api-key": ENV_KEY}, timeout=DEADLINE).status_code == 401
        with open(f"/proc/{served.process.pid}/cmdline", "rb") as cmdline:  # what `ps` shows
            assert FILE_KEY.encode() not in cmdline.read()
        _finish(served, signal.SIGTERM)


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o660])
def test_a_key_file_other_users_can_open_is_refused(served_project, tmp_path, mode):
    file = _key_file(tmp_path, "secret-in-the-key-file", mode)
    result = _run(served_project, "--port", str(free_port()), "--key-file", str(file))
    assert result.returncode == 2
    assert f"chmod 600 {file}" in result.stderr and f"mode {mode:04o}" in result.stderr
    assert "secret-in-the-key-file" not in result.stderr + result.stdout
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("problem", ["missing", "empty", "folder"])
def test_an_unusable_key_file_is_a_clear_error(served_project, tmp_path, problem):
    file = tmp_path / "api.key"
    if problem == "empty":
        _key_file(tmp_path, "  ", 0o600)
    elif problem == "folder":
        file.mkdir()
    result = _run(served_project, "--port", str(free_port()), "--key-file", str(file))
    assert result.returncode == 2
    expected = {"missing": "No such file", "empty": "is empty", "folder": "not a regular file"}[problem]
    assert f"key file {file}" in result.stderr and expected in result.stderr
    assert "Traceback" not in result.stderr


def test_a_key_on_the_command_line_is_refused_without_echoing_it(served_project):
    result = _run(served_project, "--port", str(free_port()), "--key", "typed-secret")
    assert result.returncode == 2
    assert "--key is not accepted" in result.stderr and "STORYLOOM_API_KEY" in result.stderr
    assert "--key-file" in result.stderr
    assert "typed-secret" not in result.stderr + result.stdout
    assert "Traceback" not in result.stderr


def _served_cache_bounds(monkeypatch, argv: list[str]) -> list[int | None]:
    """Run `storyloom serve` in process until it serves (then SIGTERM); the answer cache bound
    each start of the server asked for."""
    import storyloom.export
    from storyloom.api import server as server_module
    from storyloom.cli.main import main

    bounds: list[int | None] = []
    real_cache, real_bind = storyloom.export.ExportCache, server_module.bind_socket

    def recording_cache(*args: Any, **kwargs: Any) -> Any:
        bounds.append(kwargs.get("max_bytes"))
        return real_cache(*args, **kwargs)

    def bind_then_stop(host: str, port: int) -> socket.socket:
        signal.raise_signal(signal.SIGTERM)  # stop as soon as it serves: `serve`'s own handler catches it
        return real_bind(host, port)

    # The server takes the class from the export layer's face when it starts.
    monkeypatch.setattr(storyloom.export, "ExportCache", recording_cache, raising=False)
    monkeypatch.setattr(server_module, "bind_socket", bind_then_stop)
    monkeypatch.setenv("STORYLOOM_API_KEY", KEY)
    assert main(["serve", *argv, "--port", str(free_port())]) == 0
    return bounds


def test_the_answer_cache_bound_comes_from_the_flag_else_the_app_options(served_project, monkeypatch, capsys):
    from storyloom.app import AppOptions

    assert _served_cache_bounds(monkeypatch, [served_project]) == [64 * 2**20]
    AppOptions(username="tester", api_answer_cache_mb=12).save()
    assert _served_cache_bounds(monkeypatch, [served_project]) == [12 * 2**20]
    assert _served_cache_bounds(monkeypatch, [served_project, "--answer-cache-mb", "7"]) == [7 * 2**20]
    assert _served_cache_bounds(monkeypatch, [served_project, "--answer-cache-mb", "0"]) == [0]
    assert AppOptions.load().api_answer_cache_mb == 12  # the flag is never saved
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize("value", ["-1", "4097", "lots", "1.5", ""])
def test_a_wrong_answer_cache_bound_is_refused_with_what_is_expected(storyloom_home, monkeypatch, capsys, value):
    from storyloom.cli.main import main

    monkeypatch.setenv("STORYLOOM_API_KEY", KEY)
    assert main(["serve", "Garden", "--port", str(free_port()), "--answer-cache-mb", value]) == 2
    out, err = capsys.readouterr()
    assert err == (
        "storyloom: error: --answer-cache-mb: expected a whole number of MiB from 0 to 4096 (0 keeps no answers: "
        f"each request builds its export), got {value!r}\n"
    )
    assert "Serving" not in out
