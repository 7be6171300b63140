"""The servers and peers the sync benchmarks (and the tests) run: pouchdb-server 4.2.0 as a
CouchDB-compatible server and a PouchDB 9 peer in Node. No pytest here: the benchmarks import
this module on a machine with only the app installed (``scripts/bench``); ``tests/support/couch.py``
adds the pytest fixtures on top of it.

``CouchServer`` starts ``pouchdb-server --in-memory`` (or ``--dir`` for a persistent one) on a
free loopback port, in its own temp working directory (it writes ``config.json`` and
``log.txt`` there), with a server admin pre-seeded in ``config.json``; it waits until
``GET /`` answers and stops the whole process group afterwards. pouchdb-server crashes on
a few requests (a non-admin ``PUT /newdb``, ``_changes?filter=_selector``,
``_bulk_get?latest=true`` with an unknown rev): ``ensure_running()`` restarts it.

``PouchPeer`` is a Node process (``tests/sync/pouch_peer.js``) holding PouchDB databases
(LevelDB in its work directory), driven by one JSON command per line.

The Node packages are those of ``tests/node/package.json``, installed by ``scripts/test`` and
``scripts/bench`` (or on first use, by :func:`ensure_node_packages`).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx

ROOT = Path(__file__).resolve().parent.parent
NODE_DIR = ROOT / "tests" / "node"
NODE_MODULES = NODE_DIR / "node_modules"
POUCH_PEER_SCRIPT = ROOT / "tests" / "sync" / "pouch_peer.js"
# Preloaded into every pouchdb-server: pouchdb-validation 4.2.0 drops a replicated write
# (``new_edits: false``) silently once a database has a validate_doc_update function, where
# CouchDB validates it against its parent revision and keeps it (docs/protocol.md section 6).
VALIDATION_FIX = NODE_DIR / "pouchdb_validation_fix.js"

ADMIN_NAME = "admin"
ADMIN_PASSWORD = "admin-secret"


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def stop_process_group(proc: subprocess.Popen[Any], timeout: float = 5.0) -> None:
    """Stop a process started with ``start_new_session=True`` and all its children."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=timeout)
    else:
        # The leader is gone; children in its group may remain.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)


class CouchServer:
    """One pouchdb-server process and admin helpers to set up databases, users and security."""

    def __init__(self, workdir: Path, *, persistent: bool = False, validation_fix: bool = True) -> None:
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.persistent = persistent
        #: Preload :data:`VALIDATION_FIX`. False runs pouchdb-server 4.2 as released, which drops
        #: replicated writes once a database has a validate function (the tests of that failure).
        self.validation_fix = validation_fix
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None
        self.admin = (ADMIN_NAME, ADMIN_PASSWORD)
        self.uuid = uuid.uuid4().hex
        self.starts = 0
        self._admin_client: httpx.Client | None = None

    # -- process -------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def db_url(self, name: str) -> str:
        return f"{self.url}/{quote(name, safe='')}"

    def start(self, timeout: float = 20.0, port: int | None = None) -> None:
        """Start the server (on ``port`` if given, else on a free port)."""
        if self.alive():
            return
        node_modules = ensure_node_packages()
        script = node_modules / "pouchdb-server" / "bin" / "pouchdb-server"
        config = self.workdir / "config.json"
        if not config.exists():
            # Pre-seeded admin (pouchdb-server hashes it on start) and a fixed server uuid.
            config.write_text(
                json.dumps(
                    {
                        "admins": {ADMIN_NAME: ADMIN_PASSWORD},
                        "couchdb": {"uuid": self.uuid},
                        "log": {"file": str(self.workdir / "log.txt"), "level": "error"},
                    }
                )
            )
        for attempt in range(3):
            self.port = port if port and attempt == 0 else free_port()
            args = [node_binary(), str(script), "--host", "127.0.0.1", "--port", str(self.port)]
            args += ["--config", str(config)]
            if self.persistent:
                data = self.workdir / "data"
                data.mkdir(exist_ok=True)
                args += ["--dir", str(data)]
            else:
                args += ["--in-memory"]
            self.log_path = self.workdir / f"stdout-{self.starts}.txt"
            with open(self.log_path, "wb") as log:
                node_options = os.environ.get("NODE_OPTIONS", "")
                if self.validation_fix:
                    node_options = f"{node_options} --require {VALIDATION_FIX}".strip()
                self.proc = subprocess.Popen(
                    args,
                    cwd=self.workdir,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL,
                    start_new_session=True,
                    env=dict(os.environ, NODE_OPTIONS=node_options, STORYLOOM_NODE_MODULES=str(NODE_MODULES)),
                )
            self.starts += 1
            if self._wait_ready(timeout):
                self.uuid = httpx.get(self.url + "/", timeout=5).json().get("uuid", self.uuid)
                return
            self.stop()
        raise RuntimeError(f"pouchdb-server did not start; log:\n{self.log_tail()}")

    def _wait_ready(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc is None or self.proc.poll() is not None:
                return False
            try:
                if httpx.get(self.url + "/", timeout=1).status_code == 200:
                    return True
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        return False

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except (OSError, AttributeError):
            return ""

    def alive(self) -> bool:
        if self.proc is None or self.proc.poll() is not None:
            return False
        try:
            return httpx.get(self.url + "/", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    def stop(self) -> None:
        if self._admin_client is not None:
            self._admin_client.close()
            self._admin_client = None
        if self.proc is not None:
            stop_process_group(self.proc)
            self.proc = None

    def restart(self, *, same_port: bool = True) -> None:
        """Stop and start again; by default on the same port so that clients reconnect."""
        port = self.port
        self.stop()
        self.start(port=port if same_port else None)

    def ensure_running(self) -> None:
        """Restart the server (on the same port) if a request crashed it; in-memory data is
        then lost, a ``persistent`` server keeps it."""
        if not self.alive():
            self.restart(same_port=True)

    def __enter__(self) -> CouchServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- admin helpers -------------------------------------------------------------------------

    @property
    def client(self) -> httpx.Client:
        """An httpx client authenticated as the server admin."""
        if self._admin_client is None:
            self._admin_client = httpx.Client(
                base_url=self.url, auth=self.admin, headers={"Accept": "application/json"}, timeout=60
            )
        return self._admin_client

    def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        return self.client.request(method, path, **kwargs)

    def create_db(self, name: str | None = None) -> str:
        name = name or unique_db_name()
        response = self.request("PUT", "/" + quote(name, safe=""))
        assert response.status_code in (201, 412), response.text
        return name

    def delete_db(self, name: str) -> None:
        self.request("DELETE", "/" + quote(name, safe=""))

    def create_user(self, name: str, password: str, roles: list[str] | None = None) -> None:
        doc = {"name": name, "password": password, "roles": roles or [], "type": "user"}
        path = "/_users/" + quote(f"org.couchdb.user:{name}", safe=":")
        existing = self.request("GET", path)
        if existing.status_code == 200:
            doc["_rev"] = existing.json()["_rev"]
        response = self.request("PUT", path, json=doc)
        assert response.status_code in (201, 202), response.text

    def set_security(
        self, db: str, members: list[str] | None = None, admins: list[str] | None = None
    ) -> None:
        security = {
            "admins": {"names": admins or [], "roles": []},
            "members": {"names": members or [], "roles": []},
        }
        response = self.request("PUT", f"/{quote(db, safe='')}/_security", json=security)
        assert response.status_code in (200, 201), response.text

    def put_doc(self, db: str, doc: dict[str, Any]) -> dict[str, Any]:
        from storyloom.sync.urls import encode_doc_id

        response = self.request("PUT", f"/{quote(db, safe='')}/{encode_doc_id(doc['_id'])}", json=doc)
        assert response.status_code in (201, 202), response.text
        return response.json()

    def get_doc(self, db: str, doc_id: str, **params: Any) -> httpx.Response:
        from storyloom.sync.urls import encode_doc_id

        query = {k: (json.dumps(v) if not isinstance(v, str) else v) for k, v in params.items()}
        return self.request("GET", f"/{quote(db, safe='')}/{encode_doc_id(doc_id)}", params=query)

    def bulk_docs(self, db: str, docs: list[dict[str, Any]], new_edits: bool = True) -> Any:
        body: dict[str, Any] = {"docs": docs}
        if not new_edits:
            body["new_edits"] = False
        response = self.request("POST", f"/{quote(db, safe='')}/_bulk_docs", json=body)
        assert response.status_code in (201, 202), response.text
        return response.json()

    def db_info(self, db: str) -> dict[str, Any]:
        response = self.request("GET", f"/{quote(db, safe='')}")
        assert response.status_code == 200, response.text
        return response.json()

    def all_docs(self, db: str, **params: Any) -> dict[str, Any]:
        query = {k: (json.dumps(v) if not isinstance(v, str) else v) for k, v in params.items()}
        response = self.request("GET", f"/{quote(db, safe='')}/_all_docs", params=query)
        assert response.status_code == 200, response.text
        return response.json()


def unique_db_name(prefix: str = "db") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def ensure_node_packages() -> Path:
    """Install the Node packages if a developer runs pytest without scripts/test; return node_modules."""
    if not (NODE_MODULES / ".package-lock.json").exists():
        npm = shutil.which("npm")
        if npm is None:
            raise RuntimeError("npm is required for these tests; install Node.js and npm")
        subprocess.run(
            [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=NODE_DIR,
            check=True,
        )
    return NODE_MODULES


def node_binary() -> str:
    node = shutil.which("node")
    if node is None:
        raise RuntimeError("node is required for these tests; install Node.js")
    return node


class PouchError(Exception):
    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(error.get("message"))
        self.status = error.get("status")
        self.name = error.get("name")
        self.reason = error.get("reason")


class PouchPeer:
    """A Node process holding PouchDB databases (LevelDB in ``workdir``)."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        node_modules = ensure_node_packages()
        env = dict(os.environ, NODE_PATH=str(node_modules))
        self.stderr = open(self.workdir / "stderr.txt", "wb")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [node_binary(), str(POUCH_PEER_SCRIPT), str(self.workdir)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            env=env,
            cwd=self.workdir,
            start_new_session=True,
        )
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def call(self, cmd: str, **args: Any) -> Any:
        with self._lock:
            msg_id = next(self._ids)
            assert self.proc.stdin is not None and self.proc.stdout is not None
            self.proc.stdin.write((json.dumps({"id": msg_id, "cmd": cmd, "args": args}) + "\n").encode())
            self.proc.stdin.flush()
            line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the PouchDB peer died: {(self.workdir / 'stderr.txt').read_text()[-2000:]}")
        reply = json.loads(line)
        if "error" in reply:
            raise PouchError(reply["error"])
        return reply["result"]

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                assert self.proc.stdin is not None
                self.proc.stdin.close()
                self.proc.wait(timeout=10)
            except (subprocess.TimeoutExpired, OSError):
                pass
        stop_process_group(self.proc)
        self.stderr.close()

    def __enter__(self) -> PouchPeer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
