"""Lock clients for the team tests: each one a store of its own (one per user, as on separate
machines) with an editor under TeamLocks and a LockService on a shared pouchdb-server database
that enforces Storyloom's lock rules for its members."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from storyloom.app.locks import LockService
from storyloom.project.collections import SETTINGS_ID
from storyloom.project.editor import Editor
from storyloom.project.settings import default_settings
from storyloom.store import Database
from storyloom.sync import RemoteDatabase, pull, push
from storyloom.sync.lock_rules import DEFAULT_STALE_LOCK_MINUTES, lock_design_doc
from tests.support.couch import CouchServer, unique_db_name

PASSWORD = "pw-secret"
# Every CouchServer preloads the fix of pouchdb-server's validate_doc_update handling
# (tools/peers.py VALIDATION_FIX); the name stays for the team tests that say which server they mean.
TeamCouch = CouchServer


class FakeRemote:
    """The RemoteAccess attributes the lock service uses; ``online = False`` keeps it
    configured but points it at a port nobody listens on."""

    def __init__(self, server: CouchServer, db_name: str, username: str) -> None:
        self.server = server
        self.db_name = db_name
        self._username = username
        self.configured = True

    @property
    def username(self) -> str | None:
        return self._username if self.configured else None

    def open(self, **options: Any) -> RemoteDatabase:
        return RemoteDatabase(self.server.db_url(self.db_name), username=self._username, password=PASSWORD,
                              timeout=options.get("timeout", 10.0))


class LockClient:
    """One user's machine: ``store``, ``editor`` (TeamLocks), ``locks`` (LockService)."""

    def __init__(self, server: CouchServer, db_name: str, user: str, directory: Path,
                 *, require_lock: bool = False) -> None:
        self.user = user
        self.store = Database(directory / f"{user}.sqlite")
        self.editor = Editor(self.store, username=user)
        self.remote = FakeRemote(server, db_name, user)
        self.locks = LockService(self, self.remote, lambda: user)
        self.require_lock = require_lock
        self.editor.lock_policy = self.locks.team_policy(lambda: self.require_lock)

    def settings(self) -> dict[str, Any]:
        return self.store.get(SETTINGS_ID)

    def client(self) -> RemoteDatabase:
        return self.remote.open()

    def push(self) -> Any:
        with self.client() as remote:
            return push(self.store, remote)

    def pull(self) -> Any:
        with self.client() as remote:
            return pull(remote, self.store)

    def close(self) -> None:
        self.store.close()


def team_database(server: CouchServer, users: list[str], *, owners: list[str] | None = None,
                  stale_minutes: int = DEFAULT_STALE_LOCK_MINUTES) -> str:
    """A database whose members are ``users`` (each with :data:`PASSWORD`) and whose owners
    (the database's admins) are ``owners``, with the lock rules for ``stale_minutes``."""
    name = unique_db_name("locks")
    server.create_db(name)
    for user in users:
        server.create_user(user, PASSWORD)
    server.set_security(name, members=users, admins=owners)
    server.put_doc(name, lock_design_doc(stale_minutes))
    return name


def make_stale(server: CouchServer, db_name: str, doc_id: str, holder: str,
               at: str = "2020-01-02T03:04:05.000Z") -> dict[str, Any]:
    """As the holder, date the server copy's lock and last edit ``at`` (long ago): the lock is
    then stale for everyone. Returns the new server copy."""
    with RemoteDatabase(server.db_url(db_name), username=holder, password=PASSWORD) as remote:
        doc = remote.get(doc_id)
        assert doc.get("locked") is True and doc.get("lockedBy") == holder, doc
        doc.update(lockedAt=at, modified=at)
        remote.put(doc)
        return remote.get(doc_id)


def seed(first: LockClient, others: list[LockClient]) -> str:
    """A project with one Script, written by ``first``, pushed, pulled by ``others``; its id."""
    first.editor.create_settings(default_settings("Team"))
    doc_id = first.editor.create("Script", "Intro", content={"script": "one\ntwo\n"}).id
    status = first.push()
    assert status.ok, status.to_json()
    for other in others:
        assert other.pull().ok
    return doc_id


def race_lock(clients: list[LockClient], doc_id: str, barrier: threading.Barrier) -> dict[str, object]:
    """Every client locks ``doc_id`` at the same moment (after ``barrier``); each user's
    outcome: the lock taken, or the exception (a refusal, or a failure the caller reports)."""
    outcome: dict[str, object] = {}

    def take(client: LockClient) -> None:
        barrier.wait(timeout=30)
        try:
            outcome[client.user] = client.locks.lock(doc_id)
        except Exception as exc:  # reported by the caller's assertions, with the round
            outcome[client.user] = exc

    threads = [threading.Thread(target=take, args=(client,)) for client in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return outcome
