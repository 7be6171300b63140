"""The hostile-member suite: raw HTTP (httpx) against pouchdb-server with the validation fix and
the version 2 lock rules, as users who try every request shape to change, delete, unlock or
replicate over a document another user holds (issue 22, "Locks that hold on the server").

The world: ``holder`` holds the lock of a document with content and an attachment; ``member``
is a plain member; ``owner`` is an owner by name (``_security.admins.names``), ``boss`` an owner
by role (``_security.admins.roles``), ``admin`` the server admin; ``Holder`` is another member
whose name differs from the holder's only by case. Each refused request is checked for its status
and reason, and for what matters: the holder's locked revision is still the winner, with its
content, attachment and lock.
"""

from __future__ import annotations

import base64
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from storyloom.project.settings import default_settings
from storyloom.sync.lock_rules import lock_design_doc
from tests.support.couch import CouchServer, unique_db_name
from tests.team.lock_clients import PASSWORD, LockClient, TeamCouch

STALE_MINUTES = 240
ROLE = "team-owner"
CONTENT = {"script": "INT. HOUSE\nA line only the holder may change.\n"}
ATTACHMENT = base64.b64encode(b"the holder's attachment").decode()


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def now_iso() -> str:
    return iso(datetime.now(UTC))


LONG_AGO = "2020-01-02T03:04:05.000Z"


@dataclass
class World:
    server: CouchServer
    db: str
    http: dict[str, httpx.Client]

    def url(self, path: str = "") -> str:
        return f"/{quote(self.db, safe='')}" + (f"/{path}" if path else "")

    def as_(self, user: str) -> httpx.Client:
        return self.http[user]

    def get(self, doc_id: str, **params: Any) -> dict[str, Any]:
        answer = self.as_("admin").get(self.url(quote(doc_id, safe="")), params=params)
        assert answer.status_code == 200, answer.text
        return answer.json()

    def create_locked(self, *, holder: str = "holder", locked_at: str | None = None,
                      modified: Any = None, extra: dict[str, Any] | None = None) -> dict[str, Any]:
        """A document written by ``holder`` in two revisions: free, then locked (the free first
        revision is the parent a stale offline edit would branch from)."""
        doc_id = "doc-" + uuid.uuid4().hex[:10]
        first = {"_id": doc_id, "type": "Script", "name": "Intro", "content": dict(CONTENT), "locked": False,
                 "lockedBy": "nobody", "lockedAt": None, "modified": modified if modified is not None else now_iso(),
                 "modifiedBy": holder,
                 "_attachments": {"note.txt": {"content_type": "text/plain", "data": ATTACHMENT}}, **(extra or {})}
        answer = self.as_(holder).put(self.url(doc_id), json=first)
        assert answer.status_code == 201, answer.text
        doc = self.get(doc_id)
        doc.update(locked=True, lockedBy=holder)
        if locked_at is not None:
            doc["lockedAt"] = locked_at
        else:
            doc["lockedAt"] = now_iso()
        if locked_at == "":
            doc.pop("lockedAt")  # a Drafft lock: no lockedAt at all
        answer = self.as_(holder).put(self.url(doc_id), json=doc)
        assert answer.status_code == 201, answer.text
        return self.get(doc_id, revs="true")

    def assert_intact(self, locked: dict[str, Any], holder: str = "holder") -> None:
        """The holder's locked revision is still the winner with its content, attachment and lock."""
        current = self.get(locked["_id"], conflicts="true")
        assert current["_rev"] == locked["_rev"], current
        assert current.get("_conflicts") is None, current
        assert current["content"] == locked["content"] and current["locked"] is True
        assert current["lockedBy"] == holder
        assert current["_attachments"]["note.txt"]["digest"] == locked["_attachments"]["note.txt"]["digest"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CouchServer]:
    with TeamCouch(tmp_path_factory.mktemp("hostile-couch")) as couch:
        yield couch


USERS = ("holder", "member", "owner", "boss", "Holder")


@pytest.fixture(scope="module")
def world(server: CouchServer) -> Iterator[World]:
    db = unique_db_name("hostile")
    server.create_db(db)
    for user in USERS:
        server.create_user(user, PASSWORD, roles=[ROLE] if user == "boss" else [])
    security = {"admins": {"names": ["owner"], "roles": [ROLE]},
                "members": {"names": ["holder", "member", "Holder"], "roles": []}}
    assert server.request("PUT", f"/{quote(db, safe='')}/_security", json=security).status_code in (200, 201)
    server.put_doc(db, lock_design_doc(STALE_MINUTES))
    clients = {user: httpx.Client(base_url=server.url, auth=(user, PASSWORD), timeout=30) for user in USERS}
    clients["admin"] = httpx.Client(base_url=server.url, auth=server.admin, timeout=30)
    try:
        yield World(server, db, clients)
    finally:
        for client in clients.values():
            client.close()


# -- the request shapes ---------------------------------------------------------------------------

Attack = Callable[[World, str, dict[str, Any]], httpx.Response]


def _child(doc: dict[str, Any], body: dict[str, Any], fake: str = "e") -> dict[str, Any]:
    """A replicated child of ``doc`` (new_edits:false): a made-up revision on top of it."""
    gen, digest = doc["_rev"].split("-")
    rev = fake * 32
    return {**body, "_id": doc["_id"], "_rev": f"{int(gen) + 1}-{rev}",
            "_revisions": {"start": int(gen) + 1, "ids": [rev, digest]}}


def _plain(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k != "_revisions"}


def _break(doc: dict[str, Any], by: str, **changes: Any) -> dict[str, Any]:
    record = {"by": by, "holder": doc["lockedBy"], "since": doc.get("lockedAt"), "at": now_iso()}
    return {**_plain(doc), "locked": False, "lockedBy": "nobody", "lockedAt": None, "lockBroken": record, **changes}


def _bulk(w: World, user: str, docs: list[dict[str, Any]], new_edits: bool = True) -> httpx.Response:
    body: dict[str, Any] = {"docs": docs}
    if not new_edits:
        body["new_edits"] = False
    return w.as_(user).post(w.url("_bulk_docs"), json=body)


def _put(w: World, user: str, body: dict[str, Any]) -> httpx.Response:
    return w.as_(user).put(w.url(body["_id"]), json=body)


ATTACKS: dict[str, Attack] = {
    "PUT an edit": lambda w, u, d: _put(w, u, {**_plain(d), "content": {"script": "mine now"}}),
    "PUT an unlock without a break record": lambda w, u, d: _put(
        w, u, {**_plain(d), "locked": False, "lockedBy": "nobody", "lockedAt": None}),
    "PUT the lock taken over": lambda w, u, d: _put(w, u, {**_plain(d), "lockedBy": u, "lockedAt": now_iso()}),
    "PUT the lock in the holder's name with other content": lambda w, u, d: _put(
        w, u, {**_plain(d), "content": {"script": "x"}}),
    "PUT lockedBy in another case": lambda w, u, d: _put(
        w, u, {**_plain(d), "lockedBy": d["lockedBy"].upper(), "content": {"script": "x"}}),
    "PUT locked as a string": lambda w, u, d: _put(w, u, {**_plain(d), "locked": "false", "content": {"script": "x"}}),
    "PUT a resolution tombstone": lambda w, u, d: _put(
        w, u, {"_id": d["_id"], "_rev": d["_rev"], "_deleted": True, "supersededBy": "9-" + "f" * 32}),
    "PUT _deleted with every other field": lambda w, u, d: _put(w, u, {**_plain(d), "_deleted": True}),
    "PUT _deleted with a break record": lambda w, u, d: _put(w, u, {**_break(d, u), "_deleted": True}),
    "DELETE ?rev=": lambda w, u, d: w.as_(u).delete(w.url(d["_id"]), params={"rev": d["_rev"]}),
    "DELETE If-Match": lambda w, u, d: w.as_(u).request("DELETE", w.url(d["_id"]), headers={"If-Match": d["_rev"]}),
    "_bulk_docs an edit": lambda w, u, d: _bulk(w, u, [{**_plain(d), "content": {"script": "x"}}]),
    "_bulk_docs a tombstone": lambda w, u, d: _bulk(
        w, u, [{"_id": d["_id"], "_rev": d["_rev"], "_deleted": True, "supersededBy": "x"}]),
    "_bulk_docs new_edits:false edit": lambda w, u, d: _bulk(
        w, u, [_child(d, {**_plain(d), "content": {"script": "x"}})], new_edits=False),
    "_bulk_docs new_edits:false tombstone": lambda w, u, d: _bulk(
        w, u, [_child(d, {"_deleted": True, "supersededBy": "x"})], new_edits=False),
    "_bulk_docs new_edits:false unlock": lambda w, u, d: _bulk(
        w, u, [_child(d, {**_plain(d), "locked": False, "lockedBy": "nobody", "lockedAt": None})], new_edits=False),
    "_bulk_docs new_edits:false over made-up intermediate revisions": lambda w, u, d: _bulk(w, u, [{
        **_plain(d), "content": {"script": "x"}, "_rev": f"{int(d['_rev'].split('-')[0]) + 3}-{'a' * 32}",
        "_revisions": {"start": int(d["_rev"].split("-")[0]) + 3,
                       "ids": ["a" * 32, "b" * 32, "c" * 32, d["_rev"].split("-")[1]]}}], new_edits=False),
    "PUT an attachment": lambda w, u, d: w.as_(u).put(
        w.url(f"{d['_id']}/evil.txt"), params={"rev": d["_rev"]}, content=b"evil",
        headers={"Content-Type": "text/plain"}),
    "DELETE the attachment": lambda w, u, d: w.as_(u).delete(w.url(f"{d['_id']}/note.txt"), params={"rev": d["_rev"]}),
    "a break that changes the content": lambda w, u, d: _put(w, u, _break(d, u, content={"script": "x"})),
    "a break that replaces the attachment": lambda w, u, d: _put(w, u, _break(d, u, _attachments={
        "note.txt": {"content_type": "text/plain", "data": base64.b64encode(b"other").decode()}})),
    "a break that drops the attachment": lambda w, u, d: _put(w, u, _break(d, u, _attachments={})),
    "a break that adds a field": lambda w, u, d: _put(w, u, _break(d, u, extra="x")),
    "a break that adds a field named like a JavaScript built-in": lambda w, u, d: _put(
        w, u, _break(d, u, constructor="x", toString="y")),
    "a break recorded in someone else's name": lambda w, u, d: _put(
        w, u, _break(d, "owner" if u != "owner" else "boss")),
    "a break naming another holder": lambda w, u, d: _put(
        w, u, {**_break(d, u), "lockBroken": {"by": u, "holder": "somebody", "at": now_iso()}}),
    "a break that takes the lock": lambda w, u, d: _put(w, u, {**_break(d, u), "locked": True, "lockedBy": u}),
    "a replicated break that changes the content": lambda w, u, d: _bulk(
        w, u, [_child(d, _break(d, u, content={"script": "x"}))], new_edits=False),
    "a break without a record": lambda w, u, d: _put(w, u, {**_break(d, u), "lockBroken": None}),
}

ATTACKERS = ("member", "Holder", "owner", "boss", "admin")


def _refusal(answer: httpx.Response) -> str:
    """The reason of a refused write: a 403, or a per-document ``forbidden`` in ``_bulk_docs``."""
    if answer.request.url.path.endswith("/_bulk_docs"):
        assert answer.status_code in (201, 202), answer.text
        [result] = answer.json()
        assert result.get("error") == "forbidden", answer.text
        return str(result["reason"])
    assert answer.status_code == 403, (answer.status_code, answer.text)
    assert answer.json()["error"] == "forbidden", answer.text
    return str(answer.json()["reason"])


@pytest.mark.parametrize("attacker", ATTACKERS)
@pytest.mark.parametrize("shape", sorted(ATTACKS))
def test_every_request_shape_is_refused_and_the_holder_keeps_the_document(
        world: World, shape: str, attacker: str) -> None:
    locked = world.create_locked()
    reason = _refusal(ATTACKS[shape](world, attacker, locked))
    assert f"{locked['_id']} is locked by holder since {locked['lockedAt']}" in reason
    assert "only holder may change, delete or unlock it" in reason or "not stale" in reason
    world.assert_intact(locked)


@pytest.mark.parametrize("attacker", ATTACKERS)
def test_nobody_takes_a_lock_in_another_users_name(world: World, attacker: str) -> None:
    doc_id = "new-" + uuid.uuid4().hex[:10]
    forged = {"_id": doc_id, "content": {}, "locked": True, "lockedBy": "holder", "lockedAt": now_iso()}
    for answer in (
        _put(world, attacker, forged),
        world.as_(attacker).post(world.url(), json=forged),
        _bulk(world, attacker, [forged]),
        _bulk(world, attacker, [{**forged, "_rev": "3-" + "c" * 32,
                                 "_revisions": {"start": 3, "ids": ["c" * 32, "b" * 32, "a" * 32]}}], new_edits=False),
    ):
        reason = _refusal(answer)
        assert f"{attacker} cannot lock {doc_id} in the name of holder" in reason
    assert world.as_("admin").get(world.url(doc_id)).status_code == 404
    # Nor on a free document, nor by handing one's own lock over.
    free = {"_id": doc_id, "content": {}, "locked": False, "lockedBy": "nobody"}
    assert _put(world, "member", free).status_code == 201
    doc = world.get(doc_id)
    assert "in the name of holder" in _refusal(_put(world, "member", {**doc, "locked": True, "lockedBy": "holder"}))
    mine = _put(world, "member", {**doc, "locked": True, "lockedBy": "member", "lockedAt": now_iso()})
    assert mine.status_code == 201
    doc = world.get(doc_id)
    assert "in the name of holder" in _refusal(_put(world, "member", {**doc, "lockedBy": "holder"}))


def test_a_member_cannot_write_the_rules_nor_the_security(world: World) -> None:
    design = world.get("_design/storyloom")
    answer = world.as_("member").put(world.url("_design/storyloom"), json={**design, "validate_doc_update": "x"})
    assert answer.status_code in (401, 403)
    assert world.as_("member").delete(world.url("_design/storyloom"), params={"rev": design["_rev"]}).status_code in (
        401, 403)
    answer = world.as_("member").put(world.url("_security"), json={"admins": {"names": ["member"]}})
    assert answer.status_code in (401, 403)
    assert world.get("_design/storyloom")["_rev"] == design["_rev"]


# -- what the holder and the owners may do ------------------------------------------------------


def test_the_holder_edits_unlocks_and_deletes(world: World) -> None:
    locked = world.create_locked()
    edited = _put(world, "holder", {**_plain(locked), "content": {"script": "holder's edit"}, "modified": now_iso()})
    assert edited.status_code == 201, edited.text
    doc = world.get(locked["_id"])
    replicated = _bulk(world, "holder", [_child(doc, {**_plain(doc), "content": {"script": "pushed"}})],
                       new_edits=False)
    assert replicated.status_code == 201 and replicated.json() == [], replicated.text
    doc = world.get(locked["_id"])
    assert doc["content"] == {"script": "pushed"} and doc["lockedBy"] == "holder"
    released = _put(world, "holder", {**doc, "locked": False, "lockedBy": "nobody", "lockedAt": None})
    assert released.status_code == 201, released.text

    other = world.create_locked()
    deleted = world.as_("holder").delete(world.url(other["_id"]), params={"rev": other["_rev"]})
    assert deleted.status_code == 200, deleted.text
    assert world.as_("admin").get(world.url(other["_id"])).status_code == 404


def test_the_holder_resolves_a_conflict_with_tombstones(world: World) -> None:
    locked = world.create_locked()
    # A teammate's offline edit of the free first revision reaches the server as a conflict.
    first_rev = f"1-{locked['_revisions']['ids'][-1]}"
    parent = world.get(locked["_id"], rev=first_rev, revs="true")
    # (its made-up hash sorts below any real one, so the holder's revision stays the winner)
    stale = _bulk(world, "member", [_child(parent, {**_plain(parent), "content": {"script": "offline"}}, "0")],
                  new_edits=False)
    assert stale.status_code == 201 and stale.json() == [], stale.text
    current = world.get(locked["_id"], conflicts="true")
    [other] = current["_conflicts"]
    assert current["_rev"] == locked["_rev"]
    # The member may not tombstone the holder's revision; the holder tombstones the other leaf.
    refused = _put(world, "member", {"_id": locked["_id"], "_rev": locked["_rev"], "_deleted": True,
                                     "supersededBy": other})
    assert "is locked by holder" in _refusal(refused)
    tomb = _put(world, "holder", {"_id": locked["_id"], "_rev": other, "_deleted": True,
                                  "supersededBy": locked["_rev"]})
    assert tomb.status_code == 201, tomb.text
    resolved = world.get(locked["_id"], conflicts="true")
    assert resolved["_rev"] == locked["_rev"] and "_conflicts" not in resolved


@pytest.mark.parametrize("owner", ["owner", "boss", "admin"])
def test_an_owner_breaks_a_fresh_lock_and_changes_nothing_else(world: World, owner: str) -> None:
    locked = world.create_locked()
    answer = _put(world, owner, _break(locked, owner))
    assert answer.status_code == 201, answer.text
    doc = world.get(locked["_id"])
    assert doc["locked"] is False and doc["lockBroken"]["by"] == owner and doc["lockBroken"]["holder"] == "holder"
    assert doc["content"] == CONTENT and "note.txt" in doc["_attachments"]
    # Free now: the owner edits it like anyone.
    assert _put(world, owner, {**doc, "content": {"script": "owner's edit"}}).status_code == 201


def test_a_member_breaks_only_a_stale_lock(world: World) -> None:
    locked = world.create_locked()
    reason = _refusal(_put(world, "member", _break(locked, "member")))
    since = datetime.fromisoformat(locked["lockedAt"].replace("Z", "+00:00"))
    breakable = iso(since + timedelta(minutes=STALE_MINUTES))
    assert f"is locked by holder since {locked['lockedAt']} and the lock is not stale" in reason
    assert f"idle since {locked['lockedAt']}" in reason
    assert f"a member may break it from {breakable} (idle longer than {STALE_MINUTES} minutes)" in reason
    assert "a project owner can break it now (ask an owner, or holder to unlock it)" in reason
    world.assert_intact(locked)

    # The holder's last activity counts: a lock taken long ago on a document edited just now is not stale.
    recent = world.create_locked(locked_at=LONG_AGO)
    assert "not stale" in _refusal(_put(world, "member", _break(recent, "member")))
    world.assert_intact(recent)

    stale = world.create_locked(locked_at=LONG_AGO, modified=LONG_AGO)
    answer = _put(world, "member", _break(stale, "member"))
    assert answer.status_code == 201, answer.text
    assert world.get(stale["_id"])["lockBroken"]["by"] == "member"
    # Stale or not, a break changes nothing else, and nobody else edits a stale lock's document.
    other = world.create_locked(locked_at=LONG_AGO, modified=LONG_AGO)
    assert "only holder may change" in _refusal(_put(world, "member", {**_plain(other), "content": {"s": 1}}))
    assert "only holder may change" in _refusal(_put(world, "member", _break(other, "member", content={"s": 1})))
    world.assert_intact(other)


HOUR_AGO = datetime.now(UTC) - timedelta(hours=1)
DAY_AGO = datetime.now(UTC) - timedelta(days=1)


# Named ids: ids made of the times would differ between two collections (pytest-xdist's workers
# collect each on its own and refuse to run when their lists differ).
@pytest.mark.parametrize(("modified", "stale"), [
    pytest.param(iso(DAY_AGO), True, id="iso-day-ago"),
    pytest.param(DAY_AGO.strftime("%a %b %d %Y %H:%M:%S GMT+0000 (Coordinated Universal Time)"), True,
                 id="js-date-string-day-ago"),
    pytest.param(int(DAY_AGO.timestamp() * 1000), True, id="epoch-ms-day-ago"),
    pytest.param(str(int(DAY_AGO.timestamp() * 1000)), True, id="epoch-ms-text-day-ago"),
    pytest.param(iso(HOUR_AGO), False, id="iso-hour-ago"),
    pytest.param(int(HOUR_AGO.timestamp() * 1000), False, id="epoch-ms-hour-ago"),
    pytest.param("not a date", False, id="not-a-date"),  # unreadable: owners only
    pytest.param(None, False, id="none"),
])
def test_a_drafft_lock_without_locked_at_is_idle_since_modified(world: World, modified: Any, stale: bool) -> None:
    locked = world.create_locked(locked_at="", modified=modified if modified is not None else "")
    assert "lockedAt" not in locked
    answer = _put(world, "member", _break(locked, "member"))
    if stale:
        assert answer.status_code == 201, answer.text
        return
    reason = _refusal(answer)
    if modified in ("not a date", None):
        assert "its idle time cannot be read" in reason and "members cannot break it" in reason
    else:
        assert "a member may break it from" in reason
    world.assert_intact(locked)
    assert _put(world, "owner", _break(locked, "owner")).status_code == 201  # an owner can, always


# -- what the rules cannot see: a replicated branch with no revision the server has -------------


def test_a_disjoint_replicated_branch_leaves_the_holders_revision_a_leaf(world: World, tmp_path: Path) -> None:
    """A ``new_edits:false`` write whose history shares no revision with the server's reaches the
    rules with no old document (CouchDB does the same): nothing to protect, so it is accepted as
    a new branch. The holder loses nothing: the locked revision stays a leaf, the conflict is
    listed, and the holder's machine takes its lock again on the winner (keep_held_locks)."""
    holder = LockClient(world.server, world.db, "holder", tmp_path)
    try:
        holder.editor.create_settings(default_settings("Hostile"))
        doc_id = holder.editor.create("Script", "Intro", content={"script": "holder's words\n"}).id
        assert holder.push().ok
        holder.locks.lock(doc_id)
        locked = world.get(doc_id)
        assert locked["lockedBy"] == "holder"

        fake = [uuid.uuid4().hex for _ in range(8)]
        branch = {**{k: v for k, v in locked.items() if not k.startswith("_")}, "_id": doc_id,
                  "content": {"script": "replaced"}, "locked": False, "lockedBy": "nobody", "lockedAt": None,
                  "_rev": f"8-{fake[0]}", "_revisions": {"start": 8, "ids": fake}}
        answer = _bulk(world, "member", [branch], new_edits=False)
        assert answer.status_code == 201 and answer.json() == [], answer.text
        current = world.get(doc_id, conflicts="true")
        assert current["_rev"] == branch["_rev"]  # the longer branch wins the document...
        assert current["_conflicts"] == [locked["_rev"]]  # ...and the holder's locked revision is a leaf
        leaf = world.get(doc_id, rev=locked["_rev"])
        assert leaf["content"] == locked["content"] and leaf["lockedBy"] == "holder"

        # The holder's machine pulls, sees the conflict, and takes its lock again on the winner.
        assert holder.pull().ok
        notices = holder.locks.keep_held_locks([doc_id])
        assert [(n.doc_id, n.outcome) for n in notices] == [(doc_id, "confirmed")]
        winner = world.get(doc_id, conflicts="true")
        assert winner["locked"] is True and winner["lockedBy"] == "holder"
        assert winner["lockedAt"] == locked["lockedAt"]
        assert locked["_rev"] in winner["_conflicts"]  # still listed for the holder to resolve
        # From there on the member is refused again.
        assert "is locked by holder" in _refusal(_put(world, "member", {**winner, "content": {"script": "x"}}))
    finally:
        holder.close()
