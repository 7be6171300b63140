"""Conflicts through a real server (pouchdb-server, real HTTP): two machines edit while the
server is down, sync both ways when it is back, merge automatically, and resolve what cannot
be merged; edits the server refuses stay listed until a resolution supersedes them."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from storyloom.project.conflicts import auto_merge, list_conflicts, list_refused, resolve
from storyloom.project.editor import Editor
from storyloom.project.locks import TeamLocks
from storyloom.project.settings import default_settings
from storyloom.store import Database
from storyloom.sync import RemoteDatabase, pull, push
from tests.support.couch import CouchServer

SCRIPT = "".join(f"line {n}\n" for n in range(1, 9))
# Every CouchServer preloads the fix of pouchdb-server's validate_doc_update handling
# (tools/peers.py VALIDATION_FIX), so replicated writes are validated as CouchDB does.
ValidatingCouch = CouchServer


class Machine:
    """One user's store and editor, and a client of the shared database."""

    def __init__(self, path: Path, user: str, url: str, admin: tuple[str, str]) -> None:
        self.db = Database(path)
        self.editor = Editor(self.db, username=user, lock_policy=TeamLocks(lambda: user, lambda: False))
        self.remote = RemoteDatabase(url, username=admin[0], password=admin[1])

    def sync(self) -> tuple[Any, Any]:
        pushed = push(self.db, self.remote)
        pulled = pull(self.remote, self.db)
        assert pulled.ok, pulled.last_error_message
        return pushed, pulled

    def edit(self, doc_id: str, **changes: Any) -> str:
        doc = copy.deepcopy(self.editor.get(doc_id))
        for key, value in changes.items():
            if key == "script":
                doc["content"]["script"] = value
            else:
                doc[key] = value
        return self.editor.update(doc).rev

    def close(self) -> None:
        self.remote.close()
        self.db.close()


@pytest.fixture
def machines(tmp_path: Path, fresh_couch: CouchServer) -> Iterator[tuple[Machine, Machine, str]]:
    name = fresh_couch.create_db()
    url = fresh_couch.db_url(name)
    ann = Machine(tmp_path / "ann.sqlite", "ann", url, fresh_couch.admin)
    bob = Machine(tmp_path / "bob.sqlite", "bob", url, fresh_couch.admin)
    yield ann, bob, name
    ann.close()
    bob.close()


def test_offline_edits_merge_or_stay_listed_and_resolve_everywhere(
    machines: tuple[Machine, Machine, str], fresh_couch: CouchServer
) -> None:
    ann, bob, name = machines
    ann.editor.create_settings(default_settings("Offline"))
    x = ann.editor.create("Script", "X", content={"script": SCRIPT}).id
    y = ann.editor.create("Script", "Y", content={"script": SCRIPT}).id
    ann.sync()
    bob.sync()
    assert bob.db.get(x)["_rev"] == ann.db.get(x)["_rev"]

    fresh_couch.stop()  # the data stays on disk; both keep working offline
    edits = {
        "ann": [ann.edit(x, name="X (ann)", script=SCRIPT.replace("line 2", "LINE 2 by ann")),
                ann.edit(y, script=SCRIPT.replace("line 4", "line 4, ann's way"))],
        "bob": [bob.edit(x, color="red", script=SCRIPT.replace("line 7", "LINE 7 by bob")),
                bob.edit(y, script=SCRIPT.replace("line 4", "line 4, bob's way"))],
    }
    fresh_couch.start(port=fresh_couch.port)  # back on the same port

    ann.sync()
    bob.sync()
    ann.sync()
    for machine in (ann, bob):
        assert {c.doc_id for c in list_conflicts(machine.db)} == {x, y}
    merged = [auto_merge(ann.editor), auto_merge(bob.editor)]
    assert merged[0].merged == merged[1].merged and [i for i, _ in merged[0].merged] == [x]
    assert merged[0].conflicts == merged[1].conflicts == [y]
    ann.sync()
    bob.sync()
    ann.sync()

    server = fresh_couch.get_doc(name, x, conflicts="true").json()
    for doc in (ann.db.get(x, conflicts=True), bob.db.get(x, conflicts=True), server):
        assert "_conflicts" not in doc and doc["_rev"] == merged[0].merged[0][1]
        assert (doc["name"], doc["color"]) == ("X (ann)", "red")
        assert "LINE 2 by ann" in doc["content"]["script"] and "LINE 7 by bob" in doc["content"]["script"]
    # Y: the same line on both sides, listed on both machines with both leaves, the same winner.
    server_y = fresh_couch.get_doc(name, y, conflicts="true").json()
    listed = {m: list_conflicts(m.db) for m in (ann, bob)}
    for conflicts in listed.values():
        assert [c.doc_id for c in conflicts] == [y]
        assert conflicts[0].winner_rev == server_y["_rev"]
        assert {leaf.rev for leaf in conflicts[0].leaves} == {edits["ann"][1], edits["bob"][1]}
        assert {leaf.author for leaf in conflicts[0].leaves} == {"ann", "bob"}
    assert server_y["_conflicts"]
    # Every edit made is in the winner (X, merged) or a listed leaf (Y).
    texts = [leaf.doc["content"]["script"] for leaf in listed[ann][0].leaves]
    assert any("ann's way" in t for t in texts) and any("bob's way" in t for t in texts)

    rev = resolve(bob.editor, y, take=edits["ann"][1])
    bob.sync()
    ann.sync()
    for doc in (ann.db.get(y, conflicts=True), bob.db.get(y, conflicts=True),
                fresh_couch.get_doc(name, y, conflicts="true").json()):
        assert "_conflicts" not in doc and doc["_rev"] == rev and "ann's way" in doc["content"]["script"]
    assert list_conflicts(ann.db) == list_conflicts(bob.db) == []


REFUSE_NAMED = """function (newDoc, oldDoc, userCtx) {
  if (!newDoc._deleted && newDoc.name === 'refused') { throw({forbidden: 'locked by bob since 10:00'}); }
}"""


@pytest.fixture
def validating_couch(tmp_path: Path) -> Iterator[CouchServer]:
    server = ValidatingCouch(tmp_path / "validating-server", persistent=True)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def test_a_refused_edit_stays_listed_until_a_resolution_supersedes_it(tmp_path: Path,
                                                                       validating_couch: CouchServer) -> None:
    fresh_couch = validating_couch
    name = fresh_couch.create_db()
    ann, bob = (Machine(tmp_path / f"{user}.sqlite", user, fresh_couch.db_url(name), fresh_couch.admin)
                for user in ("ann", "bob"))
    try:
        _refused_edit_scenario(ann, bob, name, fresh_couch)
    finally:
        ann.close()
        bob.close()


def _refused_edit_scenario(ann: Machine, bob: Machine, name: str, fresh_couch: CouchServer) -> None:
    fresh_couch.put_doc(name, {"_id": "_design/refuse", "validate_doc_update": REFUSE_NAMED})
    x = ann.editor.create("Script", "X", content={"script": SCRIPT}).id
    ann.sync()
    bob.sync()
    refused_rev = ann.edit(x, name="refused")
    pushed, _ = ann.sync()
    assert pushed.denied == 1
    listed = list_refused(ann.db)
    assert [(r.doc_id, r.revs, r.reason) for r in listed] == [(x, [refused_rev], "locked by bob since 10:00")]
    pushed, _ = ann.sync()  # tried again, still refused, still listed
    assert pushed.denied == 1 and list_refused(ann.db) == listed

    bob.edit(x, name="bob's")
    bob.sync()
    ann.sync()
    assert [c.doc_id for c in list_conflicts(ann.db)] == [x]  # the refused edit is a leaf here
    bob_rev = next(leaf.rev for leaf in list_conflicts(ann.db)[0].leaves if leaf.author == "bob")
    resolve(ann.editor, x, take=bob_rev)
    assert list_refused(ann.db) == []
    pushed, _ = ann.sync()
    assert pushed.denied == 0 and pushed.ok
    assert ann.db.get_local(f"_local/storyloom-failed-{pushed.replication_id.removeprefix('_local/')}")["docs"] == {}
    bob.sync()
    assert list_conflicts(bob.db) == [] and bob.db.get(x)["name"] == "bob's"
    assert fresh_couch.get_doc(name, x, conflicts="true").json().get("_conflicts") is None
