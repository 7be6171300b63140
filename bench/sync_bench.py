"""Sync benchmark: Storyloom against PouchDB 9 on the same pouchdb-server, in the same run.

    scripts/bench sync [--docs 10000] [--rounds 3] [--dir DIR] [--server memory|disk]
    .venv/bin/python bench/sync_bench.py [same options]
    .venv/bin/python bench/sync_bench.py --memory [--docs 100000]

The documents are those of a generated project (``bench/generate.py``). For each of two
pouchdb-server 4.2.0 processes, one in memory and one on disk (LevelDB under ``--dir``):

1. Storyloom push: the documents from a local store into an empty remote database;
2. Storyloom pull: that remote database into an empty local store;
3. PouchDB 9 (Node) push and pull of the same documents, from and into its own local
   databases (LevelDB), through another empty database on the same server.

Both sides keep their local data in the same directory (``--dir``; by default a temporary
directory on ``/dev/shm`` when there is one): the store commits with ``synchronous=FULL``
(an fsync per transaction) where LevelDB does not sync its writes, and on tmpfs an fsync costs
nothing, so neither side is charged for durability the other skips. Each figure is the best of
``--rounds`` rounds (who goes first alternates), with fresh databases each round, after an
untimed push and pull of 500 documents by each client on each server (a fresh node process
runs slower until its code is compiled). The benchmark process holds no list of the
documents: they are streamed into a template store, copied for each round.

Targets (issue 16): push and pull each at most 0.5x PouchDB's time, against both servers.
Exit status 1 when one is missed.

``--memory`` measures something else: the peak RSS of a first pull of ``--docs`` documents. The
documents go to an in-memory pouchdb-server in batches (never all in this process), then a
separate process pulls them into an empty store (``storyloom.sync.pull``) and its peak RSS is
read from the kernel (``wait4``). Target: under 300 MB, whatever the size.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench import paths

paths.setup()

from tools.peers import CouchServer, PouchPeer, unique_db_name  # noqa: E402

from bench.generate import generate  # noqa: E402
from bench.report import Check, check_docs, machine, verdict  # noqa: E402
from storyloom.store import Database  # noqa: E402
from storyloom.sync import RemoteDatabase, pull, push  # noqa: E402

TARGET = 0.5
#: Documents pushed and pulled, untimed, by both clients before the rounds.
WARM_UP_DOCS = 500
RSS_TARGET_MB = 300.0

# The pulling process of --memory: a first pull into an empty store; prints what it wrote.
_PULL_CHILD = """
import sys, time
from storyloom.store import Database
from storyloom.sync import RemoteDatabase, pull
url, user, password, path = sys.argv[1:5]
started = time.perf_counter()
with RemoteDatabase(url, username=user, password=password) as remote:
    db = Database(path)
    status = pull(remote, db)
    db.close()
print(status.state, status.docs_written, round(time.perf_counter() - started, 2))
"""

# Runs a command and prints its peak RSS (KiB) once it ends. Started from this small wrapper, not
# forked from the benchmark process: a fork of a big process is charged that process's pages
# until it execs (as bench/export_bench.py does).
_PEAK_RSS = """
import os, subprocess, sys
proc = subprocess.Popen(sys.argv[1:])
_, status, usage = os.wait4(proc.pid, 0)
print(usage.ru_maxrss)
sys.exit(os.waitstatus_to_exitcode(status))
"""


def make_sources(count: int, workdir: Path, name: str = "source") -> tuple[Path, Path, float]:
    """The generated documents, streamed into a store (copied for each round) and into a JSON
    file for PouchDB; returns both and the mean document size. Nothing is kept in this
    process: a list of every document would make each run of Python's cyclic collector
    traverse it, a cost no real pulling process has."""
    template = workdir / f"{name}-template.sqlite"
    docs_file = workdir / f"{name}-docs.json"
    db = Database(template)
    total = 0
    with open(docs_file, "w", encoding="utf-8") as out:
        out.write("[")
        first = True
        for batch in generate(count).batches(500):
            for doc in batch:
                text = json.dumps(doc)
                total += len(text)
                out.write(text if first else "," + text)
                first = False
            db.bulk_docs(batch)
        out.write("]")
    db.close()
    if template.with_name(template.name + "-wal").exists():
        raise RuntimeError("the template store kept a WAL file: it cannot be copied alone")
    return template, docs_file, total / count


def run_storyloom(server: CouchServer, template: Path, count: int, workdir: Path) -> tuple[float, float]:
    name = unique_db_name("bench-sl")
    server.create_db(name)
    remote = RemoteDatabase(server.db_url(name), username=server.admin[0], password=server.admin[1])
    source_path = workdir / f"{name}-src.sqlite"
    shutil.copyfile(template, source_path)
    source = Database(source_path)
    started = time.perf_counter()
    status = push(source, remote)
    push_time = time.perf_counter() - started
    assert status.state == "complete" and status.docs_written == count, status.to_json()
    target = Database(workdir / f"{name}-dst.sqlite")
    started = time.perf_counter()
    status = pull(remote, target)
    pull_time = time.perf_counter() - started
    assert status.state == "complete" and status.docs_written == count, status.to_json()
    assert target.info()["doc_count"] == count
    source.close()
    target.close()
    remote.close()
    server.delete_db(name)
    for path in workdir.glob(f"{name}-*"):
        path.unlink(missing_ok=True)
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


def default_dir() -> str | None:
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--dir", default=default_dir(),
                        help="where both sides keep their local data (default: /dev/shm when there is one)")
    parser.add_argument("--server", choices=["memory", "disk"], action="append",
                        help="which pouchdb-server to measure against (repeatable; default: both)")
    parser.add_argument("--memory", action="store_true",
                        help="measure the peak RSS of a first pull of --docs documents instead")
    args = parser.parse_args(argv)
    check_docs(args.docs)
    if args.memory:
        return memory(args.docs, args.dir)
    print(machine())
    checks: list[Check] = []
    with tempfile.TemporaryDirectory(prefix="sync-bench-", dir=args.dir) as tmp:
        workdir = Path(tmp)
        template, docs_file, size = make_sources(args.docs, workdir)
        warm_up = make_sources(WARM_UP_DOCS, workdir, "warm-up")
        peer = PouchPeer(workdir / "pouch")
        try:
            version = peer.call("ping")["pouchdb"]
            print(f"{args.docs:,} generated documents of ~{size:.0f} bytes; PouchDB {version}; local data in {tmp}")
            for kind in args.server or ["memory", "disk"]:
                server = CouchServer(workdir / f"server-{kind}", persistent=kind == "disk")
                server.start()
                try:
                    # Untimed, by both clients: the rounds meet a server whose code is compiled
                    # (a fresh node process is slower at first, and with one round Storyloom,
                    # which goes first, would pay for it alone).
                    run_storyloom(server, warm_up[0], WARM_UP_DOCS, workdir)
                    run_pouchdb(server, peer, warm_up[1], WARM_UP_DOCS)
                    checks += _rounds(kind, server, peer, template, docs_file, args.docs, workdir, args.rounds)
                finally:
                    server.stop()
        finally:
            peer.close()
    return verdict("sync", checks)


def _rounds(kind: str, server: CouchServer, peer: PouchPeer, template: Path, docs_file: Path, count: int,
            workdir: Path, rounds: int) -> list[Check]:
    label = "in memory" if kind == "memory" else "on disk"
    print(f"\n== pouchdb-server 4.2.0 {label} ==")
    sl_push, sl_pull, pd_push, pd_pull = [], [], [], []
    for round_no in range(1, rounds + 1):
        # Alternate who goes first, so neither always meets a fresher server.
        if round_no % 2:
            a, b = run_storyloom(server, template, count, workdir)
            c, d = run_pouchdb(server, peer, docs_file, count)
        else:
            c, d = run_pouchdb(server, peer, docs_file, count)
            a, b = run_storyloom(server, template, count, workdir)
        sl_push.append(a)
        sl_pull.append(b)
        pd_push.append(c)
        pd_pull.append(d)
        print(f"round {round_no}: storyloom push {a:.2f}s pull {b:.2f}s | pouchdb push {c:.2f}s pull {d:.2f}s")
    print(f"{'':10}{'storyloom':>12}{'pouchdb':>12}{'ratio':>8}")
    checks = []
    for what, ours, theirs in (("push", sl_push, pd_push), ("pull", sl_pull, pd_pull)):
        best_ours, best_theirs = min(ours), min(theirs)
        print(f"{what:10}{best_ours:>11.2f}s{best_theirs:>11.2f}s{best_ours / best_theirs:>8.2f}")
        checks.append(Check(f"{what}, server {label} (time / PouchDB's)", best_ours / best_theirs, TARGET))
    total_ours, total_theirs = min(sl_push) + min(sl_pull), min(pd_push) + min(pd_pull)
    print(f"{'total':10}{total_ours:>11.2f}s{total_theirs:>11.2f}s{total_ours / total_theirs:>8.2f}")
    return checks


def memory(count: int, directory: str | None) -> int:
    """Peak RSS of a first pull of ``count`` generated documents, in a process of its own."""
    import subprocess

    import storyloom

    print(machine())
    src = str(Path(storyloom.__file__).resolve().parent.parent)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (src, os.environ.get("PYTHONPATH")) if p))
    with tempfile.TemporaryDirectory(prefix="sync-bench-memory-", dir=directory) as tmp:
        workdir = Path(tmp)
        server = CouchServer(workdir / "server")
        server.start()
        try:
            name = server.create_db(unique_db_name("bench-mem"))
            started = time.perf_counter()
            for batch in generate(count).batches(500):
                server.bulk_docs(name, batch)
            print(f"{count:,} generated documents on pouchdb-server 4.2.0 (in memory) in "
                  f"{time.perf_counter() - started:.1f}s; pulling them into an empty store")
            command = [sys.executable, "-c", _PEAK_RSS, sys.executable, "-c", _PULL_CHILD, server.db_url(name),
                       *server.admin, str(workdir / "pulled.sqlite")]
            result = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
        finally:
            server.stop()
    lines = result.stdout.split()
    if result.returncode != 0 or len(lines) < 4 or lines[0] != "complete" or int(lines[1]) != count:
        print(f"the pull failed ({result.returncode}): {result.stdout[-500:]} {result.stderr[-2000:]}")
        return 1
    peak = int(lines[-1]) / 1024
    print(f"first pull: {int(lines[1]):,} documents in {lines[2]}s, peak RSS {peak:.0f} MB")
    return verdict("sync --memory", [Check(f"first pull of {count:,} documents: peak RSS", peak, RSS_TARGET_MB,
                                           "<=", " MB", note=f"{lines[2]}s")])


if __name__ == "__main__":
    sys.exit(main())
