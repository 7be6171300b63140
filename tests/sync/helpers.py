"""Comparing documents across the local store, the test server and the PouchDB peer."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from storyloom.store import Database, NotFound
from storyloom.sync import RemoteDatabase
from tests.support.couch import CouchServer, stop_process_group
from tests.sync.pouch_peer import PouchError, PouchPeer

ROOT = Path(__file__).resolve().parents[2]


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


def run_storyloom(args: list[str], *, terminal: bool, env: dict[str, str]) -> tuple[int, str]:
    """``storyloom ARGS`` as a process with ``env`` added; stderr to a pseudo-terminal or a pipe.
    Returns the exit status and what reached stderr."""
    env = dict(os.environ, PYTHONPATH=f"{ROOT / 'src'}", COLUMNS="100", **env)
    command = [sys.executable, "-m", "storyloom", *args]
    if not terminal:
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120, check=False)
        return done.returncode, done.stderr
    leader, follower = pty.openpty()
    # The size of a terminal window (a fresh pseudo-terminal has 0 rows, and tqdm shows no bar
    # on a screen without rows).
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=follower, stdin=subprocess.DEVNULL,
                            start_new_session=True)
    os.close(follower)
    chunks: list[bytes] = []
    try:
        while True:
            ready, _, _ = select.select([leader], [], [], 60)
            if not ready:
                break
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal closed with the process
                break
            if not chunk:
                break
            chunks.append(chunk)
        code = proc.wait(timeout=60)
    finally:
        stop_process_group(proc)
        os.close(leader)
    return code, b"".join(chunks).decode("utf-8", "replace")
