"""Easy and advanced set-up, invitations, the lock rules and the server check, against
pouchdb-server over real HTTP (issue 10, "Easy and advanced mode")."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import pytest

from storyloom.cli.explain import command_line, fix_words
from storyloom.sync import RemoteDatabase
from storyloom.sync.errors import RemoteError, RemoteUnauthorized
from storyloom.sync.lock_rules import DEFAULT_STALE_LOCK_MINUTES, lock_rules_for, lock_rules_state
from storyloom.sync.server_check import check_server
from storyloom.sync.server_setup import (
    LOCK_DESIGN_DOC,
    LOCK_DESIGN_ID,
    LOCK_RULES_VERSION,
    AdvancedCheck,
    admin_requests,
    easy_setup,
    invite,
    member_add_requests,
)
from storyloom.sync.server_terms import CheckLine, SetupError
from storyloom.sync.write_probe import PROBE_PREFIX
from tests.support.couch import CouchServer, unique_db_name
from tests.support.nginx import NginxProxy

Client = Callable[..., RemoteDatabase]


@pytest.fixture
def client(couch: CouchServer) -> Iterator[Client]:
    """Factory of clients of a database on the test server, as a user (the admin by default)."""
    made: list[RemoteDatabase] = []

    def factory(db: str, user: str = "admin", password: str | None = None, **kwargs: Any) -> RemoteDatabase:
        if password is None and user == "admin":
            password = couch.admin[1]
        remote = RemoteDatabase(couch.db_url(db), username=user, password=password, **kwargs)
        made.append(remote)
        return remote

    yield factory
    for remote in made:
        remote.close()


def raw(couch: CouchServer, method: str, db: str, path: str = "", auth: tuple[str, str] | None = None,
        **kwargs: Any) -> httpx.Response:
    """One raw HTTP request, outside Storyloom's client."""
    url = couch.db_url(db) + (f"/{path}" if path else "")
    return httpx.request(method, url, auth=auth, timeout=30, **kwargs)


def security(couch: CouchServer, db: str) -> dict[str, Any]:
    return couch.request("GET", f"/{db}/_security").json()


def only_probes_since(couch: CouchServer, db: str, seq: Any) -> bool:
    """Whether every change after ``seq`` is a deleted replicated-writes probe document."""
    rows = couch.request("GET", f"/{db}/_changes", params={"since": json.dumps(seq)}).json()["results"]
    return bool(rows) and all(r["id"].startswith(PROBE_PREFIX) and r.get("deleted") for r in rows)


def line(lines: list[CheckLine], name: str) -> Any:
    """The line ``name`` with its fix as the command line says it (the sync layer gives it as a value)."""
    item = next(item for item in lines if item.name == name)
    return SimpleNamespace(name=item.name, status=item.status, detail=item.detail,
                           fix=fix_words(item.fix) if item.fix is not None else "")


# -- easy mode -----------------------------------------------------------------------------------


def test_easy_setup_end_to_end_and_idempotent(couch: CouchServer, client: Client) -> None:
    db = unique_db_name("team")
    admin = client(db)
    report = easy_setup(admin, members=["alice"])
    assert report.changed and report.server.is_admin and report.server.product == "pouchdb-server"
    assert [s.what for s in report.steps] == ["server", "database", "members", "lock rules", "replicated writes"]
    assert [s.changed for s in report.steps] == [False, True, True, True, False]

    # The database exists, is private to its members, and carries the lock rules.
    assert security(couch, db)["members"]["names"] == ["alice"]
    design = couch.get_doc(db, LOCK_DESIGN_ID).json()
    assert design["version"] == LOCK_RULES_VERSION and design["validate_doc_update"] == LOCK_DESIGN_DOC[
        "validate_doc_update"]
    assert raw(couch, "GET", db).status_code == 401  # anonymous
    couch.create_user("mallory", "mallory-pw")
    refused = raw(couch, "GET", db, auth=("mallory", "mallory-pw"))
    assert refused.status_code in (401, 403)
    assert raw(couch, "PUT", db, "x", auth=("mallory", "mallory-pw"), json={"a": 1}).status_code in (401, 403)

    # A second run changes nothing at all: same update_seq, same _security, same design revision.
    seq, sec, rev = couch.db_info(db)["update_seq"], security(couch, db), design["_rev"]
    again = easy_setup(admin, members=["alice"])
    assert not again.changed and [s.changed for s in again.steps] == [False, False, False, False, False]
    assert couch.db_info(db)["update_seq"] == seq
    assert security(couch, db) == sec
    assert couch.get_doc(db, LOCK_DESIGN_ID).json()["_rev"] == rev


def test_easy_setup_keeps_existing_members_and_upgrades_old_rules(couch: CouchServer, client: Client) -> None:
    db = couch.create_db(unique_db_name("team"))
    couch.set_security(db, members=["carol"], admins=["dave"])
    couch.put_doc(db, {"_id": LOCK_DESIGN_ID, "version": 0, "validate_doc_update": "function () {}"})
    report = easy_setup(client(db))  # members: the admin who runs it
    sec = security(couch, db)
    assert sec["members"]["names"] == ["carol", "admin"] and sec["admins"]["names"] == ["dave"]
    assert report.steps[1].changed is False  # the database existed
    assert "upgraded from version 0" in report.steps[3].detail
    assert couch.get_doc(db, LOCK_DESIGN_ID).json()["version"] == LOCK_RULES_VERSION
    # A newer version (a newer Storyloom set it up) is left alone.
    current = couch.get_doc(db, LOCK_DESIGN_ID).json()
    couch.put_doc(db, {**current, "version": LOCK_RULES_VERSION + 1})
    step = easy_setup(client(db)).steps[3]
    assert not step.changed and "newer" in step.detail


def test_easy_setup_needs_an_admin_and_the_right_password(couch: CouchServer, client: Client) -> None:
    db = unique_db_name("team")
    couch.create_user("alice", "alice-pw")
    with pytest.raises(SetupError, match=r"not a server admin.*advanced mode"):
        easy_setup(client(db, "alice", "alice-pw"))
    with pytest.raises(SetupError, match="refuses the user name 'admin'"):
        easy_setup(client(db, "admin", "wrong"))
    assert couch.request("GET", f"/{db}").status_code == 404  # nothing was created


# -- the lock rules, enforced by the server ------------------------------------------------------


@pytest.fixture
def team(couch: CouchServer, client: Client) -> dict[str, Any]:
    """A set-up database with two invited members, alice and bob."""
    db = unique_db_name("team")
    admin = client(db)
    easy_setup(admin)
    # Users outlive a test on the shared server: fresh names each time.
    alice = invite(admin, "alice-" + db[-6:])
    bob = invite(admin, "bob-" + db[-6:])
    assert alice.password and bob.password
    return {"db": db, "alice": (alice.username, alice.password), "bob": (bob.username, bob.password)}


def test_lock_rules_refuse_another_members_raw_writes(couch: CouchServer, team: dict[str, Any]) -> None:
    db, alice, bob = team["db"], team["alice"], team["bob"]
    a_name, b_name = alice[0], bob[0]
    since = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")  # a fresh lock
    created = raw(couch, "PUT", db, "doc1", auth=alice,
                  json={"name": "Scene", "text": "a", "locked": True, "lockedBy": a_name, "lockedAt": since})
    assert created.status_code == 201, created.text
    doc = raw(couch, "GET", db, "doc1", auth=bob).json()

    # Bob edits alice's locked document: refused by the server, naming holder and time.
    refused = raw(couch, "PUT", db, "doc1", auth=bob, json={**doc, "text": "b"})
    assert refused.status_code == 403, refused.text
    assert f"locked by {a_name} since {since}" in refused.json()["reason"]
    # ... through a replicated write too (new_edits=false, the parent is the locked revision).
    gen, digest = doc["_rev"].split("-")
    child = {**doc, "text": "b", "_rev": f"{int(gen) + 1}-{'b' * 32}",
             "_revisions": {"start": int(gen) + 1, "ids": ["b" * 32, digest]}}
    answer = raw(couch, "POST", db, "_bulk_docs", auth=bob, json={"docs": [child], "new_edits": False})
    assert answer.json() and answer.json()[0]["error"] == "forbidden"
    # ... a delete (not a resolution tombstone), and a lock taken over without a break.
    assert raw(couch, "DELETE", db, "doc1", auth=bob, params={"rev": doc["_rev"]}).status_code == 403
    steal = {**doc, "lockedBy": b_name, "lockedAt": "2025-02-01T00:00:00Z"}
    assert raw(couch, "PUT", db, "doc1", auth=bob, json=steal).status_code == 403
    # A break that also changes the content is refused.
    lock_broken = {"by": b_name, "holder": a_name, "since": since, "at": "2025-02-01T00:00:00Z"}
    broken = {**doc, "locked": False, "lockedBy": "nobody", "lockedAt": None, "lockBroken": lock_broken}
    assert raw(couch, "PUT", db, "doc1", auth=bob, json={**broken, "text": "sneaky"}).status_code == 403
    # Nobody takes a lock in another's name.
    forged = raw(couch, "PUT", db, "doc2", auth=bob, json={"locked": True, "lockedBy": a_name, "lockedAt": since})
    assert forged.status_code == 403 and f"in the name of {a_name}" in forged.json()["reason"]

    # The holder writes freely.
    edited = raw(couch, "PUT", db, "doc1", auth=alice, json={**doc, "text": "a2", "modified": "x"})
    assert edited.status_code == 201, edited.text
    doc = raw(couch, "GET", db, "doc1", auth=bob).json()
    # Version 2: a member's explicit break of a fresh lock is refused (not stale yet), and so is a
    # conflict-resolution tombstone of a document someone else holds (version 1 let both through).
    broken = {**doc, "locked": False, "lockedBy": "nobody", "lockedAt": None, "modifiedBy": b_name,
              "lockBroken": lock_broken}
    answer = raw(couch, "PUT", db, "doc1", auth=bob, json=broken)
    assert answer.status_code == 403 and "not stale" in answer.json()["reason"], answer.text
    tomb = raw(couch, "PUT", db, "doc1", auth=bob, json={"_rev": doc["_rev"], "_deleted": True,
                                                         "supersededBy": "9-abc"})
    assert tomb.status_code == 403, tomb.text
    assert raw(couch, "GET", db, "doc1", auth=bob).json()["_rev"] == doc["_rev"]
    # The holder deletes it with a resolution tombstone.
    tomb = raw(couch, "PUT", db, "doc1", auth=alice, json={"_rev": doc["_rev"], "_deleted": True,
                                                           "supersededBy": "9-abc"})
    assert tomb.status_code == 201, tomb.text


def test_server_admins_are_owners_not_exempt(couch: CouchServer, team: dict[str, Any]) -> None:
    """Version 2: a server admin is refused on another user's lock like anyone (version 1 let
    every write of ``_admin`` through), keeps their own locks, and as an owner breaks at once."""
    db, alice = team["db"], team["alice"]
    raw(couch, "PUT", db, "d", auth=alice, json={"locked": True, "lockedBy": alice[0], "lockedAt": "t"})
    doc = couch.get_doc(db, "d").json()
    refused = couch.request("PUT", f"/{db}/d", json={**doc, "x": 1})
    assert refused.status_code == 403 and f"locked by {alice[0]}" in refused.json()["reason"]
    mine = couch.request("PUT", f"/{db}/mine", json={"locked": True, "lockedBy": "admin", "lockedAt": "t"})
    assert mine.status_code == 201, mine.text
    assert couch.request("PUT", f"/{db}/mine", json={"_rev": mine.json()["rev"], "x": 2}).status_code == 201
    broken = {**doc, "locked": False, "lockedBy": "nobody", "lockedAt": None,
              "lockBroken": {"by": "admin", "holder": alice[0], "since": "t", "at": "now"}}
    assert couch.request("PUT", f"/{db}/d", json=broken).status_code == 201


def test_invite_creates_a_member_who_can_read_and_write(couch: CouchServer, client: Client) -> None:
    db = unique_db_name("team")
    admin = client(db)
    easy_setup(admin)
    erin_name = "erin-" + db[-6:]  # users outlive a test on the shared server
    invitation = invite(admin, erin_name)
    assert invitation.created and invitation.password and len(invitation.password) >= 20
    assert command_line(invitation.join) == f"storyloom clone {couch.db_url(db)} --username {erin_name}"
    assert invitation.password not in repr(invitation)
    erin = client(db, erin_name, invitation.password)
    erin.put({"_id": "hello", "n": 1})
    assert erin.get("hello")["n"] == 1
    assert erin_name in security(couch, db)["members"]["names"]
    # Wrong password: refused.
    with pytest.raises(RemoteUnauthorized):
        client(db, erin_name, "not-it").get("hello")

    # Inviting again keeps the account and its password, and changes nothing.
    seq = couch.db_info(db)["update_seq"]
    again = invite(admin, erin_name)
    assert not again.created and again.password is None
    assert client(db, erin_name, invitation.password).get("hello")["n"] == 1
    assert couch.db_info(db)["update_seq"] == seq
    # Only an admin invites.
    with pytest.raises(SetupError, match="not a server admin"):
        invite(erin, "frank")
    with pytest.raises(SetupError, match="does not exist"):
        invite(client(unique_db_name("none")), "frank")


# -- advanced mode -------------------------------------------------------------------------------


def test_admin_requests_name_everything_and_hold_no_password() -> None:
    requests = admin_requests("https://couch.example.com", "team/x", "alice")
    assert len(requests) == 3
    assert requests[0] == "curl -u ADMIN -X PUT https://couch.example.com/team%2Fx"
    assert requests[1].startswith("curl -u ADMIN -X PUT https://couch.example.com/team%2Fx/_security")
    assert '"members":{"names":["alice"]' in requests[1]
    assert requests[2].startswith("curl -u ADMIN -X PUT https://couch.example.com/team%2Fx/_design/storyloom")
    body = json.loads(requests[2].split(" -d ", 1)[1].strip("'"))
    assert body["validate_doc_update"] == LOCK_DESIGN_DOC["validate_doc_update"]
    assert "admin-secret" not in " ".join(requests)


def test_the_admin_requests_work_as_printed(couch: CouchServer, client: Client) -> None:
    """Run the three printed requests (curl's part done by httpx) and get a database that passes the check."""
    import shlex

    couch.create_user("alice", "alice-pw")
    db = unique_db_name("adv")
    for request in admin_requests(couch.url, db, "alice"):
        args = shlex.split(request)
        url = args[5]
        body = args[args.index("-d") + 1] if "-d" in args else None
        answer = httpx.put(url, auth=couch.admin, content=body, headers={"Content-Type": "application/json"})
        assert answer.status_code in (200, 201), answer.text
    check = AdvancedCheck.run(client(db, "alice", "alice-pw"))
    assert check.ok and check.missing == [] and "is ready" in check.explain()


def test_advanced_mode_creates_nothing_and_explains(couch: CouchServer, client: Client) -> None:
    couch.create_user("alice", "alice-pw")
    db = unique_db_name("adv")

    check = AdvancedCheck.run(client(db, "alice", "alice-pw"))
    assert not check.ok and check.database_exists is False
    text = check.explain()
    assert f"the database '{db}'" in text and "does not exist" in text
    assert len(check.requests) == 3 and all(r.startswith("curl -u ADMIN") for r in check.requests)
    assert '"names":["alice"]' in check.requests[1]
    assert couch.request("GET", f"/{db}").status_code == 404  # still nothing

    couch.create_db(db)
    couch.set_security(db, members=["bob"])
    seq = couch.db_info(db)["update_seq"]
    check = AdvancedCheck.run(client(db, "alice", "alice-pw"))
    assert check.database_exists and check.member is False
    assert "'alice' is not a member" in check.explain()
    # Three steps add alice and keep bob (read, edit, write _security), then the lock rules.
    assert len(check.requests) == 4 and all("_security" in r for r in check.requests[:3:2])
    assert "-o security.json" in check.requests[0] and '"alice"' in check.requests[1]

    couch.set_security(db, members=["bob", "alice"])
    check = AdvancedCheck.run(client(db, "alice", "alice-pw"))
    assert check.member and check.lock_rules == "missing"
    assert "lock rules (_design/storyloom) are not installed" in check.explain()
    assert len(check.requests) == 1 and "_design/storyloom" in check.requests[0]

    assert couch.db_info(db)["update_seq"] == seq
    assert security(couch, db)["members"]["names"] == ["bob", "alice"]
    with pytest.raises(SetupError, match=r"did not sign in|refuses"):
        AdvancedCheck.run(client(db, "alice", "wrong"))


# -- the server check ----------------------------------------------------------------------------


def test_check_a_ready_database(couch: CouchServer, team: dict[str, Any], client: Client) -> None:
    db = team["db"]
    seq = couch.db_info(db)["update_seq"]
    lines = check_server(client(db, *team["alice"]), mode="advanced")
    names = [item.name for item in lines]
    assert names == ["reachable", "tls", "credentials", "admin", "database", "member", "lock rules",
                     "replicated writes", "max_document_size", "max_http_request_size", "require_valid_user",
                     "cors"]
    assert {item.name: item.status for item in lines if item.status != "ok"} == {
        "max_document_size": "warn", "max_http_request_size": "warn"}
    assert "curl -u ADMIN" in line(lines, "max_document_size").fix
    assert "pouchdb-server 4.2.0" in line(lines, "reachable").detail
    assert "members only" in line(lines, "require_valid_user").detail

    admin_lines = check_server(client(db), mode="easy")
    assert line(admin_lines, "max_document_size").status == "ok"  # readable by an admin (/_config)
    assert line(admin_lines, "max_http_request_size").status == "warn"
    assert "unknown" in line(admin_lines, "max_http_request_size").detail
    assert only_probes_since(couch, db, seq)  # read-only, but for the replicated-writes probe


def test_check_reports_what_is_wrong(couch: CouchServer, client: Client) -> None:
    couch.create_user("alice", "alice-pw")
    db = unique_db_name("chk")
    missing = check_server(client(db, "alice", "alice-pw"), mode="easy")
    # Easy mode's user is the owner, not a server admin: set-up takes the admin's name.
    assert "admin" not in [item.name for item in missing]
    assert line(missing, "database").status == "fail"
    assert "storyloom remote setup PROJECT --admin ADMIN" in line(missing, "database").fix
    advanced = check_server(client(db, "alice", "alice-pw"), mode="advanced")
    assert line(advanced, "database").status == "fail" and "curl -u ADMIN -X PUT" in line(advanced, "database").fix

    couch.create_db(db)
    public = check_server(client(db), mode="easy")
    assert line(public, "lock rules").status == "fail" and "storyloom remote setup" in line(public, "lock rules").fix
    assert line(public, "require_valid_user").status == "fail"  # no members: anyone can read it

    couch.set_security(db, members=["bob"])
    outsider = check_server(client(db, "alice", "alice-pw"), mode="advanced")
    assert line(outsider, "member").status == "fail" and "_security" in line(outsider, "member").fix
    assert "keep the other members" in line(outsider, "member").fix
    teammate = check_server(client(db, "alice", "alice-pw"), mode="easy")
    assert "storyloom remote invite PROJECT alice --admin ADMIN" in line(teammate, "member").fix

    wrong = check_server(client(db, "alice", "nope"), mode="advanced")
    assert [item.name for item in wrong] == ["reachable", "tls", "credentials"]
    assert line(wrong, "credentials").status == "fail"

    gone = RemoteDatabase(f"http://127.0.0.1:{_closed_port()}/x", username="a", password="b", timeout=2)
    with gone:
        lines = check_server(gone)
    assert line(lines, "reachable").status == "fail" and len(lines) == 2


def test_the_body_limit_probe(couch: CouchServer, team: dict[str, Any], client: Client, tmp_path: Path) -> None:
    db = team["db"]
    seq = couch.db_info(db)["update_seq"]
    direct = check_server(client(db, *team["alice"]), probe_body_limit=True)
    assert line(direct, "body limit").status == "ok" and "4 MB" in line(direct, "body limit").detail
    with NginxProxy(tmp_path / "nginx", couch.port, "200k") as proxy:
        behind = RemoteDatabase(f"{proxy.url}/{db}", username=team["alice"][0], password=team["alice"][1])
        with behind:
            lines = check_server(behind, probe_body_limit=True)
    probe = line(lines, "body limit")
    assert probe.status == "warn"
    assert "about 256 KB was refused (413" in probe.detail and "largest accepted was 64 KB" in probe.detail
    assert "client_max_body_size" in probe.fix
    # The body-limit probe left nothing: no document; the replicated-writes probe a tombstone.
    assert only_probes_since(couch, db, seq)
    assert [r["id"] for r in couch.all_docs(db)["rows"]] == [LOCK_DESIGN_ID]


def test_a_member_cannot_write_the_design_document(couch: CouchServer, team: dict[str, Any], client: Client) -> None:
    alice = client(team["db"], *team["alice"])
    doc = alice.get(LOCK_DESIGN_ID)
    with pytest.raises(RemoteError) as info:
        alice.put({**doc, "validate_doc_update": "function () {}"})
    assert info.value.status in (401, 403)


def _closed_port() -> int:
    from tests.support.couch import free_port

    return free_port()


def test_the_member_fix_adds_and_removes_nobody(couch: CouchServer, client: Client, tmp_path: Path) -> None:
    """Run the printed add-a-member steps for real (curl's part by httpx, the edit by python3 in a
    folder of its own): the new member is added and the members, roles and admins already there stay."""
    import shlex

    couch.create_user("alice", "alice-pw")
    db = couch.create_db(unique_db_name("add"))
    couch.set_security(db, members=["bob", "carol"], admins=["dave"])
    before = security(couch, db)
    steps = member_add_requests(couch.url, db, "alice")
    assert len(steps) == 3 and "admin-secret" not in " ".join(steps)
    for step in steps:
        args = shlex.split(step)
        if args[0] == "python3":
            done = subprocess.run([sys.executable, *args[1:]], cwd=tmp_path, capture_output=True, text=True,
                                  timeout=30, check=False)
            assert done.returncode == 0, done.stderr
        elif "-X" not in args:
            answer = httpx.get(args[3], auth=couch.admin)
            assert answer.status_code == 200
            (tmp_path / args[args.index("-o") + 1]).write_bytes(answer.content)
        else:
            body = (tmp_path / args[args.index("-d") + 1].lstrip("@")).read_bytes()
            answer = httpx.put(args[5], auth=couch.admin, content=body, headers={"Content-Type": "application/json"})
            assert answer.status_code in (200, 201), answer.text
    after = security(couch, db)
    assert after["members"]["names"] == ["bob", "carol", "alice"]
    assert after["admins"] == before["admins"]
    assert AdvancedCheck.run(client(db, "alice", "alice-pw")).member


def _couchdb_34(config: dict[str, str], *, admin: bool) -> httpx.MockTransport:
    """CouchDB 3.4's answers that pouchdb-server cannot give: its welcome, and its config API,
    which answers 404 for a key left at its default (recorded from a CouchDB 3.4.3)."""

    def handle(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path == "/":
            return httpx.Response(200, json={"couchdb": "Welcome", "version": "3.4.3", "vendor": {
                "name": "The Apache Software Foundation"}})
        if path == "/_session":
            roles = ["_admin"] if admin else []
            return httpx.Response(200, json={"ok": True, "userCtx": {"name": "ada", "roles": roles}})
        if path.startswith("/_node/_local/_config/"):
            if not admin:
                return httpx.Response(401, json={"error": "unauthorized", "reason": "You are not a server admin."})
            key = path.rsplit("/", 1)[1]
            if key in config:
                return httpx.Response(200, json=config[key])
            return httpx.Response(404, json={"error": "not_found", "reason": "unknown_config_value"})
        return httpx.Response(404, json={"error": "not_found", "reason": "missing"})

    return httpx.MockTransport(handle)


@pytest.mark.parametrize("admin", [True, False])
def test_check_knows_couchdb_defaults(admin: bool) -> None:
    with RemoteDatabase("http://127.0.0.1:5984/app_v2_x", username="ada", password="pw",
                        transport=_couchdb_34({}, admin=admin)) as remote:
        lines = check_server(remote, mode="advanced")
    doc, request = line(lines, "max_document_size"), line(lines, "max_http_request_size")
    assert doc.status == request.status == "ok"
    assert "8,000,000 bytes" in doc.detail and "4,294,967,296 bytes" in request.detail
    if admin:
        assert "CouchDB's default (not set in the server's configuration)" in doc.detail
    else:
        assert "unless changed: CouchDB's default" in doc.detail and "--probe-body-limit" in doc.fix
    with RemoteDatabase("http://127.0.0.1:5984/app_v2_x", username="ada", password="pw",
                        transport=_couchdb_34({"max_document_size": "500000"}, admin=True)) as remote:
        small = line(check_server(remote, mode="advanced"), "max_document_size")
    assert small.status == "warn" and "500000 bytes" in small.detail


# -- the stale-lock time in the rules ------------------------------------------------------------


def test_rules_made_for_another_stale_time_are_outdated_and_installed_again(couch: CouchServer,
                                                                             client: Client) -> None:
    db = unique_db_name("stale")
    admin = client(db)
    easy_setup(admin, members=["alice"])
    design = couch.get_doc(db, LOCK_DESIGN_ID).json()
    assert design["staleLockMinutes"] == DEFAULT_STALE_LOCK_MINUTES
    assert lock_rules_state(design) == "current" and lock_rules_state(design, 30) == "outdated"
    assert "var STALE_MINUTES = 240;" in design["validate_doc_update"]

    step = easy_setup(admin, members=["alice"], stale_minutes=30).steps[3]
    assert step.changed and "installed again" in step.detail and "30 idle minutes" in step.detail
    design = couch.get_doc(db, LOCK_DESIGN_ID).json()
    assert design["validate_doc_update"] == lock_rules_for(30) and design["staleLockMinutes"] == 30
    assert not easy_setup(admin, members=["alice"], stale_minutes=30).changed

    # The check and the admin's request follow the project's stale time.
    lines = check_server(admin, mode="easy")
    assert line(lines, "lock rules").status == "warn"
    assert "stale-lock time of 30 minutes; the project's is 240" in line(lines, "lock rules").detail
    assert line(lines, "lock rules").fix == "run `storyloom remote setup PROJECT`"  # an admin: set-up fixes it
    assert line(check_server(admin, mode="easy", stale_minutes=30), "lock rules").status == "ok"
    [request] = [r for r in admin_requests(couch.url, db, "alice", stale_minutes=45) if "_design" in r]
    assert json.loads(request.split(" -d ", 1)[1].strip("'"))["validate_doc_update"] == lock_rules_for(45)
    with pytest.raises(ValueError, match="between 1 and 43200"):
        lock_rules_for(0)
