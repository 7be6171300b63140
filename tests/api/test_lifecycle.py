"""Start, stop and restart; the controller following the app options; a port already in use.

The assertions are about behaviour (stopped, nothing forced or cancelled, streams ended), with
generous deadlines (``DEADLINE``) for a loaded CI machine, never about how fast it went.
"""

from __future__ import annotations

import logging
import socket
import threading
import time

import httpx
import pytest

from storyloom.api import ApiController, ApiServer, ApiStartError, ApiStatus, StaticProjectProvider
from tests.api.support import KEY, RecordingNavigation, free_port

DEADLINE = 20.0
GRACEFUL_EXCEEDED = "timeout graceful shutdown exceeded"  # uvicorn's log when it cancels requests


def _app_options(**values):
    """The real app options (storyloom.app.options.AppOptions) with ``values`` set."""
    from storyloom.app.options import AppOptions

    options = AppOptions()
    options.username = "tester"
    for name, value in values.items():
        setattr(options, name, value)
    return options


def _info(url: str, key: str = KEY) -> httpx.Response:
    return httpx.get(url + "/info", headers={"x-api-key": key}, timeout=DEADLINE)


def _refused(url: str) -> bool:
    try:
        httpx.get(url + "/openapi.json", timeout=DEADLINE)
    except httpx.ConnectError:
        return True
    return False


def _cancelled(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if GRACEFUL_EXCEEDED in r.getMessage()]


@pytest.fixture
def uvicorn_errors(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.ERROR, logger="uvicorn.error")
    return caplog


def test_start_stop_restart(garden, uvicorn_errors):
    options = _app_options(api_key=KEY, api_port=free_port())
    server = ApiServer(StaticProjectProvider(garden), options)
    assert not server.running and server.url is None
    url = server.start()
    assert url == f"http://127.0.0.1:{options.api_port}" == server.url
    assert server.start() == url  # idempotent
    assert _info(url).status_code == 200
    server.stop()
    assert not server.running and server.url is None
    assert _refused(url)
    server.stop()  # idempotent
    server.start()
    assert _info(url).status_code == 200
    old_runner = server._runner
    server.restart()
    assert server.running and server._runner is not old_runner and not old_runner.alive
    assert not old_runner.forced  # the old server stopped by itself, nothing in flight was cut
    assert _info(url).status_code == 200
    server.stop()
    assert not _cancelled(uvicorn_errors)


def test_restart_applies_a_new_port_and_key(garden):
    options = _app_options(api_key=KEY, api_port=free_port())
    with ApiServer(StaticProjectProvider(garden), options) as server:
        old_url = server.url
        options.api_port = free_port()
        options.api_key = "new-key-abcdef-ghijk"
        new_url = server.restart()
        assert new_url != old_url and new_url == server.url
        assert _refused(old_url)
        assert _info(new_url, "new-key-abcdef-ghijk").status_code == 200
        assert _info(new_url, KEY).status_code == 401


def test_port_in_use_is_a_clear_error_and_nothing_keeps_running(garden):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        server = ApiServer(StaticProjectProvider(garden), _app_options(api_key=KEY, api_port=port))
        with pytest.raises(ApiStartError) as info:
            server.start()
        message = str(info.value)
        assert f"port {port} is already in use" in message
        assert "Choose another API port" in message
        assert not server.running


def test_two_servers_cannot_share_a_port(garden):
    port = free_port()
    with ApiServer(StaticProjectProvider(garden), _app_options(api_key=KEY, api_port=port)):
        second = ApiServer(StaticProjectProvider(garden), _app_options(api_key=KEY, api_port=port))
        with pytest.raises(ApiStartError, match="already in use"):
            second.start()


@pytest.mark.parametrize("port", [-1, 70000, "9001"])
def test_invalid_port_is_a_clear_error(garden, port):
    server = ApiServer(StaticProjectProvider(garden), _app_options(api_key=KEY, api_port=port))
    with pytest.raises(ApiStartError, match="invalid API port"):
        server.start()


def test_stop_does_not_wait_for_idle_keep_alive_connections(garden, uvicorn_errors):
    """An idle keep-alive connection is closed by stop(), not waited for.

    Waiting for it would last until the keep-alive timeout (5 s), past uvicorn's graceful timeout
    (3 s): uvicorn would log that it gave up waiting. The connection itself sees the close.
    """
    with ApiServer(StaticProjectProvider(garden), _app_options(api_key=KEY, api_port=0)) as server:
        port = server.port
        with socket.create_connection(("127.0.0.1", port), timeout=DEADLINE) as idle:
            idle.sendall(f"GET /info HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nx-api-key: {KEY}\r\n\r\n".encode())
            stream = idle.makefile("rb")
            assert stream.readline().startswith(b"HTTP/1.1 200")
            length = 0
            while (line := stream.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode("latin-1").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            assert len(stream.read(length)) == length  # the answer is read: the connection is idle
            runner = server._runner
            server.stop(timeout=DEADLINE)
            assert not server.running and not runner.alive and not runner.forced
            assert stream.read() == b""  # the server closed the idle connection
    assert not _cancelled(uvicorn_errors)


def test_stop_while_a_dump_is_being_read(garden):
    """A client that stops reading a dump does not keep the server (or the dump's thread) alive."""
    with ApiServer(StaticProjectProvider(garden), _app_options(api_key=KEY, api_port=0)) as server:
        url = server.url
        with httpx.stream("GET", url + "/db-dump", headers={"x-api-key": KEY}, timeout=DEADLINE) as response:
            assert response.status_code == 200
            runner = server._runner
            server.stop(timeout=DEADLINE)
            assert not server.running and not runner.alive and not runner.forced
            try:  # the stream ended: whatever was sent before the stop, then the end or a cut
                for _ in response.iter_bytes():
                    pass
            except httpx.HTTPError:
                pass
        assert _refused(url)
    deadline = time.monotonic() + DEADLINE
    while any(t.name == "storyloom-db-dump" for t in threading.enumerate()):
        assert time.monotonic() < deadline, "the dump's producer thread never ended"
        time.sleep(0.05)


# ---------------------------------------------------------------------- the controller


class _Recorder:
    def __init__(self) -> None:
        self.statuses: list[ApiStatus] = []

    def __call__(self, status: ApiStatus) -> None:
        self.statuses.append(status)


def test_controller_follows_project_and_options(garden):
    options = _app_options(api_enabled=False, api_key=KEY, api_port=free_port())
    recorder = _Recorder()
    controller = ApiController(options, RecordingNavigation(), on_status=recorder)
    try:
        # Enabled but no project: not running.
        options.api_enabled = True
        assert controller.options_changed() == ApiStatus(running=False)
        # A project opens: it starts.
        status = controller.project_opened(garden)
        assert status.running and status.url == f"http://127.0.0.1:{options.api_port}"
        assert _info(status.url).json()["project"]["id"] == garden.id
        # Nothing changed: no restart.
        server_thread = controller.server._runner
        controller.options_changed()
        assert controller.server._runner is server_thread
        # The username changes: still no restart, the new name is served.
        options.username = "someone-else"
        controller.options_changed()
        assert controller.server._runner is server_thread
        assert _info(status.url).json()["user"]["username"] == "someone-else"
        # The port changes: restarted on the new port.
        old_url = status.url
        options.api_port = free_port()
        status = controller.options_changed()
        assert status.running and status.url != old_url
        assert _refused(old_url)
        assert _info(status.url).status_code == 200
        # The key changes: restarted with the new key.
        options.api_key = "rotated-key-123456"
        status = controller.options_changed()
        assert _info(status.url, "rotated-key-123456").status_code == 200
        assert _info(status.url, KEY).status_code == 401
        # Disabled: stopped.
        url = status.url
        options.api_enabled = False
        assert controller.options_changed() == ApiStatus(running=False)
        assert _refused(url)
        # Enabled again, then the project closes: stopped.
        options.api_enabled = True
        assert controller.options_changed().running
        assert controller.project_closed() == ApiStatus(running=False)
        assert _refused(url)
        # A key change keeps the same status (same URL): no callback for it.
        assert [s.running for s in recorder.statuses] == [True, True, False, True, False]
    finally:
        controller.shutdown()


def test_controller_reports_port_in_use_and_the_app_keeps_working(garden):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        options = _app_options(api_enabled=True, api_key=KEY, api_port=port)
        recorder = _Recorder()
        controller = ApiController(options, on_status=recorder)
        status = controller.project_opened(garden)  # does not raise
        assert not status.running
        assert status.error and "already in use" in status.error
        assert recorder.statuses == [status]
        # The user picks another port: it starts.
        options.api_port = free_port()
        status = controller.options_changed()
        assert status.running and status.error is None
        controller.shutdown()
        assert not controller.status.running


def test_controller_refuses_an_empty_key(garden):
    options = _app_options(api_enabled=True, api_key="", api_port=free_port())
    controller = ApiController(options)
    status = controller.project_opened(garden)
    assert not status.running and "key is empty" in (status.error or "")
    controller.shutdown()


def test_controller_serves_the_current_project_and_ends_streams_on_switch(garden, storyloom_home):
    from storyloom.project.manager import ProjectManager

    other = ProjectManager().create("Other")
    options = _app_options(api_enabled=True, api_key=KEY, api_port=free_port())
    controller = ApiController(options, heartbeat=30)
    try:
        url = controller.project_opened(garden).url
        lines: list[str] = []

        def listen() -> None:
            with httpx.stream("GET", url + "/events", headers={"x-api-key": KEY}, timeout=DEADLINE) as response:
                for line in response.iter_lines():
                    lines.append(line)

        listener = threading.Thread(target=listen)
        listener.start()
        deadline = time.monotonic() + DEADLINE
        while controller.server.open_event_streams == 0 and time.monotonic() < deadline:
            time.sleep(0.02)
        controller.project_opened(other)
        listener.join(DEADLINE)
        assert not listener.is_alive()
        assert "event: end" in lines and any("project closed" in line for line in lines)
        assert _info(url).json()["project"]["id"] == other.id
        controller.project_closed()
        assert not controller.status.running
    finally:
        controller.shutdown()
        other.close()


def test_the_answer_cache_bound_follows_the_options_and_a_change_restarts(garden):
    options = _app_options(api_enabled=True, api_key=KEY, api_port=free_port(), api_answer_cache_mb=0)
    assert ApiServer(StaticProjectProvider(garden), _app_options()).cache_bytes == 64 * 2**20
    assert ApiServer(StaticProjectProvider(garden), options, answer_cache_bytes=5).cache_bytes == 5  # given wins
    controller = ApiController(options)
    try:
        status = controller.project_opened(garden)
        assert status.running, status.error
        cache = controller.server.answer_cache
        assert cache is not None and cache.max_bytes == 0
        for _ in range(2):
            answer = httpx.get(status.url + "/game-export", headers={"x-api-key": KEY}, timeout=DEADLINE)
            assert answer.status_code == 200
        assert cache.held_bytes == 0  # 0 keeps no answer
        # Unchanged: no restart. A new bound: restarted with it, on the same URL.
        runner = controller.server._runner
        controller.options_changed()
        assert controller.server._runner is runner
        options.api_answer_cache_mb = 3
        assert controller.options_changed() == status
        assert controller.server._runner is not runner
        cache = controller.server.answer_cache
        assert cache is not None and cache.max_bytes == 3 * 2**20
        answer = httpx.get(status.url + "/game-export", headers={"x-api-key": KEY}, timeout=DEADLINE)
        assert answer.status_code == 200 and cache.held_bytes > 0
    finally:
        controller.shutdown()
    assert controller.server.answer_cache is None
