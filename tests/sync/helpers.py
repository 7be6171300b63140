"""Comparing documents across the local store, the test server and the PouchDB peer."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from storyloom.store import Database, NotFound
from storyloom.sync import RemoteDatabase
from tests.support.couch import CouchServer
from tests.sync.pouch_peer import PouchError, PouchPeer


@dataclass(frozen=True)
class DocState:
    """What must agree between peers: the winner (None when deleted), the live conflicts and
    every leaf (tombstones included) as sets."""

    winner: str | None
    conflicts: frozenset[str]
    leaves: frozenset[tuple[str, bool]]


def local_state(db: Database, doc_id: str) -> DocState:
    leaves = frozenset(
        (entry["ok"]["_rev"], bool(entry["ok"].get("_deleted")))
        for entry in db.get(doc_id, open_revs="all")
        if "ok" in entry
    )
    try:
        doc = db.get(doc_id, conflicts=True)
    except NotFound:
        return DocState(None, frozenset(), leaves)
    return DocState(doc["_rev"], frozenset(doc.get("_conflicts", [])), leaves)


def remote_state(couch: CouchServer, db_name: str, doc_id: str) -> DocState:
    reply = couch.get_doc(db_name, doc_id, open_revs="all")
    assert reply.status_code == 200, reply.text
    leaves = frozenset((e["ok"]["_rev"], bool(e["ok"].get("_deleted"))) for e in reply.json() if "ok" in e)
    main = couch.get_doc(db_name, doc_id, conflicts="true")
    if main.status_code == 404:
        return DocState(None, frozenset(), leaves)
    doc = main.json()
    return DocState(doc["_rev"], frozenset(doc.get("_conflicts", [])), leaves)


def pouch_state(peer: PouchPeer, db: str, doc_id: str) -> DocState:
    entries = peer.call("get", db=db, id=doc_id, opts={"open_revs": "all"})
    leaves = frozenset((e["ok"]["_rev"], bool(e["ok"].get("_deleted"))) for e in entries if "ok" in e)
    try:
        doc = peer.call("get", db=db, id=doc_id, opts={"conflicts": True})
    except PouchError as exc:
        if exc.status == 404:
            return DocState(None, frozenset(), leaves)
        raise
    return DocState(doc["_rev"], frozenset(doc.get("_conflicts", [])), leaves)


def admin_client(couch: CouchServer, db_name: str, **kwargs: Any) -> RemoteDatabase:
    return RemoteDatabase(couch.db_url(db_name), username=couch.admin[0], password=couch.admin[1], **kwargs)


def local_ids(db: Database) -> list[str]:
    return [row["id"] for row in db.all_docs()["rows"]]


def remote_ids(couch: CouchServer, db_name: str) -> list[str]:
    return [row["id"] for row in couch.all_docs(db_name)["rows"]]


def hash_of(rev: str) -> str:
    return rev.split("-", 1)[1]


def winner_of(revs: list[str]) -> str:
    """CouchDB's winner among live 32-hex revs: highest generation, then highest hash."""
    return max(revs, key=lambda r: (int(r.split("-")[0]), bytes.fromhex(hash_of(r))))


def wait_for(predicate: Callable[[], Any], timeout: float, interval: float = 0.02) -> float:
    """Seconds until ``predicate()`` is true; fails after ``timeout``."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if predicate():
            return time.monotonic() - started
        time.sleep(interval)
    raise AssertionError(f"condition not met within {timeout}s")
