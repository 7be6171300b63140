"""CORS on Apache CouchDB 3.4, whose answers pouchdb-server cannot give (docs/protocol.md 6.1).

No CouchDB can run here, so this is the one place the CORS code meets an ``httpx.MockTransport``:
a small stand-in that answers as CouchDB 3.4.3 does, written from its ``default.ini`` and
``chttpd_cors`` (not recorded from a live server):

- CORS is off out of the box: ``[cors]`` holds only ``credentials = false``; ``[chttpd]`` has
  no ``enable_cors`` (CouchDB 3.2 moved it there from ``[httpd]``, which it still reads as a
  fall-back); a key left at its default answers 404 ``unknown_config_value``;
- the configuration lives per node under ``/_node/{node}/_config`` (``_local``: the node that
  answers), is readable and writable by server admins only, and a ``PUT`` answers the old
  value; it applies to the next request;
- a preflight (``OPTIONS`` with ``Origin`` and ``Access-Control-Request-Method``) is answered
  before authentication: 204 with ``Access-Control-Allow-Origin`` (the origin itself) and
  ``Access-Control-Allow-Credentials`` when allowed; otherwise the request goes on as a plain
  ``OPTIONS``, which a database answers with 405 and no CORS headers.

What pouchdb-server does answer is tested for real in tests/team/test_cors.py.
"""

from __future__ import annotations

import base64
import json

import httpx
import pytest

from storyloom.cli.explain import fix_words
from storyloom.sync import RemoteDatabase
from storyloom.sync.cors import configure_cors, cors_line, read_cors_config
from storyloom.sync.server_terms import server_info

ADMIN = ("admin", "pw")
MEMBER = ("mia", "pw")
# chttpd_cors's built-in lists, used while [cors] methods / headers are unset.
DEFAULT_METHODS = ["CONNECT", "COPY", "DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT", "TRACE"]
DEFAULT_HEADERS = ["accept", "accept-language", "authorization", "content-length", "content-range", "content-type",
                   "destination", "expires", "if-match", "last-modified", "origin", "pragma", "x-couch-full-commit",
                   "x-couch-id", "x-couch-persist", "x-couchdb-www-authenticate", "x-http-method-override",
                   "x-requested-with", "x-couchdb-vhost-path"]


class FakeCouch:
    """CouchDB's answers to what the CORS code asks; ``writes`` records every config ``PUT``."""

    def __init__(self, version: str = "3.4.3", nodes: tuple[str, ...] = ("couchdb@127.0.0.1",)) -> None:
        self.version = version
        self.nodes = nodes
        # Per node: section -> key -> value (strings, as CouchDB keeps them).
        self.config: dict[str, dict[str, dict[str, str]]] = {
            node: {"cors": {"credentials": "false"}, "chttpd": {"port": "5984", "bind_address": "0.0.0.0"},
                   "httpd": {"port": "5986"}} for node in nodes}
        self.writes: list[tuple[str, str, str, str]] = []

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)

    def _user(self, request: httpx.Request) -> tuple[str, str] | None:
        header = request.headers.get("authorization", "")
        if not header.startswith("Basic "):
            return None
        name, _, password = base64.b64decode(header[6:]).decode().partition(":")
        return name, password

    def handle(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path.strip("/")
        parts = path.split("/") if path else []
        if request.method == "OPTIONS":
            return self.preflight(request)
        user = self._user(request)
        if parts == []:
            return httpx.Response(200, json={"couchdb": "Welcome", "version": self.version, "vendor": {
                "name": "The Apache Software Foundation"}})
        if parts == ["_session"]:
            roles = ["_admin"] if user == ADMIN else []
            name = user[0] if user in (ADMIN, MEMBER) else None
            return httpx.Response(200, json={"ok": True, "userCtx": {"name": name, "roles": roles}})
        if parts[:1] == ["_membership"]:
            if user != ADMIN:
                return httpx.Response(401, json={"error": "unauthorized", "reason": "You are not a server admin."})
            return httpx.Response(200, json={"all_nodes": list(self.nodes), "cluster_nodes": list(self.nodes)})
        if parts[:1] == ["_node"] and len(parts) >= 3 and parts[2] == "_config":
            if user != ADMIN:
                return httpx.Response(401, json={"error": "unauthorized", "reason": "You are not a server admin."})
            node = self.nodes[0] if parts[1] == "_local" else parts[1]
            return self.config_request(request, node, parts[3:])
        if parts[:1] == ["_config"]:  # CouchDB 2+ has no /_config
            return httpx.Response(404, json={"error": "not_found", "reason": "Database does not exist."})
        return httpx.Response(404, json={"error": "not_found", "reason": "missing"})

    def config_request(self, request: httpx.Request, node: str, rest: list[str]) -> httpx.Response:
        config = self.config[node]
        if request.method == "GET" and len(rest) == 1:
            return httpx.Response(200, json=dict(config.get(rest[0], {})))
        if request.method == "GET" and len(rest) == 2:
            value = config.get(rest[0], {}).get(rest[1])
            if value is None:
                return httpx.Response(404, json={"error": "not_found", "reason": "unknown_config_value"})
            return httpx.Response(200, json=value)
        if request.method == "PUT" and len(rest) == 2:
            value = json.loads(request.content)
            old = config.setdefault(rest[0], {}).get(rest[1], "")
            config[rest[0]][rest[1]] = value
            self.writes.append((node, rest[0], rest[1], value))
            return httpx.Response(200, json=old)
        return httpx.Response(405, json={"error": "method_not_allowed", "reason": "Only GET,PUT,DELETE allowed"})

    def preflight(self, request: httpx.Request) -> httpx.Response:
        config = self.config[self.nodes[0]]
        enabled = config["chttpd"].get("enable_cors", config["httpd"].get("enable_cors", "false")) == "true"
        cors = config["cors"]
        origins = [o.strip() for o in cors.get("origins", "").split(",") if o.strip()]
        methods = [m.strip() for m in cors["methods"].split(",")] if "methods" in cors else DEFAULT_METHODS
        headers = [h.strip().lower() for h in cors["headers"].split(",")] if "headers" in cors else DEFAULT_HEADERS
        origin = request.headers.get("origin")
        method = request.headers.get("access-control-request-method")
        asked = [h.strip().lower() for h in request.headers.get("access-control-request-headers", "").split(",")
                 if h.strip()]
        if (enabled and origin and method and ("*" in origins or origin in origins) and method in methods
                and not set(asked) - set(headers)):
            answer = {"Access-Control-Allow-Origin": origin, "Access-Control-Max-Age": "600",
                      "Access-Control-Allow-Methods": ", ".join(methods),
                      "Access-Control-Allow-Headers": request.headers.get("access-control-request-headers", "")}
            if cors.get("credentials") == "true":
                answer["Access-Control-Allow-Credentials"] = "true"
            return httpx.Response(204, headers=answer)
        return httpx.Response(405, json={"error": "method_not_allowed",
                                         "reason": "Only DELETE,GET,HEAD,POST,PUT allowed"})


def remote(fake: FakeCouch, user: tuple[str, str] = ADMIN) -> RemoteDatabase:
    return RemoteDatabase("https://couch.example.com/app_v2_saga", username=user[0], password=user[1],
                          transport=fake.transport())


def test_stock_couchdb_is_reported_off_with_the_couchdb_3_fix() -> None:
    fake = FakeCouch()
    admin = remote(fake)
    info = server_info(admin)
    config = read_cors_config(admin, info)
    assert config is not None and config.base == "_node/_local/_config" and config.section == "chttpd"
    assert (config.enabled, config.origins, config.credentials, config.methods) == (False, (), False, None)
    line = cors_line(admin, admin=True, info=info)
    assert line.status == "warn" and line.detail.startswith("off (stock CouchDB's default)")

    member = remote(fake, MEMBER)
    line = cors_line(member, admin=False, info=server_info(member))
    assert line.status == "warn" and "was refused (405" in line.detail
    base = "https://couch.example.com/_node/_local/_config"
    assert f"curl -u ADMIN -X PUT {base}/chttpd/enable_cors -d '\"true\"'" in fix_words(line.fix)
    assert f"curl -u ADMIN -X PUT {base}/cors/origins -d '\"file://\"'" in fix_words(line.fix)
    assert fake.writes == []


def test_setup_writes_only_what_couchdb_lacks_and_is_idempotent() -> None:
    fake = FakeCouch()
    admin = remote(fake)
    step = configure_cors(admin, ["file://"])
    # Unset methods and headers are CouchDB's built-in lists, which hold what PouchDB sends.
    assert fake.writes == [("couchdb@127.0.0.1", "chttpd", "enable_cors", "true"),
                           ("couchdb@127.0.0.1", "cors", "origins", "file://"),
                           ("couchdb@127.0.0.1", "cors", "credentials", "true")]
    assert step.changed and step.detail == "CORS on for file:// (credentials on)"
    assert not configure_cors(admin, ["file://"]).changed
    assert len(fake.writes) == 3
    info = server_info(admin)
    assert cors_line(admin, admin=True, info=info).status == "ok"
    member = remote(fake, MEMBER)
    line = cors_line(member, admin=False, info=server_info(member))
    assert line.status == "ok" and "allowed with credentials" in line.detail

    # An admin's own lists are kept and completed.
    fake.config["couchdb@127.0.0.1"]["cors"]["methods"] = "GET, POST"
    step = configure_cors(admin, ["app://drafft"])
    assert fake.writes[3:] == [("couchdb@127.0.0.1", "cors", "origins", "file://, app://drafft"),
                               ("couchdb@127.0.0.1", "cors", "methods", "GET, POST, PUT, HEAD, DELETE")]
    assert step.changed


@pytest.mark.parametrize(("version", "section"), [("3.1.2", "httpd"), ("2.3.1", "httpd"), ("3.2.0", "chttpd")])
def test_older_couchdb_reads_enable_cors_from_httpd(version: str, section: str) -> None:
    fake = FakeCouch(version=version)
    configure_cors(remote(fake), ["file://"])
    assert fake.writes[0] == ("couchdb@127.0.0.1", section, "enable_cors", "true")


def test_a_cluster_is_set_up_on_every_node() -> None:
    nodes = ("couchdb@n1.example", "couchdb@n2.example", "couchdb@n3.example")
    fake = FakeCouch(nodes=nodes)
    fake.config["couchdb@n2.example"]["cors"]["origins"] = "https://tools.example.com"
    step = configure_cors(remote(fake), ["file://"])
    assert step.changed and step.detail.endswith("on 3 nodes")
    origins = {node: value for node, section, key, value in fake.writes if key == "origins"}
    assert origins == {"couchdb@n1.example": "file://", "couchdb@n2.example": "https://tools.example.com, file://",
                       "couchdb@n3.example": "file://"}
    assert {node for node, *_ in fake.writes} == set(nodes)


def test_a_proxy_that_swallows_the_preflight_is_named() -> None:
    fake = FakeCouch()
    admin = remote(fake)
    configure_cors(admin, ["file://"])
    fake.preflight = lambda request: httpx.Response(200, text="")  # type: ignore[method-assign]
    line = cors_line(admin, admin=True, info=server_info(admin))
    assert line.status == "warn" and "yet a preflight request from file:// was refused" in line.detail
    assert "reverse proxy" in fix_words(line.fix)
