"""Sync benchmark: Storyloom against PouchDB 9 on the same pouchdb-server, in the same run.

1. Storyloom push: 10,000 documents of about 1 KB from a local store into an empty remote db.
2. Storyloom pull: that remote db into an empty local store.
3. PouchDB push and pull of the same documents (LevelDB on disk in Node), into/from another
   empty db on the same server.

Prints each time and the Storyloom/PouchDB ratio (target: 1.0 or less). Run with
``.venv/bin/python bench/sync_bench.py [--docs N] [--rounds R]``; each figure is the best of
R rounds (who goes first alternates), with fresh databases each round. The machine's load
matters: run it on an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import json
import random
import string
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.support.couch import CouchServer, unique_db_name  # noqa: E402
from tests.sync.pouch_peer import PouchPeer  # noqa: E402

from storyloom.store import Database  # noqa: E402
from storyloom.sync import RemoteDatabase, pull, push  # noqa: E402


def make_docs(count: int, seed: int = 7) -> list[dict]:
    rng = random.Random(seed)
    docs = []
    for i in range(count):
        text = "".join(rng.choices(string.ascii_letters + " ", k=900))
        docs.append(
            {
                "_id": f"doc-{i:06d}",
                "type": "dialogue",
                "title": f"Line {i}",
                "speaker": rng.choice(["ann", "bob", "cid"]),
                "text": text,
                "tags": ["bench", str(i % 10)],
            }
        )
    return docs


def fill_store(db: Database, docs: list[dict]) -> None:
    for i in range(0, len(docs), 500):
        db.bulk_docs([dict(d) for d in docs[i : i + 500]])


def run_storyloom(server: CouchServer, docs: list[dict], workdir: Path) -> tuple[float, float]:
    name = unique_db_name("bench-sl")
    server.create_db(name)
    remote = RemoteDatabase(server.db_url(name), username=server.admin[0], password=server.admin[1])
    source = Database(workdir / f"{name}-src.sqlite")
    fill_store(source, docs)
    started = time.perf_counter()
    status = push(source, remote)
    push_time = time.perf_counter() - started
    assert status.state == "complete" and status.docs_written == len(docs), status.to_json()
    target = Database(workdir / f"{name}-dst.sqlite")
    started = time.perf_counter()
    status = pull(remote, target)
    pull_time = time.perf_counter() - started
    assert status.state == "complete" and status.docs_written == len(docs), status.to_json()
    assert target.info()["doc_count"] == len(docs)
    source.close()
    target.close()
    remote.close()
    server.delete_db(name)
    return push_time, pull_time


def run_pouchdb(server: CouchServer, peer: PouchPeer, docs_file: Path, count: int) -> tuple[float, float]:
    name = unique_db_name("bench-pd")
    server.create_db(name)
    url = server.db_url(name)
    auth = {"username": server.admin[0], "password": server.admin[1]}
    src, dst = f"{name}-src", f"{name}-dst"
    peer.call("bulkDocsFile", db=src, file=str(docs_file), batch=500)
    pushed = peer.call("replicate", source=src, target=url, auth=auth)
    assert pushed["result"]["docs_written"] == count, pushed
    pulled = peer.call("replicate", source=url, target=dst, auth=auth)
    assert pulled["result"]["docs_written"] == count, pulled
    assert peer.call("info", db=dst)["doc_count"] == count
    peer.call("close", db=src)
    peer.call("close", db=dst)
    server.delete_db(name)
    return pushed["ms"] / 1000, pulled["ms"] / 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    docs = make_docs(args.docs)
    size = sum(len(json.dumps(d)) for d in docs) / len(docs)
    with tempfile.TemporaryDirectory(prefix="sync-bench-") as tmp:
        workdir = Path(tmp)
        docs_file = workdir / "docs.json"
        docs_file.write_text(json.dumps(docs))
        server = CouchServer(workdir / "server")
        server.start()
        peer = PouchPeer(workdir / "pouch")
        try:
            version = peer.call("ping")["pouchdb"]
            print(f"{args.docs} docs of ~{size:.0f} bytes; pouchdb-server 4.2.0 in memory; PouchDB {version}")
            sl_push, sl_pull, pd_push, pd_pull = [], [], [], []
            for round_no in range(1, args.rounds + 1):
                # Alternate who goes first, so neither always meets a fresher server.
                if round_no % 2:
                    a, b = run_storyloom(server, docs, workdir)
                    c, d = run_pouchdb(server, peer, docs_file, args.docs)
                else:
                    c, d = run_pouchdb(server, peer, docs_file, args.docs)
                    a, b = run_storyloom(server, docs, workdir)
                sl_push.append(a)
                sl_pull.append(b)
                pd_push.append(c)
                pd_pull.append(d)
                print(
                    f"round {round_no}: storyloom push {a:.2f}s pull {b:.2f}s | "
                    f"pouchdb push {c:.2f}s pull {d:.2f}s"
                )
        finally:
            peer.close()
            server.stop()
    print()
    print(f"{'':10}{'storyloom':>12}{'pouchdb':>12}{'ratio':>8}")
    for label, ours, theirs in (("push", sl_push, pd_push), ("pull", sl_pull, pd_pull)):
        best_ours, best_theirs = min(ours), min(theirs)
        print(f"{label:10}{best_ours:>11.2f}s{best_theirs:>11.2f}s{best_ours / best_theirs:>8.2f}")
    total_ours = min(sl_push) + min(sl_pull)
    total_theirs = min(pd_push) + min(pd_pull)
    print(f"{'total':10}{total_ours:>11.2f}s{total_theirs:>11.2f}s{total_ours / total_theirs:>8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
