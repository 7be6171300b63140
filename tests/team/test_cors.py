"""CORS for browser-based teammates (Drafft) against pouchdb-server 4.2: what ``remote check``
reports, ``remote setup --cors-origin`` (idempotent, keeps the origins listed, needs an admin),
real preflight requests before and after, and ``remote invite --for-drafft``.

pouchdb-server ships with CORS on for every origin (``*``) with credentials, reads only
``[httpd] enable_cors`` and has no ``/_node/_local/_config``; the tests first put it in the
state of a stock CouchDB (CORS off, one unrelated origin listed). CouchDB 3.4's own answers
are covered by tests/team/test_cors_couchdb.py.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from storyloom.cli.explain import fix_words
from storyloom.cli.main import main
from storyloom.project.manager import ProjectManager
from storyloom.sync import RemoteDatabase
from storyloom.sync.cors import (
    DRAFFT_EXAMPLE_ORIGIN,
    InvalidOrigin,
    configure_cors,
    normalize_origin,
    probe_preflight,
)
from storyloom.sync.server_check import check_server
from storyloom.sync.server_terms import CheckLine, SetupError
from tests.support.couch import CouchServer, unique_db_name

MEMBER_PASSWORD = "member-pw"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CouchServer]:
    """A server of this module's own: the tests change its configuration."""
    with CouchServer(tmp_path_factory.mktemp("cors-couch")) as couch:
        yield couch


@pytest.fixture
def stock(server: CouchServer) -> str:
    """A database with member ``mia`` on a server whose CORS is as a stock CouchDB's: off (one
    unrelated origin listed, credentials off)."""
    server.ensure_running()
    for key, value in (("httpd/enable_cors", "false"), ("cors/origins", "http://tools.example.com"),
                       ("cors/credentials", "false")):
        assert server.request("PUT", f"/_config/{key}", content=json.dumps(value)).status_code == 200
    db = server.create_db(unique_db_name("cors"))
    server.create_user("mia", MEMBER_PASSWORD)
    server.set_security(db, members=["mia"])
    return db


def client(server: CouchServer, db: str, user: str = "admin") -> RemoteDatabase:
    password = server.admin[1] if user == "admin" else MEMBER_PASSWORD
    return RemoteDatabase(server.db_url(db), username=user, password=password)


def cors(lines: list[CheckLine]) -> CheckLine:
    assert lines[-1].name == "cors"
    return lines[-1]


def preflight(server: CouchServer, db: str, origin: str) -> httpx.Response:
    """What a browser engine sends before PouchDB's first write (no credentials)."""
    return httpx.options(server.db_url(db), headers={
        "Origin": origin, "Access-Control-Request-Method": "PUT",
        "Access-Control-Request-Headers": "authorization, content-type"})


def test_origins_are_checked_before_anything_is_sent() -> None:
    assert normalize_origin(" APP://Drafft/ ") == "app://drafft"
    assert normalize_origin("file://") == "file://"
    assert normalize_origin("https://Tools.Example.com:8443") == "https://tools.example.com:8443"
    for bad, words in (("*", "every web site"), ("null", "sandboxed"), ("tools.example.com", "not an origin"),
                       ("https://h/path", "not an origin"), ("https://", "no host"), ("a://b, c://d", "not an")):
        with pytest.raises(InvalidOrigin, match=words):
            normalize_origin(bad)


def test_check_then_setup_then_check(server: CouchServer, stock: str) -> None:
    admin, member = client(server, stock), client(server, stock, "mia")
    refused = preflight(server, stock, DRAFFT_EXAMPLE_ORIGIN)
    assert refused.status_code == 404 and "access-control-allow-origin" not in refused.headers

    line = cors(check_server(admin, mode="easy"))
    assert line.status == "warn" and line.detail.startswith("off")
    assert f"storyloom remote setup PROJECT --cors-origin {DRAFFT_EXAMPLE_ORIGIN}" in fix_words(line.fix)
    line = cors(check_server(member, mode="advanced"))
    assert line.status == "warn" and "only a server admin can read the configuration" in line.detail
    assert f"a preflight request from {DRAFFT_EXAMPLE_ORIGIN} was refused (404" in line.detail
    # The member's fix names the exact requests, for this server's configuration API.
    assert f"curl -u ADMIN -X PUT {server.url}/_config/httpd/enable_cors -d '\"true\"'" in fix_words(line.fix)
    assert f"{server.url}/_config/cors/credentials -d '\"true\"'" in fix_words(line.fix)

    with pytest.raises(SetupError, match="only a server admin may do") as refusal:
        configure_cors(member, [DRAFFT_EXAMPLE_ORIGIN])
    assert "curl -u ADMIN -X PUT" in str(refusal.value)
    assert server.request("GET", "/_config/httpd/enable_cors").json() == "false"

    step = configure_cors(admin, [DRAFFT_EXAMPLE_ORIGIN, "APP://Drafft"])
    assert step.what == "cors" and step.changed
    assert step.detail == ("CORS on for http://tools.example.com, file://, app://drafft (credentials on)")
    config = server.request("GET", "/_config/cors").json()
    assert config["origins"] == "http://tools.example.com, file://, app://drafft"  # kept, then added
    assert config["credentials"] == "true"
    for origin in (DRAFFT_EXAMPLE_ORIGIN, "app://drafft", "http://tools.example.com"):
        answer = preflight(server, stock, origin)
        assert answer.status_code == 204
        assert answer.headers["access-control-allow-origin"] == origin
        assert answer.headers["access-control-allow-credentials"] == "true"
        assert "PUT" in answer.headers["access-control-allow-methods"]
    assert "access-control-allow-origin" not in preflight(server, stock, "https://evil.example").headers

    again = configure_cors(admin, [DRAFFT_EXAMPLE_ORIGIN])
    assert not again.changed and again.detail.startswith("CORS already on for http://tools.example.com, file://")
    assert server.request("GET", "/_config/cors").json() == config

    assert cors(check_server(admin, mode="easy")) == CheckLine(
        "cors", "ok", "on for http://tools.example.com, file://, app://drafft (credentials on)")
    line = cors(check_server(member, mode="advanced"))
    assert line.status == "ok" and "is allowed with credentials" in line.detail
    assert probe_preflight(member, "https://evil.example").allowed is False


def test_wide_or_half_settings_are_warned(server: CouchServer, stock: str) -> None:
    admin = client(server, stock)
    server.request("PUT", "/_config/httpd/enable_cors", content=json.dumps("true"))
    line = cors(check_server(admin, mode="easy"))
    assert line.status == "warn" and "credentials off" in line.detail and "sign in" in line.detail
    server.request("PUT", "/_config/cors/credentials", content=json.dumps("true"))
    server.request("PUT", "/_config/cors/origins", content=json.dumps("*"))
    line = cors(check_server(admin, mode="easy"))
    assert line.status == "warn" and "every web site" in line.detail
    assert "/_config/cors/origins -d '\"file://\"'" in fix_words(line.fix)
    # Set-up keeps what the admin listed, even '*', and adds the named origin.
    assert configure_cors(admin, ["file://"]).changed
    assert server.request("GET", "/_config/cors/origins").json() == "*, file://"


@pytest.fixture
def project(storyloom_home: Path) -> Iterator[str]:
    ProjectManager().create("Saga").close()
    yield "Saga"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_setup_check_and_invite_for_drafft(project: str, server: CouchServer, stock: str,
                                               capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STORYLOOM_REMOTE_PASSWORD", server.admin[1])
    assert run(capsys, "remote", "set", project, "--server", server.url, "--database", stock,
               "--username", "admin")[0] == 0
    code, _, err = run(capsys, "remote", "setup", project, "--cors-origin", "*")
    assert code == 2 and "every web site" in err
    assert server.request("GET", "/_config/httpd/enable_cors").json() == "false"

    code, out, _ = run(capsys, "remote", "check", project)
    assert "warn  cors: off" in out and "fix: run `storyloom remote setup Saga --cors-origin file://`" in out
    code, out, err = run(capsys, "remote", "setup", project, "--cors-origin", "file://")
    assert code == 0, err
    assert "changed  cors: CORS on for http://tools.example.com, file:// (credentials on)" in out
    code, out, _ = run(capsys, "remote", "setup", project, "--cors-origin", "file://", "--json")
    steps = {step["what"]: step for step in json.loads(out)["steps"]}
    assert code == 0 and not steps["cors"]["changed"]
    code, out, _ = run(capsys, "remote", "check", project)
    assert "ok    cors: on for http://tools.example.com, file:// (credentials on)" in out

    code, out, err = run(capsys, "remote", "invite", project, "dora", "--for-drafft")
    assert code == 0, err
    password = out.split("hand it over privately): ", 1)[1].split("\n", 1)[0]
    assert "For dora in Drafft:" in out and "Options > Username: dora" in out
    assert f"Server URL:    {server.url}\n" in out and f"Database name: {stock}\n" in out
    assert "Username:      dora\n" in out and f"Password:      {password}\n" in out
    assert "the server accepts a lock only in the name of the user" in out
    code, out, _ = run(capsys, "remote", "invite", project, "dora", "--for-drafft")
    assert code == 0 and password not in out and "Password:      (the one they already have" in out

    # Advanced mode: a member cannot change the configuration; set-up prints the admin's requests.
    monkeypatch.setenv("STORYLOOM_REMOTE_PASSWORD", MEMBER_PASSWORD)
    assert run(capsys, "remote", "set", project, "--server", server.url, "--database", stock,
               "--username", "mia", "--mode", "advanced")[0] == 0
    code, out, _ = run(capsys, "remote", "setup", project, "--cors-origin", "app://drafft")
    assert "ask a server admin to run" in out
    assert f"curl -u ADMIN -X PUT {server.url}/_config/cors/origins -d '\"app://drafft\"'" in out
    assert server.request("GET", "/_config/cors/origins").json() == "http://tools.example.com, file://"
