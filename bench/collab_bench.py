"""Collaboration benchmark: how long an edit on one client takes to reach another.

    scripts/bench collab [--quick]
    .venv/bin/python bench/collab_bench.py [--edits 50] [--interval 2] [--dir DIR]

Two Storyloom clients of one project (two project folders, one process, each a full
``ProjectSession`` with its sync service) share a database on pouchdb-server 4.2.0 (in
memory). Client A creates ``--edits`` documents through its editor, one every 50 to 250 ms
(random, without waiting for the previous one to arrive); the time from just before each
write on A to the commit of that document in B's store (B's store notification) is one
sample. Against the same server, in the same run:

1. Storyloom in live mode (push follows the store, pull long-polls the server), and at the
   same time two PouchDB 9 clients in live sync (``PouchDB.sync(..., {live: true, retry:
   true})``, both in one Node process, ``bench/collab_peer.js``: put on A to the change on B).
   The two take turns edit by edit, so both meet the same machine load (these machines are
   shared: two runs a minute apart can differ by 2x);
2. Storyloom in interval mode (``--interval`` seconds between pulls; the push is live).

Targets (issue 10): live p95 under 1 s and at most 1.5x PouchDB's p95; interval p95 at most
the interval plus 1 s; every edit arrives. Exit status 1 when one is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench import paths

paths.setup()

from tools.peers import CouchServer, ensure_node_packages, node_binary, stop_process_group  # noqa: E402

from bench.report import Check, machine, storyloom_home, verdict  # noqa: E402

PEER_SCRIPT = Path(__file__).with_name("collab_peer.js")
GAP = (0.05, 0.25)  # seconds between two edits on client A
LIVE_P95_TARGET = 1.0
POUCH_RATIO_TARGET = 1.5


def percentile(values: list[float], fraction: float) -> float:
    """The ``fraction`` quantile (linear between the two nearest ranks)."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    at = (len(ordered) - 1) * fraction
    low = int(at)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (at - low)


# ------------------------------------------------------------------ Storyloom
class StoryloomPair:
    """Clients A and B of one project, syncing through ``server`` (live or on ``interval``)."""

    def __init__(self, server: CouchServer, workdir: Path, *, live: bool, interval: float) -> None:
        from storyloom.app import AppOptions, Workspace
        from storyloom.app.remote import RemoteAccess
        from storyloom.app.secrets import PasswordStore
        from storyloom.project.remote_settings import RemoteSettings

        self.server = server
        self.name = server.create_db(f"collab-{'live' if live else 'interval'}-{uuid.uuid4().hex[:8]}")
        user, password = server.admin
        settings = RemoteSettings(enabled=True, server=server.url, database=self.name, username=user,
                                  interval=interval, live=live)
        self.sessions: list[Any] = []
        self.workspaces: list[Any] = []
        self.sent: dict[str, float] = {}
        self.arrivals: dict[str, float] = {}
        self._arrived = threading.Condition()
        self._unsubscribe: Any = None
        backup = workdir / f"{self.name}.json"
        try:
            for client in ("a", "b"):
                home = workdir / self.name / client
                workspace = Workspace(root=home / "projects", options=AppOptions(username=f"user-{client}"))
                self.workspaces.append(workspace)
                if client == "a":
                    project = workspace.manager.create("Collab")
                    workspace.manager.backup(project, backup)
                else:
                    project = workspace.manager.restore(backup)  # the same project on a second machine
                passwords = PasswordStore(home / "config", backend="file")
                RemoteAccess(project, passwords).save(settings, password)
                project.close()
                self.sessions.append(workspace.open_session("Collab", passwords=passwords))
            self._unsubscribe = self.sessions[1].project.store.subscribe(self._on_commit)
            for session in self.sessions:
                session.start_sync()
            for session in self.sessions:
                if not session.sync.wait_for(lambda s: s.kind == "idle", timeout=30):
                    raise RuntimeError(f"the sync did not start: {session.sync.state}")
        except BaseException:
            self.close()
            raise

    def _on_commit(self, change: dict[str, Any]) -> None:  # B's writing thread, right after the commit
        with self._arrived:
            self.arrivals.setdefault(change["id"], time.perf_counter())
            self._arrived.notify_all()

    def edit(self) -> None:
        doc_id = str(uuid.uuid4())
        self.sent[doc_id] = time.perf_counter()
        self.sessions[0].editor.create("Item", f"Edit {len(self.sent)}", doc_id=doc_id, description="x" * 200)

    def latencies(self, timeout: float) -> list[float | None]:
        with self._arrived:
            self._arrived.wait_for(lambda: all(d in self.arrivals for d in self.sent), timeout)
            return [self.arrivals[d] - t if d in self.arrivals else None for d, t in self.sent.items()]

    def close(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
        for session in self.sessions:
            session.close()
        for workspace in self.workspaces:
            workspace.close()
        self.server.delete_db(self.name)


# ------------------------------------------------------------------ PouchDB
class PouchPair:
    """``bench/collab_peer.js``: PouchDB 9 clients A and B in live sync, in one Node process."""

    def __init__(self, server: CouchServer, workdir: Path) -> None:
        self.server = server
        self.name = server.create_db(f"collab-pouchdb-{uuid.uuid4().hex[:8]}")
        self.workdir = workdir / self.name
        self.workdir.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ, NODE_PATH=str(ensure_node_packages()))
        self.stderr = open(self.workdir / "stderr.txt", "wb")  # noqa: SIM115
        self.proc = subprocess.Popen([node_binary(), str(PEER_SCRIPT), str(self.workdir)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.stderr, env=env, cwd=self.workdir,
                                     start_new_session=True)
        self.ids: list[str] = []
        try:
            started = self.call("start", url=server.db_url(self.name),
                                auth={"username": server.admin[0], "password": server.admin[1]})
        except BaseException:
            self.close()
            raise
        self.version = str(started["pouchdb"])

    def call(self, cmd: str, **args: Any) -> Any:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write((json.dumps({"cmd": cmd, **args}) + "\n").encode())
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the PouchDB peer died: {(self.workdir / 'stderr.txt').read_text()[-2000:]}")
        reply = json.loads(line)
        if "error" in reply:
            raise RuntimeError(f"PouchDB peer: {reply['error']}")
        return reply["result"]

    def edit(self) -> None:
        doc_id = str(uuid.uuid4())
        self.ids.append(doc_id)
        self.call("edit", id=doc_id)  # the peer notes the time just before its put

    def latencies(self, timeout: float) -> list[float | None]:
        found = self.call("wait", ids=self.ids, timeout_ms=int(timeout * 1000))
        return [None if ms is None else ms / 1000 for ms in found]

    def close(self) -> None:
        if self.proc.poll() is None and self.proc.stdin is not None:
            try:
                self.call("stop")
                self.proc.stdin.close()
                self.proc.wait(timeout=10)
            except (subprocess.TimeoutExpired, OSError, RuntimeError):
                pass
        stop_process_group(self.proc)
        self.stderr.close()
        self.server.delete_db(self.name)


def run_edits(pairs: list[Any], edits: int, rng: random.Random, timeout: float) -> list[list[float | None]]:
    """``edits`` edits on each pair's client A, the pairs taking turns in a random order with a
    random gap after each edit, so that every pair meets the same machine load over the same
    minutes; then the latencies of each pair."""
    for _ in range(edits):
        for pair in rng.sample(pairs, len(pairs)):
            pair.edit()
            time.sleep(rng.uniform(*GAP) / len(pairs))
    return [pair.latencies(timeout) for pair in pairs]


# ------------------------------------------------------------------ report
def summary(label: str, samples: list[float | None]) -> tuple[float, float, int]:
    arrived = [s for s in samples if s is not None]
    p50, p95 = percentile(arrived, 0.5), percentile(arrived, 0.95)
    print(f"  {label:<28} p50 {p50 * 1000:>7.0f} ms   p95 {p95 * 1000:>7.0f} ms   max "
          f"{max(arrived, default=float('nan')) * 1000:>7.0f} ms   arrived {len(arrived)}/{len(samples)}")
    return p50, p95, len(samples) - len(arrived)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=50, help="edits per run (default 50)")
    parser.add_argument("--interval", type=float, default=2.0, help="pull interval of interval mode (default 2 s)")
    parser.add_argument("--quick", action="store_true", help="10 edits per run, to see that it runs")
    parser.add_argument("--dir", help="keep the projects and databases' files here (default: a temporary directory)")
    parser.add_argument("--seed", type=int, default=10, help="seed of the random gaps between edits")
    args = parser.parse_args(argv)
    edits = 10 if args.quick else args.edits
    if edits < 1 or args.interval <= 0:
        parser.error("--edits must be at least 1 and --interval positive")
    rng = random.Random(args.seed)
    with storyloom_home(args.dir, "storyloom-collab-bench-") as home, \
            tempfile.TemporaryDirectory(prefix="collab-bench-") as tmp:
        os.environ.setdefault("STORYLOOM_PASSWORD_STORE", "file")
        workdir = Path(home) / "collab"
        server = CouchServer(Path(tmp) / "server")
        server.start()
        try:
            ours = StoryloomPair(server, workdir, live=True, interval=args.interval)
            try:
                theirs = PouchPair(server, workdir)
                try:
                    live, pouch = run_edits([ours, theirs], edits, rng, timeout=10.0)
                    version = theirs.version
                finally:
                    theirs.close()
            finally:
                ours.close()
            on_interval = StoryloomPair(server, workdir, live=False, interval=args.interval)
            try:
                (interval,) = run_edits([on_interval], edits, rng, timeout=args.interval + 10.0)
            finally:
                on_interval.close()
        finally:
            server.stop()
    print(f"collab: {edits} edits per run, one every {GAP[0] * 1000:.0f}-{GAP[1] * 1000:.0f} ms; "
          f"pouchdb-server 4.2.0 in memory; PouchDB {version}; {machine()}")
    print("edit on client A to arrival in client B's store:")
    _, live_p95, live_missing = summary("storyloom live", live)
    _, pouch_p95, pouch_missing = summary("pouchdb live (reference)", pouch)
    _, interval_p95, interval_missing = summary(f"storyloom interval {args.interval:g} s", interval)
    checks = [
        Check("live p95", live_p95 * 1000, LIVE_P95_TARGET * 1000, unit="ms"),
        Check("live p95 / pouchdb live p95", live_p95 / pouch_p95, POUCH_RATIO_TARGET,
              note=f"pouchdb p95 {pouch_p95 * 1000:.0f} ms"),
        Check("interval p95", interval_p95 * 1000, (args.interval + 1) * 1000, unit="ms",
              note=f"interval {args.interval:g} s + 1 s"),
        Check("edits that never arrived", live_missing + interval_missing, 0, unit="",
              note=f"pouchdb: {pouch_missing}"),
    ]
    return verdict("collab", checks)


if __name__ == "__main__":
    sys.exit(main())
