"""The sync service of a project session, against pouchdb-server over real HTTP: push within a
second, pull on an interval or live, offline and back by itself, errors a person must fix (with
the fix), a 413 through nginx, the events on the session bus and on the API's /events stream,
and no thread left behind."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from storyloom.app import AppOptions, DocumentChanged, Origin, SyncStateChanged, Workspace
from storyloom.app.remote import RemoteAccess
from storyloom.app.secrets import PasswordStore
from storyloom.app.session import ProjectSession
from storyloom.app.sync_state import SyncState
from storyloom.cli.explain import fix_words
from storyloom.cli.main import main
from storyloom.errors import advice
from storyloom.project.remote_settings import RemoteSettings
from storyloom.store import NotFound
from storyloom.sync import RemoteDatabase, push
from tests.support.couch import CouchServer, free_port, unique_db_name
from tests.support.nginx import NginxProxy

PASSWORDS = {"ana": "pw-ana", "bob": "pw-bob", "mallory": "pw-mallory"}
SYNC_OPTIONS = {"max_backoff": 1.0, "client_options": {"timeout": 5.0}}


@pytest.fixture(autouse=True)
def _passwords_in_a_file(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STORYLOOM_PASSWORD_STORE", "file")  # never the machine's keyring


def team_database(server: CouchServer) -> str:
    """A database whose members are ana and bob (mallory exists but is not a member)."""
    name = unique_db_name("team")
    server.create_db(name)
    for user, password in PASSWORDS.items():
        server.create_user(user, password)
    server.set_security(name, members=["ana", "bob"])
    return name


class Recorder:
    def __init__(self) -> None:
        self.events: list[Any] = []
        self._cond = threading.Condition()

    def __call__(self, event: Any) -> None:
        with self._cond:
            self.events.append(event)
            self._cond.notify_all()

    def states(self) -> list[SyncState]:
        with self._cond:
            return [e.state for e in self.events if isinstance(e, SyncStateChanged)]

    def wait_for(self, predicate: Callable[[Recorder], bool], timeout: float = 10.0) -> bool:
        with self._cond:
            return self._cond.wait_for(lambda: predicate(self), timeout)


class Clients:
    """Storyloom clients of one project, each with its own projects folder and password file."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp_path = tmp_path
        self.backup: Path | None = None
        self.sessions: list[ProjectSession] = []
        self.workspaces: list[Workspace] = []

    def open(self, user: str, server_url: str, database: str, *, live: bool = False, interval: float = 30.0,
             password: str | None = None, options: AppOptions | None = None,
             default_home: bool = False, project_settings: dict[str, Any] | None = None) -> ProjectSession:
        """``default_home``: in the STORYLOOM_HOME of the test (where the CLI looks);
        ``project_settings``: changes to the new project's settings (first client only)."""
        home = self.tmp_path / f"client-{len(self.workspaces)}-{user}"
        root = None if default_home else home / "projects"
        workspace = Workspace(root=root, options=options or AppOptions(username=user))
        self.workspaces.append(workspace)
        if self.backup is None:  # the first client creates the project, the others restore it
            project = workspace.manager.create("Garden")
            if project_settings:
                project.editor.update_settings(project_settings)
            self.backup = self.tmp_path / "garden-backup.json"
            workspace.manager.backup(project, self.backup)
        else:
            project = workspace.manager.restore(self.backup)
        passwords = PasswordStore(None if default_home else home / "config")
        settings = RemoteSettings(enabled=True, server=server_url, database=database, username=user,
                                  interval=interval, live=live)
        RemoteAccess(project, passwords).save(settings, password or PASSWORDS[user])
        project.close()
        session = workspace.open_session("Garden", poll_interval=0.05, passwords=passwords,
                                         sync_options=SYNC_OPTIONS)
        self.sessions.append(session)
        return session

    def close(self) -> None:
        for session in self.sessions:
            session.close()
        for workspace in self.workspaces:
            workspace.close()


@pytest.fixture
def clients(tmp_path: Path) -> Iterator[Clients]:
    made = Clients(tmp_path)
    yield made
    made.close()


def wait_until(predicate: Callable[[], Any], timeout: float = 10.0, step: float = 0.01) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"not true within {timeout} s")
        time.sleep(step)


def has_doc(session: ProjectSession, doc_id: str) -> bool:
    try:
        session.db.get(doc_id)
        return True
    except NotFound:
        return False


def on_server(server: CouchServer, db: str, doc_id: str) -> bool:
    return server.get_doc(db, doc_id).status_code == 200


def idle(state: SyncState) -> bool:
    return state.kind == "idle"


# ------------------------------------------------------------------ moving documents
def test_push_within_a_second_and_pull_on_the_interval(couch: CouchServer, clients: Clients) -> None:
    db = team_database(couch)
    ana = clients.open("ana", couch.url, db, interval=1.0)
    bob = clients.open("bob", couch.url, db, interval=1.0)
    recorder = Recorder()
    bob.subscribe(recorder)
    for session in (ana, bob):
        assert session.start_sync().kind in ("connecting", "idle")
    assert ana.sync.wait_for(idle) and bob.sync.wait_for(idle)

    started = time.monotonic()
    folder = ana.editor.create("Folder", "Chapter 1", collection="Script").doc
    script = ana.editor.create("Script", "Intro", parent=folder["_id"], content={"script": "::A:: hi"}).doc
    wait_until(lambda: on_server(couch, db, script["_id"]), step=0.005)
    assert time.monotonic() - started < 1.0, "the push took more than a second"
    wait_until(lambda: has_doc(bob, script["_id"]), timeout=3.0)
    assert time.monotonic() - started < 1.0 + 1.0 + 0.5  # interval + 1 s (+ slack for a busy machine)

    # The pulled documents are in bob's index and tree, and reached his subscribers as remote.
    assert bob.index.get(script["_id"]) is not None
    assert [s.id for s in bob.index.children(folder["_id"])] == [script["_id"]]
    assert bob.wait_for_events()
    assert recorder.wait_for(lambda r: any(isinstance(e, DocumentChanged) and e.id == script["_id"] for e in r.events))
    change = next(e for e in recorder.events if isinstance(e, DocumentChanged) and e.id == script["_id"])
    assert change.origin is Origin.REMOTE and change.collection == "Script"
    assert ana.sync.wait_for(lambda s: idle(s) and s.pending == 0)
    assert ana.sync.state.last_sync is not None and ana.sync.state.remote == f"{couch.url}/{db}"


def test_live_mode_brings_each_edit_over_at_once(couch: CouchServer, clients: Clients) -> None:
    db = team_database(couch)
    ana = clients.open("ana", couch.url, db, live=True)
    bob = clients.open("bob", couch.url, db, live=True)
    ana.start_sync()
    bob.start_sync()
    assert ana.sync.wait_for(idle) and bob.sync.wait_for(idle)
    assert ana.sync.state.live
    delays = []
    for i in range(5):
        started = time.monotonic()
        doc = ana.editor.create("Item", f"Sword {i}").doc
        wait_until(lambda doc=doc: has_doc(bob, doc["_id"]), timeout=5.0, step=0.002)
        delays.append(time.monotonic() - started)
    assert max(delays) < 1.0, delays
    item = bob.editor.create("Item", "Shield").doc  # and back
    wait_until(lambda: has_doc(ana, item["_id"]), timeout=2.0)


# ------------------------------------------------------------------ offline and back
@pytest.mark.parametrize("live", [True, False], ids=["live", "interval"])
def test_offline_then_back_by_itself_nothing_lost(fresh_couch: CouchServer, clients: Clients, live: bool) -> None:
    db = team_database(fresh_couch)
    ana = clients.open("ana", fresh_couch.url, db, live=live, interval=1.0)
    recorder = Recorder()
    ana.subscribe(recorder)
    ana.start_sync()
    assert ana.sync.wait_for(idle)

    port = fresh_couch.port
    fresh_couch.stop()
    offline = [ana.editor.create("Item", f"Offline {i}").doc["_id"] for i in range(3)]
    assert ana.sync.wait_for(lambda s: s.kind == "offline" and s.pending >= 3, timeout=10)
    state = ana.sync.state
    assert state.cause and state.problem == "network" and state.fix is None
    assert state.next_retry is not None and state.next_retry <= time.time() + SYNC_OPTIONS["max_backoff"] + 1
    assert "offline" in state.detail

    fresh_couch.start(port=port)
    assert ana.sync.wait_for(lambda s: idle(s) and s.pending == 0, timeout=15), ana.sync.state
    for doc_id in offline:
        assert on_server(fresh_couch, db, doc_id)
    kinds = [s.kind for s in recorder.states()]
    assert "offline" in kinds and kinds[-1] == "idle"
    assert kinds.index("offline") < len(kinds) - 1


# ------------------------------------------------------------------ errors a person fixes
def test_wrong_password_is_an_error_with_the_fix_and_is_not_retried(couch: CouchServer, clients: Clients) -> None:
    db = team_database(couch)
    ana = clients.open("ana", couch.url, db, live=True, password="not-her-password")
    recorder = Recorder()
    ana.subscribe(recorder)
    ana.start_sync()
    assert ana.sync.wait_for(lambda s: s.kind == "error", timeout=10)
    state = ana.sync.state
    assert state.problem == "credentials"
    assert "ana" in state.cause and "password" in state.cause
    assert "storyloom remote set Garden --username USER" in fix_words(state.fix)
    assert "not-her-password" not in json.dumps(state.to_json())
    assert recorder.wait_for(lambda r: bool(r.states()) and r.states()[-1].kind == "error")
    seen = len(recorder.states())
    time.sleep(1.5)  # backoff would have retried by now (max 1 s)
    assert ana.sync.state.kind == "error" and len(recorder.states()) == seen

    ana.remote.save(ana.remote.settings, PASSWORDS["ana"])  # the user fixes it, then syncs
    ana.sync.sync_now()
    assert ana.sync.wait_for(idle, timeout=10), ana.sync.state


def test_a_non_member_is_an_error_naming_the_membership(couch: CouchServer, clients: Clients) -> None:
    db = team_database(couch)
    mallory = clients.open("mallory", couch.url, db)
    mallory.start_sync()
    assert mallory.sync.wait_for(lambda s: s.kind == "error", timeout=10)
    state = mallory.sync.state
    assert state.problem == "membership", state
    assert "mallory" in state.cause and "member" in state.cause
    assert "storyloom remote invite Garden mallory" in fix_words(state.fix)


def test_a_database_of_another_project_is_refused(couch: CouchServer, clients: Clients, tmp_path: Path) -> None:
    db = team_database(couch)
    other = Workspace(root=tmp_path / "other", options=AppOptions(username="eve"))
    project = other.manager.create("Orchard")
    remote = RemoteDatabase(couch.db_url(db), username=couch.admin[0], password=couch.admin[1])
    assert push(project.store, remote).state == "complete"
    remote.close()
    project.close()
    ana = clients.open("ana", couch.url, db)
    ana.start_sync()
    assert ana.sync.wait_for(lambda s: s.kind == "error", timeout=10)
    state = ana.sync.state
    assert state.problem == "identity" and "Orchard" in state.cause
    assert "--database NAME" in fix_words(state.fix) and "clone" in fix_words(state.fix)


def test_a_document_too_large_for_the_proxy_names_document_size_and_setting(
    couch: CouchServer, clients: Clients, tmp_path: Path
) -> None:
    db = team_database(couch)
    proxy = NginxProxy(tmp_path / "nginx", couch.port, "8k")
    proxy.start()
    try:
        ana = clients.open("ana", proxy.url, db, live=True)
        ana.start_sync()
        assert ana.sync.wait_for(idle, timeout=10)
        big = ana.editor.create("Script", "Long", content={"script": "::A:: " + "words " * 4000}).doc
        small = ana.editor.create("Item", "Small").doc
        assert ana.sync.wait_for(lambda s: s.kind == "error" and s.problem == "too_large", timeout=10)
        state = ana.sync.state
        (doc,) = state.too_large
        assert doc.doc_id == big["_id"] and doc.size is not None and doc.size > 20_000
        assert "client_max_body_size" in doc.setting
        assert big["_id"] in state.cause and str(doc.size) in state.cause
        assert "client_max_body_size" in fix_words(state.fix)
        wait_until(lambda: on_server(couch, db, small["_id"]), timeout=5)  # everything else syncs
        assert not on_server(couch, db, big["_id"])
        assert state.to_json()["too_large"] == [
            {"id": big["_id"], "rev": doc.rev, "size": doc.size, "setting": doc.setting}
        ]
    finally:
        proxy.stop()


def test_a_conflict_the_pull_brings_is_merged_and_pushed(couch: CouchServer, clients: Clients) -> None:
    db = team_database(couch)
    ana = clients.open("ana", couch.url, db, live=True, project_settings={"requireLockToEdit": False})
    bob = clients.open("bob", couch.url, db, live=True)
    ana.start_sync()
    doc = ana.editor.create("Item", "Lamp", description="old").doc
    bob.start_sync()
    wait_until(lambda: has_doc(bob, doc["_id"]), timeout=5)
    bob.sync.stop()  # bob works offline
    bob.editor.rename(doc["_id"], "Oil lamp")
    ana.editor.patch(doc["_id"], {"description": "new"})
    wait_until(lambda: couch.get_doc(db, doc["_id"]).json().get("description") == "new", timeout=5)
    bob.sync.sync_now()  # back: his edit goes up, hers comes down, the conflict is merged

    def merged(session: ProjectSession) -> bool:
        current = session.db.get(doc["_id"], conflicts=True)
        return not current.get("_conflicts") and current["name"] == "Oil lamp" and current["description"] == "new"

    wait_until(lambda: merged(bob) and merged(ana), timeout=10)
    assert ana.db.get(doc["_id"])["_rev"] == bob.db.get(doc["_id"])["_rev"]


# ------------------------------------------------------------------ events and threads
def test_events_on_the_session_bus_in_order(couch: CouchServer, clients: Clients) -> None:
    db = team_database(couch)
    ana = clients.open("ana", couch.url, db, live=True)
    bob = clients.open("bob", couch.url, db, live=True)
    recorder = Recorder()
    bob.subscribe(recorder)
    ana.start_sync()
    assert ana.sync.wait_for(idle)
    bob.start_sync()
    assert bob.sync.wait_for(idle)
    doc = ana.editor.create("Item", "Lantern").doc

    def pulled_then_idle(r: Recorder) -> bool:
        at = next((i for i, e in enumerate(r.events) if isinstance(e, DocumentChanged) and e.id == doc["_id"]), None)
        return at is not None and any(isinstance(e, SyncStateChanged) and idle(e.state) for e in r.events[at:])

    assert recorder.wait_for(pulled_then_idle)
    bob.close()
    kinds = [s.kind for s in recorder.states()]
    assert kinds[0] == "connecting" and kinds[-1] == "off"
    assert "idle" in kinds and "syncing" in kinds
    # The pulled document's change comes after bob started syncing and before the state that
    # says he is up to date again.
    events = recorder.events
    at = next(i for i, e in enumerate(events) if isinstance(e, DocumentChanged) and e.id == doc["_id"])
    assert events[at].origin is Origin.REMOTE
    before = [e.state.kind for e in events[:at] if isinstance(e, SyncStateChanged)]
    after = [e.state.kind for e in events[at:] if isinstance(e, SyncStateChanged)]
    assert before and "idle" in after and after[-1] == "off"


def test_the_api_events_stream_carries_the_sync_state(couch: CouchServer, clients: Clients) -> None:
    db = team_database(couch)
    key = "k" * 32
    options = AppOptions(username="ana", api_enabled=True, api_key=key, api_port=free_port())
    ana = clients.open("ana", couch.url, db, live=True, options=options)
    status = ana.start_api()
    assert status.running, status.error
    seen: list[dict[str, Any]] = []
    with httpx.stream("GET", f"{status.url}/events", headers={"x-api-key": key}, timeout=10) as response:
        assert response.status_code == 200
        ana.start_sync()
        event = None
        for line in response.iter_lines():
            if line.startswith("event: "):
                event = line[len("event: "):]
            elif line.startswith("data: ") and event == "sync":
                seen.append(json.loads(line[len("data: "):]))
                if seen[-1]["state"] == "idle":
                    break
    assert [s["state"] for s in seen][-1] == "idle"
    last = seen[-1]
    assert last["remote"] == f"{couch.url}/{db}" and last["pending"] == 0 and last["live"] is True
    assert last["last_sync"].endswith("Z") and last["cause"] is None
    # A stream opened later gets the current state first.
    with httpx.stream("GET", f"{status.url}/events", headers={"x-api-key": key}, timeout=10) as response:
        lines = response.iter_lines()
        assert next(lines) == "retry: 2000"
        assert next(lines) == ""
        assert next(lines) == "event: sync"
        assert json.loads(next(lines)[len("data: "):])["state"] == "idle"


def test_stop_and_close_leave_no_thread(couch: CouchServer, clients: Clients) -> None:
    db = team_database(couch)
    before = set(threading.enumerate())
    ana = clients.open("ana", couch.url, db, live=True)
    ana.start_sync()
    assert ana.sync.wait_for(idle)
    ana.editor.create("Item", "Rope")
    ana.sync.stop()
    assert ana.sync.state.kind == "off"
    assert [t.name for t in set(threading.enumerate()) - before if t.name.startswith("storyloom-sync")] == []
    ana.sync.sync_now()  # starts it again
    assert ana.sync.wait_for(idle)
    ana.close()  # stops sync first
    left = [t.name for t in set(threading.enumerate()) - before]
    assert left == [], left


def test_cli_sync_uses_the_stored_settings(couch: CouchServer, clients: Clients,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    db = team_database(couch)
    ana = clients.open("ana", couch.url, db, default_home=True)
    doc = ana.editor.create("Item", "Map").doc
    ana.close()
    code = main(["sync", "Garden", "--json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    result = json.loads(out.out)
    assert result["remote"] == f"{couch.url}/{db}" and result["push"]["docs_written"] >= 2
    assert on_server(couch, db, doc["_id"])
    assert PASSWORDS["ana"] not in out.out + out.err
    assert main(["sync", "Garden", "--username", "bob"]) == 2
    assert "--username goes with --remote" in capsys.readouterr().err


def test_cli_sync_to_a_database_of_another_project_names_it_and_the_ways_out(
    couch: CouchServer, clients: Clients, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = team_database(couch)
    other = Workspace(root=tmp_path / "other", options=AppOptions(username="eve"))
    project = other.manager.create("Orchard")
    with RemoteDatabase(couch.db_url(db), username=couch.admin[0], password=couch.admin[1]) as remote:
        assert push(project.store, remote).state == "complete"
    project.close()
    other.close()
    clients.open("ana", couch.url, db, default_home=True).close()
    code = main(["sync", "Garden"])
    err = capsys.readouterr().err
    assert code == 1
    assert "'Orchard'" in err and "another database" in err
    assert f"storyloom clone {couch.url}/{db} --username ana" in err


def test_cli_live_sync_lines_say_why_offline_and_what_to_fix() -> None:
    from storyloom.cli.verb_sync import state_line

    offline = SyncState(kind="offline", detail="offline; retrying in 2 s", cause="cannot reach http://h:5984")
    assert state_line(offline) == "sync: offline: offline; retrying in 2 s (cannot reach http://h:5984)"
    error = SyncState(kind="error", detail="sync error: wrong password", cause="wrong password",
                      fix=advice("set it again"))
    assert state_line(error) == "sync: error: sync error: wrong password (fix: set it again)"
    assert state_line(SyncState(kind="idle", detail="up to date")) == "sync: idle: up to date"


def test_cli_live_sync_with_the_stored_settings_runs_the_service(
    couch: CouchServer, clients: Clients, storyloom_home: Path
) -> None:
    import os
    import signal
    import subprocess
    import sys

    db = team_database(couch)
    ana = clients.open("ana", couch.url, db, default_home=True)
    ana.close()
    env = {**os.environ, "STORYLOOM_HOME": str(storyloom_home), "STORYLOOM_PASSWORD_STORE": "file"}
    proc = subprocess.Popen([sys.executable, "-m", "storyloom", "sync", "Garden", "--live", "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout is not None
        states = []
        for line in proc.stdout:
            states.append(json.loads(line))
            if states[-1]["state"] == "idle":
                break
        couch.put_doc(db, {"_id": "from-the-server", "type": "Item", "name": "Cup"})
        received = False
        for line in proc.stdout:  # the live pull brings it: received, then idle again
            states.append(json.loads(line))
            progress = states[-1]["progress"] or {}
            # A round that began before the put (a push, an empty pull) is not the one: wait
            # for the one that received a document.
            received = received or (progress.get("direction") == "pull" and (progress.get("done") or 0) >= 1)
            if received and states[-1]["state"] == "idle":
                break
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    states += [json.loads(line) for line in out.splitlines()]
    kinds = [s["state"] for s in states]
    assert kinds[0] == "connecting" and "idle" in kinds and kinds[-1] == "off"
    assert all(s["live"] for s in states[:-1]) and states[0]["remote"] == f"{couch.url}/{db}"
    assert PASSWORDS["ana"] not in out + err
    with Workspace(options=AppOptions(username="ana")) as workspace, workspace.open_session("Garden") as again:
        assert again.db.get("from-the-server")["name"] == "Cup"
