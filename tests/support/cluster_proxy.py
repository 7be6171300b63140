"""A proxy in front of pouchdb-server that writes as a CouchDB cluster short of its write quorum.

pouchdb-server is a single node: of two ``PUT``s on the same ``_rev`` it stores one and answers
the other ``409 Conflict``. A CouchDB 3 cluster (n=3) that cannot reach its write quorum in
time stores both on different nodes, answers ``202 Accepted``, and its replicas then hold two
conflicting leaves (docs/protocol.md, "202 Accepted"). :class:`ClusterProxy` makes that
happen for real, over HTTP, with the real server behind it:

- a ``PUT`` of a document (not ``_local``/``_design``) with a ``_rev`` is held for ``window``
  seconds; every other ``PUT`` of the same document on the same ``_rev`` arriving meanwhile
  joins it. The first then goes to the server as it came; each other one goes as a
  ``_bulk_docs`` with ``new_edits: false`` carrying a computed revision on the same parent (so
  the server keeps it as a second leaf, checked by the lock rules against that parent with the
  writer's own credentials, as the node that accepted it would). When more than one went
  through, each is answered ``202 Accepted`` with ``{"ok": true, "id", "rev"}``; a ``PUT``
  alone keeps the server's answer (``201``), or gets ``202`` too with ``always_accepted``. With
  ``created_first`` the first of a round keeps its ``201`` (it reached the quorum) and only the
  others get ``202``: the case a 201 writer never reads back.
- everything else passes through unchanged (bodies are read whole: no continuous feeds).

``accepted`` and ``contested`` count the 202 answers and the rounds with more than one write.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote, urlsplit

import httpx
from tools.peers import free_port

#: Request headers not passed on (the proxy's own connection, and a length it recomputes).
_HOP_HEADERS = {"host", "connection", "keep-alive", "proxy-connection", "transfer-encoding", "content-length",
                "te", "upgrade", "accept-encoding"}
_ANSWER_SKIPPED = {"connection", "keep-alive", "transfer-encoding", "content-length", "content-encoding"}


@dataclass
class _Write:
    """One held ``PUT``: what came, and (once the round is done) what to answer."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    done: threading.Event = field(default_factory=threading.Event)
    status: int = 500
    answer: bytes = b""
    answer_headers: dict[str, str] = field(default_factory=dict)


@dataclass
class _Round:
    writes: list[_Write] = field(default_factory=list)


class ClusterProxy:
    """``with ClusterProxy(server) as proxy:`` then point clients at ``proxy.db_url(name)``."""

    def __init__(self, upstream: Any, *, window: float = 0.3, always_accepted: bool = False,
                 created_first: bool = False) -> None:
        self.upstream_url = str(upstream.url).rstrip("/")
        self.window = window
        self.always_accepted = always_accepted
        self.created_first = created_first
        self.accepted = 0
        self.contested = 0
        self._rounds: dict[tuple[str, str], _Round] = {}
        self._lock = threading.Lock()
        self._local = threading.local()
        self.port = free_port()
        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="cluster-proxy", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def db_url(self, name: str) -> str:
        return f"{self.url}/{name}"

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)

    def __enter__(self) -> ClusterProxy:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------------ upstream
    def _client(self) -> httpx.Client:
        client = getattr(self._local, "client", None)
        if client is None:
            client = httpx.Client(timeout=httpx.Timeout(60.0, connect=10.0))
            self._local.client = client
        return client

    def forward(self, method: str, path: str, headers: dict[str, str], body: bytes | None) -> httpx.Response:
        return self._client().request(method, self.upstream_url + path, headers=headers, content=body)

    # ------------------------------------------------------------------ contested writes
    def held_key(self, method: str, path: str, body: bytes) -> tuple[tuple[str, str], dict[str, Any]] | None:
        """``((document path, rev), body)`` of a document ``PUT`` on a revision, else None."""
        parts = urlsplit(path)
        segments = [unquote(s) for s in parts.path.strip("/").split("/")]
        if method != "PUT" or len(segments) != 2 or segments[1].startswith("_") or "rev=" in parts.query:
            return None
        try:
            doc = json.loads(body)
        except ValueError:
            return None
        if not isinstance(doc, dict) or not isinstance(doc.get("_rev"), str):
            return None
        return (parts.path, doc["_rev"]), doc

    def contested_put(self, key: tuple[str, str], write: _Write) -> None:
        """Join the round of ``key`` or open it; the opener waits ``window``, then writes them all."""
        with self._lock:
            round_ = self._rounds.get(key)
            opener = round_ is None
            if opener:
                round_ = self._rounds[key] = _Round()
            assert round_ is not None
            round_.writes.append(write)
        if not opener:
            write.done.wait(timeout=60)
            return
        time.sleep(self.window)
        with self._lock:
            writes = self._rounds.pop(key).writes
        try:
            self._write_round(key, writes)
        finally:
            for each in writes:
                each.done.set()

    def _write_round(self, key: tuple[str, str], writes: list[_Write]) -> None:
        first, rivals = writes[0], writes[1:]
        response = self.forward("PUT", first.path, first.headers, json.dumps(first.body).encode())
        self._answer(first, response.status_code, response.content, dict(response.headers))
        if not 200 <= response.status_code < 300:  # refused: the others go as they came
            for rival in rivals:
                again = self.forward("PUT", rival.path, rival.headers, json.dumps(rival.body).encode())
                self._answer(rival, again.status_code, again.content, dict(again.headers))
            return
        through = [first]
        for rival in rivals:
            if self._write_beside(key, rival):
                through.append(rival)
        if len(through) > 1:
            with self._lock:
                self.contested += 1
        if len(through) > 1 or self.always_accepted:
            for each in through[1:] if self.created_first and len(through) > 1 else through:
                self._accept(each)

    def _write_beside(self, key: tuple[str, str], write: _Write) -> bool:
        """Store ``write`` as a second child of its parent revision (a replica's copy of it)."""
        parent = key[1]
        generation, _, parent_hash = parent.partition("-")
        body = {k: v for k, v in write.body.items() if k not in ("_rev", "_revisions")}
        digest = hashlib.md5((parent + json.dumps(body, sort_keys=True)).encode()).hexdigest()
        rev = f"{int(generation) + 1}-{digest}"
        doc = {**body, "_rev": rev, "_revisions": {"start": int(generation) + 1, "ids": [digest, parent_hash]}}
        db = key[0].strip("/").split("/")[0]
        headers = {**write.headers, "content-type": "application/json"}
        response = self.forward("POST", f"/{db}/_bulk_docs", headers,
                                json.dumps({"docs": [doc], "new_edits": False}).encode())
        failures = response.json() if response.status_code < 300 else None
        if failures is None or failures:
            failure = (failures or [{}])[0] if isinstance(failures, list) else {}
            status = 403 if failure.get("error") == "forbidden" else (response.status_code if failures is None
                                                                      else 400)
            answer = json.dumps({"error": failure.get("error", "bad_request"), "reason": failure.get("reason", "")})
            self._answer(write, status, answer.encode() if failures is not None else response.content,
                         {"content-type": "application/json"})
            return False
        self._answer(write, 201, json.dumps({"ok": True, "id": body.get("_id"), "rev": rev}).encode(),
                     {"content-type": "application/json"})
        return True

    def _accept(self, write: _Write) -> None:
        with self._lock:
            self.accepted += 1
        write.status = 202

    @staticmethod
    def _answer(write: _Write, status: int, body: bytes, headers: dict[str, str]) -> None:
        write.status, write.answer = status, body
        write.answer_headers = {k: v for k, v in headers.items() if k.lower() not in _ANSWER_SKIPPED}

    # ------------------------------------------------------------------ HTTP
    @staticmethod
    def as_cluster(method: str, path: str, response: httpx.Response) -> bytes:
        """A database's info as a CouchDB 3 cluster of three copies gives it (``cluster``: q, n,
        w, r), which pouchdb-server leaves out; every other answer as it is."""
        route = path.split("?", 1)[0].strip("/")
        if method != "GET" or response.status_code != 200 or not route or "/" in route or route.startswith("_"):
            return response.content
        info = response.json()
        if not isinstance(info, dict) or "db_name" not in info:
            return response.content
        info.setdefault("cluster", {"q": 2, "n": 3, "w": 2, "r": 2})
        return json.dumps(info).encode()

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return None

            def _relay(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP_HEADERS}
                held = proxy.held_key(self.command, self.path, body)
                if held is not None:
                    key, doc = held
                    write = _Write(self.path, headers, doc)
                    proxy.contested_put(key, write)
                    self._send(write.status, write.answer, write.answer_headers)
                    return
                response = proxy.forward(self.command, self.path, headers, body if length else None)
                self._send(response.status_code, proxy.as_cluster(self.command, self.path, response),
                           dict(response.headers))

            def _send(self, status: int, body: bytes, headers: dict[str, str]) -> None:
                self.send_response(status)
                for name, value in headers.items():
                    if name.lower() not in _ANSWER_SKIPPED:
                        self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)

            do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = do_COPY = _relay

        return Handler
