"""Crash safety: a writer killed with SIGKILL never loses an acknowledged write or tears a document.

A child process (``crash_writer.py``) writes to one file database in a loop: ``bulk_docs``
batches, single puts (new docs, updates, recreations), attachments (new data and stubs),
deletions and replicated writes that extend docs or add conflicting branches, with revs_limit 4 so
that stemming deletes old bodies and attachment references under load. It prints each
acknowledged write only after the call returned. Twenty times, the parent kills it with SIGKILL
50-400 ms after it reported the database open, then:

* ``PRAGMA integrity_check`` says ``ok``;
* every acknowledged revision is in its document's tree, or (stemmed away) has an acknowledged
  descendant that is; an acknowledged revision that is still a leaf reads back with its own body,
  deletion flag and attachment bytes;
* every document is readable (winner, every leaf with ``open_revs="all"``, ``include_docs``);
* ``all_docs``, ``changes`` and ``info()`` agree: doc counts, ids, winners, seqs, and the stored
  rows are not torn (each tree's winner, leaf bodies and attachment data are all there);
* the database keeps working: the parent writes again (those writes join the acknowledged set).
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from storyloom.store import Database, revtree
from storyloom.store.codec import decode_tree as _decode_tree

pytestmark = pytest.mark.integration  # writer processes killed with SIGKILL

# How docs.rev_tree is stored is the Database's business (a flat encoding since deep histories
# broke nested JSON); decode rows with its own decoder, or plain JSON for the nested form.

WRITER = Path(__file__).with_name("crash_writer.py")
KILLS = 20
SEED = int(os.environ.get("STORYLOOM_CRASH_SEED", "4242"))


class Child:
    """The writer process and a thread collecting its complete stdout lines."""

    def __init__(self, db_path: Path, seed: int) -> None:
        src = Path(__file__).resolve().parents[2] / "src"
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(src), os.environ.get("PYTHONPATH", "")])}
        self.proc = subprocess.Popen(
            [sys.executable, str(WRITER), str(db_path), str(seed)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        self.lines: list[dict[str, Any]] = []
        self.ready = threading.Event()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            if not raw.endswith(b"\n"):
                break  # cut by the kill: not a complete acknowledgement, ignore it
            line = json.loads(raw)
            self.lines.append(line)
            if line.get("ready"):
                self.ready.set()

    def kill_after(self, seconds: float) -> None:
        if not self.ready.wait(30):
            self.proc.kill()
            raise AssertionError(f"writer never became ready: {self.proc.stderr.read().decode()[-3000:]}")
        time.sleep(seconds)
        exited = self.proc.poll()
        assert exited is None, f"writer died on its own ({exited}): {self.proc.stderr.read().decode()[-3000:]}"
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)
        self.reader.join(10)
        self.proc.stdout.close()
        self.proc.stderr.close()
        assert self.proc.returncode == -signal.SIGKILL

    @property
    def acks(self) -> list[dict[str, Any]]:
        return [line["ack"] for line in self.lines if "ack" in line]

    @property
    def killed_in_flight(self) -> bool:
        """The last thing the writer said was 'begin': the kill hit a write call."""
        events = [line for line in self.lines if "begin" in line or "ack" in line]
        return bool(events) and "begin" in events[-1]


def check_sqlite_level(path: Path) -> None:
    """Integrity, and no torn rows (docs/protocol.md 2.1's layout): read straight from the file."""
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        meta = dict(conn.execute("SELECT key, value FROM meta"))
        seqs = [row[0] for row in conn.execute("SELECT seq FROM docs")]
        assert int(meta["update_seq"]) == max(seqs, default=0)
        assert int(meta["doc_count"]) == conn.execute("SELECT COUNT(*) FROM docs WHERE deleted = 0").fetchone()[0]
        assert int(meta["doc_del_count"]) == conn.execute("SELECT COUNT(*) FROM docs WHERE deleted = 1").fetchone()[0]
        for doc_id, tree_json, winner, deleted in conn.execute("SELECT id, rev_tree, winning_rev, deleted FROM docs"):
            tree = _decode_tree(tree_json)
            assert revtree.winning_rev(tree) == winner, doc_id
            assert revtree.winning_leaf(tree).deleted == bool(deleted), doc_id
            assert revtree.max_depth(tree) <= 4, doc_id
            for leaf in revtree.leaves(tree):
                row = conn.execute(
                    "SELECT deleted FROM revs WHERE doc_id = ? AND rev = ?", (doc_id, leaf.rev)
                ).fetchone()
                assert row is not None, f"{doc_id} leaf {leaf.rev} has no stored body"
                assert bool(row[0]) == leaf.deleted
        orphans = conn.execute(
            "SELECT COUNT(*) FROM att_refs r LEFT JOIN attachments a ON a.digest = r.digest WHERE a.digest IS NULL"
        ).fetchone()[0]
        assert orphans == 0, "attachment references without data"
    finally:
        conn.close()


Leaves = dict[str, dict[str, dict[str, Any]]]  # doc id -> rev -> the leaf as read


def scan(db: Database, links: set[tuple[str, str, str]]) -> Leaves:
    """Read everything back once and check that the views agree; return every leaf.

    ``all_docs``, ``changes`` (style=all_docs, include_docs) and ``info()`` must agree on counts,
    ids, winners and seqs; every document must be readable (winner and every leaf). Also records
    (doc id, parent rev, child rev) for each edge the leaves' histories show: a write that
    committed but was killed before its acknowledgement is unknown to the writer's log, and the
    next writer may build on it and stem it away, so edges through it are learned here, right
    after each kill, while it is still a leaf.
    """
    info = db.info()
    all_docs = db.all_docs(include_docs=True, update_seq=True)
    changes = db.changes(style="all_docs", include_docs=True)
    rows = all_docs["rows"]
    assert all_docs["total_rows"] == info["doc_count"] == len(rows)
    assert all_docs["update_seq"] == info["update_seq"]
    results = changes["results"]
    assert len(results) == info["doc_count"] + info["doc_del_count"]
    assert len({r["id"] for r in results}) == len(results)  # one row per document
    seqs = [r["seq"] for r in results]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    assert changes["last_seq"] == (seqs[-1] if seqs else 0) == info["update_seq"]
    live = {r["id"]: r["changes"][0]["rev"] for r in results if not r.get("deleted")}
    assert {row["id"]: row["value"]["rev"] for row in rows} == live
    for row in rows:
        assert row["doc"]["_rev"] == row["value"]["rev"]
    leaves: Leaves = {}
    for r in results:
        doc_id = r["id"]
        assert r["doc"] is not None and r["doc"]["_rev"] == r["changes"][0]["rev"]
        assert bool(r["doc"].get("_deleted")) == bool(r.get("deleted"))
        if not r.get("deleted"):
            assert db.get(doc_id)["_rev"] == r["changes"][0]["rev"]
        entries = db.get(doc_id, open_revs="all", revs=True)
        assert all("ok" in e for e in entries), entries
        leaves[doc_id] = {e["ok"]["_rev"]: e["ok"] for e in entries}
        assert set(leaves[doc_id]) == {c["rev"] for c in r["changes"]}
        for leaf in leaves[doc_id].values():
            history = leaf["_revisions"]
            revs = [f"{history['start'] - i}-{h}" for i, h in enumerate(history["ids"])]
            links.update((doc_id, parent, child) for child, parent in itertools.pairwise(revs))
    return leaves


def check_acknowledged(
    db: Database,
    acks: list[dict[str, Any]],
    links: set[tuple[str, str, str]],
    leaves: Leaves,
    fetch_bytes_from: int = 0,
) -> int:
    """Every acknowledged write is there, or stemmed below a present descendant.

    An acknowledged revision that is still a leaf must read back with its own body, deletion flag
    and attachments (digests always; the bytes themselves for acks from ``fetch_bytes_from`` on,
    older ones having been fetched after earlier kills). Returns how many leaves were compared.
    """
    children: dict[tuple[str, str], list[str]] = defaultdict(list)
    for ack in acks:
        if ack["parent"]:
            children[(ack["id"], ack["parent"])].append(ack["rev"])
    for doc_id, parent, child in links:
        children[(doc_id, parent)].append(child)
    by_id: dict[str, list[tuple[int, dict[str, Any]]]] = defaultdict(list)
    for n, ack in enumerate(acks):
        by_id[ack["id"]].append((n, ack))
    compared = 0
    for doc_id, doc_acks in by_id.items():
        diff = db.revs_diff({doc_id: [a["rev"] for _, a in doc_acks]})
        missing = set(diff.get(doc_id, {}).get("missing", []))
        for n, ack in doc_acks:
            rev = ack["rev"]
            if rev in missing:
                # Stemmed away: some descendant must be in the tree.
                stack, found = list(children[(doc_id, rev)]), False
                while stack and not found:
                    child = stack.pop()
                    found = child not in missing
                    stack.extend(children[(doc_id, child)])
                assert found, f"acknowledged {doc_id} {rev} is lost; acks {doc_acks}; leaves {leaves.get(doc_id)}"
                continue
            doc = leaves.get(doc_id, {}).get(rev)
            if doc is None:
                continue  # an inner node now; its body may legitimately be gone
            compared += 1
            assert bool(doc.get("_deleted")) == ack["deleted"], (doc_id, rev)
            if ack["deleted"]:
                continue
            assert doc["w"] == ack["w"], (doc_id, rev)
            atts = doc.get("_attachments", {})
            assert set(atts) == set(ack["atts"]), (doc_id, rev)
            for name, md5 in ack["atts"].items():
                # Our digests are md5 of the raw bytes (docs/protocol.md 2.1).
                assert base64.b64decode(atts[name]["digest"].removeprefix("md5-")).hex() == md5
                if n >= fetch_bytes_from:
                    data = db.get_attachment(doc_id, name, rev=rev)
                    assert hashlib.md5(data).hexdigest() == md5, (doc_id, rev, name)
    return compared


def write_again(db: Database, round_no: int) -> list[dict[str, Any]]:
    """The database still takes writes of every kind after the crash; returns them as acks."""
    acks = []
    data = f"after crash {round_no}".encode()
    doc = {
        "_id": f"parent-{round_no}",
        "w": -round_no,
        "_attachments": {"p.txt": {"content_type": "text/plain", "data": base64.b64encode(data).decode()}},
    }
    result = db.put(doc)
    acks.append({"id": doc["_id"], "rev": result["rev"], "parent": None, "w": -round_no, "deleted": False,
                 "atts": {"p.txt": hashlib.md5(data).hexdigest()}})
    rows = db.all_docs(limit=1, startkey="s")["rows"]
    if rows:
        existing = db.get(rows[0]["id"])
        parent = existing["_rev"]
        update = {k: v for k, v in existing.items() if k != "_attachments"}
        update["w"] = -round_no
        result = db.put(update)
        acks.append({"id": update["_id"], "rev": result["rev"], "parent": parent, "w": -round_no,
                     "deleted": False, "atts": {}})
    batch = [{"_id": f"parent-{round_no}-{i}", "w": -round_no} for i in range(3)]
    for d, result in zip(batch, db.bulk_docs(batch), strict=True):
        assert result["ok"]
        acks.append({"id": d["_id"], "rev": result["rev"], "parent": None, "w": -round_no, "deleted": False,
                     "atts": {}})
    return acks


@pytest.mark.slow
def test_sigkill_never_loses_an_acknowledged_write(tmp_path: Path) -> None:
    path = tmp_path / "crash.db"
    rng = random.Random(SEED)
    acks: list[dict[str, Any]] = []
    links: set[tuple[str, str, str]] = set()
    in_flight = leaf_checks = 0
    started = time.perf_counter()
    for round_no in range(1, KILLS + 1):
        child = Child(path, seed=SEED * 100 + round_no)
        child.kill_after(rng.uniform(0.05, 0.4))
        fresh = len(acks)
        acks += child.acks
        in_flight += child.killed_in_flight
        check_sqlite_level(path)
        with Database(path, revs_limit=4) as db:
            leaves = scan(db, links)
            leaf_checks += check_acknowledged(db, acks, links, leaves, fetch_bytes_from=fresh)
            parent_acks = write_again(db, round_no)
        acks += parent_acks
        # The parent's own writes are durable across close and reopen.
        with Database(path, revs_limit=4) as db:
            ids = {a["id"] for a in parent_acks}
            leaves = {i: {e["ok"]["_rev"]: e["ok"] for e in db.get(i, open_revs="all")} for i in ids}
            assert check_acknowledged(db, parent_acks, links, leaves) == len(parent_acks)
            assert db.all_docs()["total_rows"] == db.info()["doc_count"]
    elapsed = time.perf_counter() - started
    print(
        f"\ncrash safety: {KILLS} SIGKILLs, {len(acks)} acknowledged writes verified after every kill, "
        f"{leaf_checks} leaf reads compared in total, {in_flight} kills hit a write call in flight, {elapsed:.1f}s"
    )
    assert len(acks) > 20 * KILLS  # the writers really wrote
    assert in_flight >= KILLS // 4  # and many kills landed inside a write call
