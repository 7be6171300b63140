"""Helpers for the API tests: a recording navigation port, options, a live-server harness."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx

from storyloom.api import ApiServer, NavigationRefused, StaticProjectProvider
from tests.support.fixtures import DRAFFT_PROJECTS, REPO_ROOT

KEY = "test-key-0123456789abcdef"
GARDEN = DRAFFT_PROJECTS / "v2" / "the-garden-of-fading-memories.json"


@dataclass
class Options:
    """Stands for AppOptions where a test only needs the three fields the server reads."""

    api_key: str = KEY
    api_port: int = 0
    username: str = "tester"
    api_enabled: bool = True


@dataclass
class RecordingNavigation:
    """A fake navigation port: records each (route, id) it is asked to open."""

    calls: list[tuple[str, str]] = field(default_factory=list)
    refuse: str | None = None

    def navigate(self, route: str, doc_id: str) -> None:
        if self.refuse:
            raise NavigationRefused(self.refuse)
        self.calls.append((route, doc_id))


@dataclass
class Harness:
    server: ApiServer
    client: httpx.Client
    project: Any
    navigation: RecordingNavigation | None
    options: Any

    @property
    def url(self) -> str:
        assert self.server.url
        return self.server.url

    def get(self, path: str, **kwargs: Any) -> httpx.Response:
        return self.client.get(path, **kwargs)


@contextmanager
def running_server(project: Any, *, navigation: RecordingNavigation | None = None, options: Any = None,
                   **server_kwargs: Any) -> Iterator[Harness]:
    options = options or Options()
    provider = StaticProjectProvider(project) if not callable(project) else project
    server = ApiServer(provider, options, navigation, **server_kwargs)
    server.start()
    client = httpx.Client(base_url=server.url or "", headers={"x-api-key": options.api_key.encode()}, timeout=20)
    try:
        yield Harness(server, client, project, navigation, options)
    finally:
        client.close()
        server.stop()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def raw_request(port: int, data: bytes) -> bytes:
    """Send raw bytes to the server and return the raw answer (for malformed/odd requests)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(data)
        chunks = []
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
    return b"".join(chunks)


def writer_process(project_id: str, *args: str) -> subprocess.Popen[str]:
    """Another process writing to the project (``tests/api/writer_process.py``), as `storyloom sync`
    or a second Storyloom would; it finds the project under the test's $STORYLOOM_HOME."""
    return subprocess.Popen([sys.executable, "-m", "tests.api.writer_process", project_id, *args],
                            cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
