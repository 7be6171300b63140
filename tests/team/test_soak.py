"""A bounded soak: three Storyloom clients (live sync, locks required) and a PouchDB 9 peer edit,
create, move, delete, lock and unlock the same documents at random while the server is stopped
and restarted under them. Afterwards every replica (the server included) has the same winner and
the same conflict set for every document, and no acknowledged edit is missing anywhere.

"Acknowledged" means the writer was told the write happened: a revision the editor's gate
returned (Storyloom) or a ``put`` that PouchDB answered. Such a revision must be in the history
of some leaf on every replica: still the winner, superseded by a later edit or a merge, or a
listed conflict leaf; never gone.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tools.peers import PouchError

from storyloom.app import AppOptions, Workspace
from storyloom.app.remote import RemoteAccess
from storyloom.app.secrets import PasswordStore
from storyloom.app.session import ProjectSession
from storyloom.errors import StoryloomError
from storyloom.project.remote_settings import RemoteSettings
from storyloom.store import NotFound
from storyloom.sync import RemoteDatabase
from tests.sync.pouch_peer import PouchPeer
from tests.team.lock_clients import PASSWORD, TeamCouch, team_database

USERS = ("ana", "bob", "cat")
PEER_USER = "dave"
SOAK_SECONDS = 24.0
OUTAGE = (7.0, 13.0)  # seconds after the start: the server is down in between
SYNC_OPTIONS = {"max_backoff": 1.0, "client_options": {"timeout": 5.0}}


@pytest.fixture(autouse=True)
def _passwords_in_a_file(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STORYLOOM_PASSWORD_STORE", "file")


class StoryloomClient:
    """One user's machine: a workspace of its own, the project restored from the shared backup,
    remote settings stored, live sync running."""

    def __init__(self, tmp_path: Path, user: str, server: TeamCouch, database: str, backup: Path | None) -> None:
        self.user = user
        home = tmp_path / f"home-{user}"
        self.workspace = Workspace(root=home / "projects", options=AppOptions(username=user))
        if backup is None:
            project = self.workspace.manager.create("Soak")
            self.seed(project)
            self.backup = tmp_path / "soak-backup.json"
            self.workspace.manager.backup(project, self.backup)
        else:
            project = self.workspace.manager.restore(backup)
            self.backup = backup
        passwords = PasswordStore(home / "config")
        settings = RemoteSettings(enabled=True, server=server.url, database=database, username=user,
                                  interval=1.0, live=True)
        RemoteAccess(project, passwords).save(settings, PASSWORD)
        project.close()
        self.session: ProjectSession = self.workspace.open_session(
            "Soak", poll_interval=0.05, passwords=passwords, sync_options=SYNC_OPTIONS
        )
        self.acknowledged: list[tuple[str, str]] = []
        self.refusals = 0

    @staticmethod
    def seed(project: Any) -> None:
        editor = project.editor
        folders = [editor.create("Folder", f"Act {n}", collection="Script").id for n in range(3)]
        for n in range(12):
            editor.create("Script", f"Scene {n}", parent=folders[n % 3], content={"script": f"line {n}\n"})

    def scripts(self) -> list[dict[str, Any]]:
        return [doc for doc in self.session.editor.documents() if doc.get("type") == "Script"]

    def folders(self) -> list[str]:
        return [doc["_id"] for doc in self.session.editor.documents()
                if doc.get("type") == "Folder" and doc.get("collection") == "Script"]

    def step(self, rng: random.Random, n: int) -> None:
        """One random action; refusals (a lock held by someone else, a document gone meanwhile)
        are part of the game and counted."""
        editor = self.session.editor
        scripts = self.scripts()
        action = rng.choices(("edit", "text", "move", "create", "delete", "lock", "unlock"),
                             weights=(5, 3, 2, 1, 1, 2, 2))[0]
        try:
            if action == "create" or not scripts:
                result = editor.create("Script", f"{self.user} {n}", parent=rng.choice(self.folders()),
                                       content={"script": f"new by {self.user}\n"})
            else:
                doc = rng.choice(scripts)
                doc_id = doc["_id"]
                if action == "edit":
                    result = editor.patch(doc_id, {"comments": f"{self.user} note {n}"})
                elif action == "text":
                    lines = (doc.get("content") or {}).get("script", "").splitlines() or [""]
                    lines[rng.randrange(len(lines))] = f"{self.user} says {n}"
                    content = dict(doc.get("content") or {}, script="\n".join(lines) + "\n")
                    result = editor.patch(doc_id, {"content": content})
                elif action == "move":
                    result = editor.move(doc_id, rng.choice(self.folders()))
                elif action == "delete":
                    editor.delete(doc_id)
                    return
                elif action == "lock":
                    self.session.locks.lock(doc_id)
                    return
                else:
                    self.session.locks.unlock(doc_id)
                    return
        except StoryloomError:
            self.refusals += 1
            return
        self.acknowledged.append((result.id, result.rev))

    def close(self) -> None:
        self.session.close()
        self.workspace.close()


class PeerClient:
    """A PouchDB 9 database of user dave, synced with the server now and then; it edits only
    documents it sees unlocked (a client that ignores locks is refused by the server)."""

    def __init__(self, peer: PouchPeer, url: str) -> None:
        self.peer = peer
        self.url = url
        self.auth = {"username": PEER_USER, "password": PASSWORD}
        self.acknowledged: list[tuple[str, str]] = []

    def sync(self) -> None:
        try:
            self.peer.call("sync", db="dave", url=self.url, auth=self.auth, opts={"batch_size": 50})
        except Exception:
            pass

    def step(self, rng: random.Random, n: int) -> None:
        rows = self.peer.call("allDocs", db="dave", opts={"include_docs": True})["rows"]
        docs = [row["doc"] for row in rows if row["doc"].get("type") == "Script" and not row["doc"].get("locked")]
        if not docs:
            return
        doc = rng.choice(docs)
        doc["comments"] = f"dave note {n}"
        try:
            result = self.peer.call("put", db="dave", doc=doc)
        except Exception:
            return
        self.acknowledged.append((result["id"], result["rev"]))


def leaf_histories(get_open_revs: Callable[[str], list[dict[str, Any]]], doc_id: str) -> tuple[str, set[str], set[str]]:
    """(winner, leaves, every rev in the history of a leaf) of one document on one replica."""
    leaves = [row["ok"] for row in get_open_revs(doc_id) if "ok" in row]
    history: set[str] = set()
    for leaf in leaves:
        revs = leaf.get("_revisions") or {}
        start = revs.get("start", 0)
        history.update(f"{start - i}-{h}" for i, h in enumerate(revs.get("ids", [])))
    live = [leaf for leaf in leaves if not leaf.get("_deleted")] or leaves
    winner = max(live, key=lambda leaf: (int(leaf["_rev"].split("-")[0]), leaf["_rev"]))["_rev"]
    return winner, {leaf["_rev"] for leaf in leaves}, history


def replica_views(clients: list[StoryloomClient], peer: PeerClient, remote: RemoteDatabase) -> dict[str, Callable]:
    views: dict[str, Callable[[str], list[dict[str, Any]]]] = {}
    for client in clients:
        store = client.session.project.store
        views[client.user] = lambda doc_id, store=store: store.get(doc_id, open_revs="all", revs=True)
    views["server"] = lambda doc_id: remote.get_open_revs(doc_id, "all", revs=True, attachments=False)
    views[PEER_USER] = lambda doc_id: peer.peer.call(
        "get", db="dave", id=doc_id, opts={"open_revs": "all", "revs": True})
    return views


def all_ids(remote: RemoteDatabase) -> list[str]:
    return [row["id"] for row in remote.all_docs()["rows"] if not row["id"].startswith("_design/")]


def converged(views: dict[str, Callable], ids: list[str]) -> tuple[bool, str]:
    for doc_id in ids:
        try:
            seen = {name: leaf_histories(view, doc_id)[:2] for name, view in views.items()}
        except (PouchError, NotFound):  # a replica has not received it yet: not converged, ask again
            return False, f"{doc_id}: not on every replica yet"
        first = next(iter(seen.values()))
        if any(value != first for value in seen.values()):
            return False, f"{doc_id}: {seen}"
    return True, ""


def test_three_clients_and_a_pouchdb_peer_converge_through_an_outage(tmp_path: Path) -> None:
    server = TeamCouch(tmp_path / "server", persistent=True)
    server.start()
    clients: list[StoryloomClient] = []
    peer_process = PouchPeer(tmp_path / "peer")
    try:
        database = team_database(server, [*USERS, PEER_USER])
        backup = None
        for user in USERS:
            client = StoryloomClient(tmp_path, user, server, database, backup)
            backup = client.backup
            clients.append(client)
        for client in clients:
            client.session.start_sync()
        peer = PeerClient(peer_process, server.db_url(database))
        remote = RemoteDatabase(server.db_url(database), username="admin", password=server.admin[1])

        # Let the first push settle so every replica starts from the same project.
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and len(all_ids(remote)) < 16:
            time.sleep(0.2)
        peer.sync()

        stop = threading.Event()
        errors: list[BaseException] = []

        def run(client: StoryloomClient, seed: int) -> None:
            rng = random.Random(seed)
            n = 0
            try:
                while not stop.is_set():
                    client.step(rng, n)
                    n += 1
                    time.sleep(rng.uniform(0.02, 0.12))
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=run, args=(client, i), daemon=True) for i, client in enumerate(clients)]
        started = time.monotonic()
        for thread in threads:
            thread.start()
        rng = random.Random(99)
        outage_done = False
        server_down = False
        n = 0
        while (elapsed := time.monotonic() - started) < SOAK_SECONDS:
            if not server_down and not outage_done and elapsed >= OUTAGE[0]:
                server.stop()
                server_down = True
            if server_down and elapsed >= OUTAGE[1]:
                server.start(port=server.port)
                server_down, outage_done = False, True
            peer.step(rng, n)
            if not server_down and n % 5 == 0:
                peer.sync()
            n += 1
            time.sleep(0.1)
        stop.set()
        for thread in threads:
            thread.join(timeout=30)
        assert not errors, errors
        assert outage_done

        # Quiesce: every client syncs (merges run after each pull) until all replicas agree.
        views = replica_views(clients, peer, remote)
        deadline = time.monotonic() + 90
        ok, why = False, ""
        while time.monotonic() < deadline:
            for client in clients:
                client.session.sync.sync_now()
            peer.sync()
            time.sleep(1.5)
            ok, why = converged(views, all_ids(remote))
            if ok:
                break
        assert ok, f"replicas did not converge: {why}"

        acknowledged = [(c.user, rev) for c in clients for rev in c.acknowledged]
        acknowledged += [(PEER_USER, rev) for rev in peer.acknowledged]
        refusals = sum(c.refusals for c in clients)
        print(f"soak: {len(acknowledged)} acknowledged edits ({len(peer.acknowledged)} by PouchDB), "
              f"{refusals} refused by locks or races, {len(all_ids(remote))} documents, converged")
        assert len(acknowledged) > 100, "the soak did too little to prove anything"
        for name, view in views.items():
            histories: dict[str, set[str]] = {}
            for writer, (doc_id, rev) in acknowledged:
                if doc_id not in histories:
                    histories[doc_id] = leaf_histories(view, doc_id)[2]
                assert rev in histories[doc_id], f"{writer}'s acknowledged {doc_id} {rev} is missing on {name}"
    finally:
        for client in clients:
            client.close()
        peer_process.close()
        server.stop()
