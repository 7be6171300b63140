"""Store benchmark: the document store against a plain-SQLite reference in the same process.

    scripts/bench store [--docs 10000] [--batch 100] [--repeat 5] [--dir DIR ...]
    .venv/bin/python bench/store_bench.py [same options]

The documents are those of a generated project (``bench/generate.py``: every collection, about
1.5 KB of JSON each, a few with an attachment).

Three phases, each timed for the store and for the reference, printed as documents per second and
as the store's slowdown ratio (store time / reference time; 1.0 means as fast as plain SQLite).

The whole measurement runs once per directory given with ``--dir`` (repeatable). By default it
runs twice: in the system temp directory (normally on disk, where every commit waits for an
fsync) and in ``/dev/shm`` when it exists (tmpfs: a commit costs next to nothing, so the ratio
shows the store's CPU cost). Each directory's ratios are against the reference measured in that
directory, in the same runs, with the same pragmas.

The reference is one two-column table ``(id TEXT PRIMARY KEY, body TEXT)`` with the store's
pragmas (``journal_mode=WAL``, ``synchronous=FULL``) and the same batching (one transaction per
batch of ``--batch`` documents):

* write:   store ``bulk_docs`` of the documents (dicts).
           reference "blobs": ``INSERT`` of the same documents already encoded as JSON (the target);
           reference "dicts": ``json.dumps`` of each document, then the same ``INSERT`` (information).
* read:    store ``all_docs(include_docs=True)``;
           reference: ``SELECT id, body ... ORDER BY id`` and ``json.loads`` of every blob (the store
           hands back parsed documents, so the reference parses them too; the target);
           reference raw: the same ``SELECT`` without parsing (information).
* changes: store ``changes()`` over the whole database, as one call and as a walk in pages of
           ``--batch``; reference: ``SELECT`` of every blob in insertion order, not parsed (a
           changes row carries no body; the target).

Each run measures the store and the reference in alternating order; with ``--repeat`` the median
of each rate and of the per-run ratios is printed, and, as information, the ratios in CPU time of
the process (which other jobs on a busy machine do not inflate). Targets (issue 2): write ratio
<= 3, read and changes ratios <= 2, in every directory. Exit status 1 when a target is missed (the table at the end).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench import paths

paths.setup()

from bench.generate import generate  # noqa: E402
from bench.report import Check, check_docs, machine, verdict  # noqa: E402
from storyloom.store import Database  # noqa: E402

WRITE_TARGET = 3.0
READ_TARGET = 2.0


def make_docs(count: int, seed: int = 7) -> list[dict]:
    """The documents of a generated project (``bench/generate.py``) of ``count`` documents."""
    return list(generate(count, seed=seed).docs())


def timed(fn: Callable[[], object]) -> tuple[float, float]:
    """(Wall seconds, CPU seconds of this process) ``fn`` takes, with the cyclic GC collected before
    and paused during (as timeit does): building 10,000 result dicts otherwise triggers
    collections whose cost lands on whoever runs next. The wall time is the measure; the CPU time
    (which a busy machine's other processes do not inflate, and which leaves out waits for fsync)
    is printed as information."""
    gc.collect()
    gc.disable()
    try:
        start, start_cpu = time.perf_counter(), time.process_time()
        fn()
        return time.perf_counter() - start, time.process_time() - start_cpu
    finally:
        gc.enable()


class Reference:
    """The same blobs in one two-column table, with the store's pragmas and batching."""

    def __init__(self, path: Path) -> None:
        self.conn = sqlite3.connect(path, isolation_level=None)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=FULL")
        self.conn.execute("CREATE TABLE docs (id TEXT PRIMARY KEY, body TEXT NOT NULL)")

    def write(self, batches: list[list[tuple[str, str]]]) -> None:
        for batch in batches:
            self.conn.execute("BEGIN IMMEDIATE")
            self.conn.executemany("INSERT INTO docs VALUES (?, ?)", batch)
            self.conn.execute("COMMIT")

    def read_parsed(self) -> list[dict]:
        return [json.loads(body) for _, body in self.conn.execute("SELECT id, body FROM docs ORDER BY id")]

    def read_raw(self) -> list[tuple[str, str]]:
        return self.conn.execute("SELECT id, body FROM docs ORDER BY id").fetchall()

    def scan_raw(self) -> list[tuple[str]]:
        return self.conn.execute("SELECT body FROM docs ORDER BY rowid").fetchall()

    def close(self) -> None:
        self.conn.close()


def walk_changes(db: Database, page: int) -> int:
    since: int | str = 0
    seen = 0
    while True:
        feed = db.changes(since=since, limit=page)
        if not feed["results"]:
            return seen
        seen += len(feed["results"])
        since = feed["last_seq"]


def run_once(workdir: Path, docs: list[dict], batch: int, store_first: bool) -> dict[str, float]:
    count = len(docs)
    doc_batches = [docs[i:i + batch] for i in range(0, count, batch)]
    blob_batches = [[(d["_id"], json.dumps(d, separators=(",", ":"))) for d in chunk] for chunk in doc_batches]

    paths = {name: workdir / f"{name}.sqlite" for name in ("store", "blobs", "dicts")}
    for path in paths.values():
        for suffix in ("", "-wal", "-shm"):
            Path(str(path) + suffix).unlink(missing_ok=True)

    db = Database(paths["store"])
    ref = Reference(paths["blobs"])
    ref_dicts = Reference(paths["dicts"])
    out: dict[str, float] = {}
    result: dict = {}
    try:
        def store_write() -> None:
            for chunk in doc_batches:
                results = db.bulk_docs(chunk)
                if len(results) != len(chunk) or "error" in results[-1]:
                    raise AssertionError(results[-1])

        def ref_write_dicts() -> None:
            encoded = [[(d["_id"], json.dumps(d, separators=(",", ":"))) for d in chunk] for chunk in doc_batches]
            ref_dicts.write(encoded)

        def store_read() -> None:
            result["all_docs"] = db.all_docs(include_docs=True)

        def store_changes() -> None:
            result["changes"] = db.changes()

        phases: list[tuple[str, Callable[[], object]]] = [
            ("write_store", store_write),
            ("read_store", store_read),
            ("changes_store", store_changes),
            ("changes_walk_store", lambda: walk_changes(db, batch)),
        ]
        ref_phases: list[tuple[str, Callable[[], object]]] = [
            ("write_ref", lambda: ref.write(blob_batches)),
            ("write_ref_dicts", ref_write_dicts),
            ("read_ref", ref.read_parsed),
            ("read_ref_raw", ref.read_raw),
            ("changes_ref", ref.scan_raw),
        ]
        # Writes first (reads need the data), then reads; alternate who goes first in each group.
        groups = [
            (phases[:1], ref_phases[:2]),
            (phases[1:], ref_phases[2:]),
        ]
        for store_group, ref_group in groups:
            ordered = store_group + ref_group if store_first else ref_group + store_group
            for name, fn in ordered:
                out[name], out[name + "_cpu"] = timed(fn)
        assert db.info()["doc_count"] == count
        assert len(result["all_docs"]["rows"]) == count
        first = min(docs, key=lambda d: d["_id"])
        assert result["all_docs"]["rows"][0]["doc"]["name"] == first["name"]
        assert len(result["changes"]["results"]) == count
    finally:
        db.close()
        ref.close()
        ref_dicts.close()
    return out


def default_dirs() -> list[Path]:
    """The system temp directory (normally a disk) and, when there is one, /dev/shm (tmpfs)."""
    dirs = [Path(tempfile.gettempdir())]
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK) and shm.resolve() != dirs[0].resolve():
        dirs.append(shm)
    return dirs


def filesystem_of(path: Path) -> str:
    """The type of the file system holding ``path`` (from /proc/mounts), or "unknown"."""
    try:
        mounts = Path("/proc/mounts").read_text().splitlines()
    except OSError:
        return "unknown"
    target = str(path.resolve())
    best, kind = "", "unknown"
    for line in mounts:
        fields = line.split()
        if len(fields) < 3:
            continue
        point = fields[1].replace("\\040", " ")
        inside = target == point or target.startswith(point.rstrip("/") + "/")
        if inside and len(point) > len(best):
            best, kind = point, fields[2]
    return kind


ROWS = [
    ("write (bulk_docs)", "write_store", "write_ref", WRITE_TARGET),
    ("read (all_docs include_docs)", "read_store", "read_ref", READ_TARGET),
    ("changes (one call)", "changes_store", "changes_ref", READ_TARGET),
    ("changes (walk, pages of batch)", "changes_walk_store", "changes_ref", READ_TARGET),
]


def report(runs: list[dict[str, float]], count: int) -> tuple[bool, dict[str, float]]:
    """Print one directory's figures; return (every target met, {phase: median ratio})."""
    med = {key: statistics.median(run[key] for run in runs) for key in runs[0]}

    def ratio_of(store_key: str, ref_key: str) -> float:
        # The median of the per-run ratios: each run times store and reference back to back, so
        # a slow moment of the machine affects both sides of a ratio.
        return statistics.median(run[store_key] / run[ref_key] for run in runs)

    def rate(seconds: float) -> str:
        return f"{count / seconds:>10,.0f} docs/s"

    ok = True
    ratios = {}
    for label, store_key, ref_key, target in ROWS:
        ratio = ratios[label] = ratio_of(store_key, ref_key)
        verdict = "ok" if ratio <= target else "MISSED"
        ok = ok and ratio <= target
        print(f"{label:<31} store {rate(med[store_key])}  reference {rate(med[ref_key])}  "
              f"ratio {ratio:5.2f}x (target <= {target:.0f}x: {verdict})")
    print("information:")
    print(f"  reference write from dicts (json.dumps + insert) {rate(med['write_ref_dicts'])}  "
          f"store ratio {ratio_of('write_store', 'write_ref_dicts'):5.2f}x")
    print(f"  reference read raw (select, no parse)            {rate(med['read_ref_raw'])}  "
          f"store ratio {ratio_of('read_store', 'read_ref_raw'):5.2f}x")
    per_run = [run["write_store"] / run["write_ref"] for run in runs]
    print(f"  write ratio per run: {', '.join(f'{ratio:.2f}' for ratio in per_run)}")
    cpu = [f"{store_key.removesuffix('_store').replace('_', ' ')} {ratio_of(store_key + '_cpu', ref_key + '_cpu'):.2f}x"
           for _, store_key, ref_key, _ in ROWS]
    print(f"  ratios in CPU time of this process: {', '.join(cpu)}")
    return ok, ratios


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=10_000)
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=5, help="runs; the median of each figure is printed")
    parser.add_argument(
        "--dir", type=Path, action="append", default=None,
        help="where the databases go; repeat for several (default: the temp dir and /dev/shm)",
    )
    args = parser.parse_args(argv)
    dirs = args.dir or default_dirs()

    check_docs(args.docs)
    docs = make_docs(args.docs)
    avg = sum(len(json.dumps(d)) for d in docs) / len(docs)
    print(machine())
    print(f"{args.docs:,} generated documents of ~{avg:.0f} bytes of JSON, batches of {args.batch}, "
          f"{args.repeat} run(s) per directory")

    checks: list[Check] = []
    summary = []
    for directory in dirs:
        kind = filesystem_of(directory)
        print(f"\n== {directory} ({kind}) ==")
        runs = []
        with tempfile.TemporaryDirectory(dir=directory) as tmp:
            for n in range(args.repeat):
                runs.append(run_once(Path(tmp), docs, args.batch, store_first=n % 2 == 0))
        _, ratios = report(runs, args.docs)
        checks += [Check(f"{label}, {kind}", ratios[label], target) for label, _, _, target in ROWS]
        summary.append((f"{directory} ({kind})", ratios))
    if len(summary) > 1:
        print("\nsummary (median ratios, store / reference):")
        for where, ratios in summary:
            print(f"  {where:<28} write {ratios['write (bulk_docs)']:.2f}x  "
                  f"read {ratios['read (all_docs include_docs)']:.2f}x  "
                  f"changes {ratios['changes (one call)']:.2f}x / {ratios['changes (walk, pages of batch)']:.2f}x")
    return verdict("store", checks)


if __name__ == "__main__":
    raise SystemExit(main())
