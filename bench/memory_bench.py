"""Memory benchmark: peak RSS of every verb that reads or writes a whole project, and how it grows.

    scripts/bench memory [--docs 20000] [--small N] [--dir DIR] [--only VERB ...] [--no-pull]
    .venv/bin/python bench/memory_bench.py [same options]

Two projects from ``bench/generate.py`` are measured in the same run: ``--small`` documents
(default: a quarter of ``--docs``) and ``--docs`` documents, each created as
``memory-bench-<count>`` under a temporary ``STORYLOOM_HOME`` (deleted at the end, whatever
happens). With ``--dir`` that directory is used and kept, and a ``memory-bench-<count>`` project
an earlier run left there is reused (generating 500,000 documents takes minutes). For each
project, each verb as its own process, as a user runs them:

* ``storyloom export`` (its first: the export's on-disk results, ``export-cache.sqlite3``,
  cleared before), ``storyloom schema`` and ``storyloom dump`` of the project;
* ``storyloom backup`` of the project (the backup file is an ``all_docs`` dump with attachments);
* ``storyloom restore`` of that file as a copy (``--new-id``);
* ``storyloom import`` of a Drafft v2 backup made from that file (:func:`drafft_backup`: the same
  ``allDocs`` dump as Drafft writes it, with PouchDB's design document, each folder's
  ``children`` array, some documents locked and some dates in epoch milliseconds), so the import
  reads, converts, repairs and writes every document as it does a Drafft file's;
* a first pull of the generated documents from an in-memory pouchdb-server into an empty store
  (``pull``, as ``sync_bench.py --memory`` measures it; ``--no-pull`` leaves it out, it needs Node).

Each process's peak RSS is read by a small wrapper process (forked straight from this process, a
child would be charged this process's pages until it execs; see docs/benchmarks.md), with its
wall time and the file's size. The restored and the imported project must hold as many
documents as the original (both are deleted afterwards).

Targets (issue 28): each process peaks under 300 MB RSS, and each verb's per-document slope,
``(peak at --docs - peak at --small) / (--docs - --small)``, is at most 0.2 KB a document: what
grows with the project lives on disk or is streamed. The table also projects each verb's peak to
500,000 documents along its slope. Exit status 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench import paths

paths.setup()

from bench.generate import generate, open_or_generate  # noqa: E402
from bench.report import Check, check_docs, machine, storyloom_home, verdict  # noqa: E402

RSS_TARGET_MB = 300
SLOPE_TARGET_KB = 0.2
#: The size the table projects each verb's peak to, along its slope (issue 28's largest).
PROJECTED_DOCS = 500_000
VERBS = ("export", "schema", "dump", "backup", "restore", "import", "pull")

# Runs a command and prints its output, then its peak RSS (KiB) on a line of its own. A process
# forked from this benchmark process would count this one's pages until it execs (Linux charges
# them to its maxrss), so the command is started from this small wrapper instead.
_PEAK_RSS = """
import resource, subprocess, sys
proc = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, check=False)
sys.stdout.buffer.write(proc.stdout)
sys.stdout.write("\\n%d\\n" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(proc.returncode)
"""


@dataclass
class Peak:
    """One verb's process at one size: its peak RSS (KiB; infinite when it failed) and wall time."""

    kib: float
    seconds: float

    @property
    def mb(self) -> float:
        return self.kib / 1024


def slope_kb(small: tuple[int, float], large: tuple[int, float]) -> float:
    """KB (KiB) of peak RSS per document between two ``(documents, peak KiB)`` measurements."""
    (n_small, kib_small), (n_large, kib_large) = small, large
    if n_large == n_small:
        raise ValueError("a slope needs two different sizes")
    return (kib_large - kib_small) / (n_large - n_small)


def slope_checks(peaks: dict[str, dict[int, Peak]]) -> list[Check]:
    """Each verb's slope between its smallest and its largest size, beside its target."""
    checks = []
    for verb, by_size in peaks.items():
        (n_small, small), (n_large, large) = min(by_size.items()), max(by_size.items())
        if n_small == n_large:
            continue
        slope = slope_kb((n_small, small.kib), (n_large, large.kib))
        projected = large.mb + max(slope, 0.0) * (PROJECTED_DOCS - n_large) / 1024
        checks.append(Check(f"{verb}: KB per document ({n_small:,} to {n_large:,})", slope, SLOPE_TARGET_KB,
                            "<=", " KB", decimals=2, note=f"{projected:,.0f} MB at {PROJECTED_DOCS:,} along it"))
    return checks


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=20_000)
    parser.add_argument("--small", type=int, help="the smaller project's documents (default: a quarter of --docs)")
    parser.add_argument("--dir", help="STORYLOOM_HOME to use, kept afterwards with its projects (default: a "
                        "temporary directory)")
    parser.add_argument("--only", action="append", choices=VERBS, help="measure only this verb (repeatable)")
    parser.add_argument("--no-pull", action="store_true", help="leave out the first pull (it needs Node)")
    args = parser.parse_args(argv)
    small = args.small if args.small is not None else max(100, args.docs // 4)
    if small >= args.docs:
        parser.error("--small must be fewer documents than --docs")
    check_docs(args.docs)
    verbs = [v for v in VERBS if (not args.only or v in args.only) and not (v == "pull" and args.no_pull)]
    with storyloom_home(args.dir, "storyloom-memory-bench-") as home:
        return run(Path(home), [small, args.docs], verbs)


def run(home: Path, sizes: list[int], verbs: list[str]) -> int:
    print(machine())
    peaks: dict[str, dict[int, Peak]] = {verb: {} for verb in verbs}
    checks: list[Check] = []
    for size in sizes:
        checks += _measure_size(home, size, verbs, peaks)
    print(f"\nper-document slope of each verb's peak RSS ({sizes[0]:,} to {sizes[-1]:,} documents):")
    for verb, by_size in peaks.items():
        figures = ", ".join(f"{n:,}: {p.mb:,.0f} MB" for n, p in sorted(by_size.items()))
        slope = slope_kb(*((n, p.kib) for n, p in sorted(by_size.items()))) if len(by_size) == 2 else float("nan")
        print(f"  {verb:<8} {slope:>7.2f} KB per document (target {SLOPE_TARGET_KB} KB)   {figures}")
    return verdict("memory", checks + slope_checks(peaks))


def _project(size: int) -> tuple[str, int, float | None]:
    """The project of ``size`` generated documents (reused when an earlier run with ``--dir`` left
    it): its name, its documents and the seconds it took to write (None when reused)."""
    name = f"memory-bench-{size}"
    project, written = open_or_generate(name, size)
    try:
        count = int(project.store.info()["doc_count"])
        if count <= size:
            raise RuntimeError(f"{name} holds {count:,} documents, fewer than generated: delete it from --dir")
        from storyloom.export.cache import cache_for

        cache = cache_for(project.db)
        if cache is not None:  # measure the project's first export, which renders every script
            cache.clear(disk=True)
    finally:
        project.close()
    return name, count, written


def _measure_size(home: Path, size: int, verbs: list[str], peaks: dict[str, dict[int, Peak]]) -> list[Check]:
    name, count, written = _project(size)
    print(f"\nproject {name}: {count:,} documents ({'reused' if written is None else f'written in {written:.1f}s'})")
    backup = home / f"{name}-backup.json"
    drafft = home / f"{name}-drafft.json"
    outputs = {verb: home / f"{name}-{verb}.json" for verb in ("export", "schema", "dump")}
    commands: dict[str, tuple[list[str], Path | None]] = {
        **{verb: ([verb, name, "-o", str(file)], file) for verb, file in outputs.items()},
        "backup": (["backup", name, "-o", str(backup), "--force"], backup),  # --dir may hold one
        "restore": (["restore", str(backup), "--new-id", "--name", f"{name}-restored"], backup),
        "import": (["import", str(drafft), "--name", f"{name}-imported", "--json"], drafft),
    }
    checks: list[Check] = []
    try:
        for verb in verbs:
            if verb in ("restore", "import") and not backup.exists():  # the file they read
                _measure(commands["backup"][0])
            if verb == "import":
                drafft_backup(backup, drafft)
            if verb == "pull":
                code, out, peak, elapsed, size_mb = *_pull(size), 0.0
            else:
                argv, file = commands[verb]
                code, out, peak, elapsed = _measure(argv)
                size_mb = file.stat().st_size / 1e6 if file is not None and file.exists() else 0.0
            failed = code != 0
            label = "first pull" if verb == "pull" else f"storyloom {verb}"
            print(f"{label}: {elapsed:.1f}s, " + (f"{size_mb:.1f} MB file, " if size_mb else "")
                  + f"peak RSS {peak:.0f} MB" + (f", FAILED (exit {code})" if failed else ""))
            peaks[verb][size] = Peak(float("inf") if failed else peak * 1024, elapsed)
            checks.append(Check(f"{verb} at {size:,}: peak RSS", float("inf") if failed else peak, RSS_TARGET_MB,
                                "<=", " MB", note=f"{elapsed:.1f}s" + (f", {size_mb:.1f} MB file" if size_mb else "")))
            if verb == "import" and not failed:
                imported = json.loads(out)["totals"]["imported"]
                checks.append(Check(f"import at {size:,}: documents imported = the project's", imported, count,
                                    "==", ""))
                _delete(f"{name}-imported")
            if verb == "restore":
                checks.append(Check(f"restore at {size:,}: documents restored = the project's",
                                    _count(f"{name}-restored"), count, "==", ""))
                _delete(f"{name}-restored")
    finally:
        for file in (backup, drafft, *outputs.values()):
            file.unlink(missing_ok=True)
    return checks


def drafft_backup(source: Path, target: Path) -> None:
    """Write ``source`` (a Storyloom backup) as Drafft 2 writes a project's backup: a PouchDB
    design document first, every folder's ``children`` (``{_id}`` objects, in the folder's order),
    every 50th document locked and every 10th one's ``created`` in epoch milliseconds."""
    import datetime

    import ijson

    children: dict[str, list[tuple[str, str]]] = {}
    with source.open("rb") as handle:
        for row in ijson.items(handle, "rows.item", use_float=True):
            doc = row["doc"]
            if isinstance(doc.get("parent"), str):
                children.setdefault(doc["parent"], []).append((str(doc.get("sortKey")), doc["_id"]))
    design = {"_id": "_design/idx-type", "_rev": "1-0", "language": "query",
              "views": {"idx-type": {"map": {"fields": {"type": "asc"}}, "reduce": "_count"}}}
    with source.open("rb") as handle, target.open("w", encoding="utf-8") as out:
        out.write('{"total_rows":0,"offset":0,"rows":[\n')
        out.write(json.dumps({"id": design["_id"], "key": design["_id"], "value": {"rev": "1-0"}, "doc": design}))
        for index, row in enumerate(ijson.items(handle, "rows.item", use_float=True)):
            doc = row["doc"]
            if doc["_id"] in children:
                doc["children"] = [{"_id": child} for _, child in sorted(children[doc["_id"]])]
            if index % 50 == 1:
                doc.update(locked=True, lockedBy="writer")
            if index % 10 == 1 and isinstance(doc.get("created"), str):
                moment = datetime.datetime.fromisoformat(doc["created"].replace("Z", "+00:00"))
                doc["created"] = int(moment.timestamp() * 1000)
            out.write(",\n" + json.dumps(row, ensure_ascii=False))
        out.write("\n]}\n")


def _env() -> dict[str, str]:
    import storyloom

    src = str(Path(storyloom.__file__).resolve().parent.parent)
    return dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (src, os.environ.get("PYTHONPATH")) if p))


def _measure(argv: list[str], *, module: bool = True) -> tuple[int, str, float, float]:
    """``storyloom *argv`` (``python *argv`` when not ``module``) as a process: exit code, its
    output, its peak RSS (MB), its wall time."""
    command = [sys.executable, "-c", _PEAK_RSS, sys.executable, *(["-m", "storyloom"] if module else []), *argv]
    started = time.perf_counter()
    result = subprocess.run(command, env=_env(), capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        print(f"storyloom {argv[0]} failed ({result.returncode}): {result.stderr[-2000:]}")
    out, _, peak = result.stdout.rstrip("\n").rpartition("\n")
    try:
        peak_mb = int(peak) / 1024
    except ValueError:
        peak_mb = float("nan")
    return result.returncode, out, peak_mb, elapsed


def _pull(count: int) -> tuple[int, str, float, float]:
    """A first pull of the ``count`` generated documents from an in-memory pouchdb-server into
    an empty store, as ``sync_bench.py --memory`` runs it: exit code, output, peak RSS (MB), time."""
    from tools.peers import CouchServer, unique_db_name

    from bench.sync_bench import _PULL_CHILD

    with tempfile.TemporaryDirectory(prefix="memory-bench-pull-") as tmp:
        server = CouchServer(Path(tmp) / "server")
        server.start()
        try:
            db = server.create_db(unique_db_name("bench-mem"))
            for batch in generate(count).batches(500):
                server.bulk_docs(db, batch)
            code, out, peak, elapsed = _measure(["-c", _PULL_CHILD, server.db_url(db), *server.admin,
                                                 str(Path(tmp) / "pulled.sqlite")], module=False)
        finally:
            server.stop()
    words = out.split()
    if code == 0 and (len(words) < 2 or words[0] != "complete" or int(words[1]) != count):
        print(f"the pull did not complete: {out[-500:]}")
        code = 1
    return code, out, peak, elapsed


def _delete(name: str) -> None:
    from storyloom.project.manager import ProjectManager, ProjectNotFound

    try:
        ProjectManager().delete(name)
    except ProjectNotFound:
        pass


def _count(name_or_id: str) -> int:
    from storyloom.project.manager import ProjectManager, ProjectNotFound

    try:
        project: Any = ProjectManager().open(name_or_id)
    except ProjectNotFound:
        return -1
    with project:
        return int(project.store.info()["doc_count"])


if __name__ == "__main__":
    sys.exit(main())
