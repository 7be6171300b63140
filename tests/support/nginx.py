"""nginx as a reverse proxy in front of the test server, for real HTTP 413 answers.

``NginxProxy(workdir, upstream_port, client_max_body_size="8k")`` writes a config with its own
pid, log and temp paths under ``workdir``, ``daemon off;``, listens on a free loopback port and
passes every request unchanged (no path decoding, no buffering, a long read timeout so
longpolls work through it). ``stop()`` ends the whole process group.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.couch import CouchServer, free_port, stop_process_group

CONFIG_TEMPLATE = """\
daemon off;
master_process on;
worker_processes 1;
user {user};
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;

events {{
    worker_connections 256;
}}

http {{
    access_log {dir}/access.log;
    client_body_temp_path {dir}/client_body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;

    server {{
        listen 127.0.0.1:{port};
        client_max_body_size {limit};
        location / {{
            proxy_pass http://127.0.0.1:{upstream};
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_buffering off;
            proxy_request_buffering off;
            proxy_read_timeout 3600s;
            proxy_send_timeout 3600s;
        }}
    }}
}}
"""


def nginx_binary() -> str:
    for candidate in (shutil.which("nginx"), "/usr/sbin/nginx"):
        if candidate and Path(candidate).exists():
            return candidate
    raise RuntimeError(
        "nginx is required for the 413 tests: apt-get install -y --no-install-recommends nginx "
        "(scripts/test installs it)"
    )


class NginxProxy:
    def __init__(self, workdir: Path, upstream_port: int, client_max_body_size: str = "8k") -> None:
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.upstream_port = upstream_port
        self.client_max_body_size = client_max_body_size
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 10.0) -> None:
        binary = nginx_binary()
        import getpass

        user = getpass.getuser()
        for _attempt in range(3):
            self.port = free_port()
            conf = self.workdir / "nginx.conf"
            conf.write_text(
                CONFIG_TEMPLATE.format(
                    dir=self.workdir,
                    port=self.port,
                    upstream=self.upstream_port,
                    limit=self.client_max_body_size,
                    user=user,
                )
            )
            with open(self.workdir / "stdout.txt", "wb") as log:
                self.proc = subprocess.Popen(
                    [binary, "-c", str(conf), "-p", str(self.workdir), "-e", str(self.workdir / "error.log")],
                    cwd=self.workdir,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL,
                    start_new_session=True,
                )
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline and self.proc.poll() is None:
                try:
                    httpx.get(self.url + "/", timeout=1)
                    return
                except httpx.HTTPError:
                    time.sleep(0.05)
            self.stop()
        raise RuntimeError(f"nginx did not start: {(self.workdir / 'error.log').read_text(errors='replace')}")

    def stop(self) -> None:
        if self.proc is not None:
            stop_process_group(self.proc)
            self.proc = None

    def __enter__(self) -> NginxProxy:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


@pytest.fixture
def nginx_proxy(couch: CouchServer, tmp_path: Path) -> Iterator[NginxProxy]:
    """nginx with ``client_max_body_size 8k`` in front of the session's pouchdb-server."""
    proxy = NginxProxy(tmp_path / "nginx", couch.port, "8k")
    proxy.start()
    try:
        yield proxy
    finally:
        proxy.stop()
