"""Memory benchmark: peak RSS of ``storyloom backup``, ``restore`` and ``import`` of a large project.

    scripts/bench memory [--docs 10000] [--dir DIR]
    .venv/bin/python bench/memory_bench.py [same options]

A project of ``--docs`` documents from ``bench/generate.py`` is created under a temporary
``STORYLOOM_HOME`` (deleted at the end, whatever happens; with ``--dir`` that directory is used
and kept). Then, each as its own process, as a user runs them:

* ``storyloom backup`` of the project (the backup file is an ``all_docs`` dump with attachments);
* ``storyloom restore`` of that file as a copy (``--new-id``);
* ``storyloom import`` of a Drafft v2 backup made from that file (:func:`drafft_backup`: the same
  ``allDocs`` dump as Drafft writes it, with PouchDB's design document, each folder's
  ``children`` array, some documents locked and some dates in epoch milliseconds), so the import
  reads, converts, repairs and writes every document as it does a Drafft file's.

Each process's peak RSS is read by a small wrapper process (forked straight from this process, a
child would be charged this process's pages until it execs; see docs/benchmarks.md), with its
wall time and the file's size. The restored and the imported project must hold as many
documents as the original.

Targets (issue 16): each of the three processes peaks under 300 MB RSS, whatever the project's
size. Exit status 1 when one is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench import paths

paths.setup()

from bench.generate import generate  # noqa: E402
from bench.report import Check, check_docs, machine, storyloom_home, verdict  # noqa: E402

RSS_TARGET_MB = 300

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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=10_000)
    parser.add_argument("--dir", help="STORYLOOM_HOME to use, kept afterwards (default: a temporary directory)")
    args = parser.parse_args(argv)
    check_docs(args.docs)
    with storyloom_home(args.dir, "storyloom-memory-bench-") as home:
        return run(args, Path(home))


def run(args: argparse.Namespace, home: Path) -> int:
    from storyloom.project.manager import ProjectManager

    name = f"memory-bench-{random.randrange(10**9)}"
    project = ProjectManager(username="bench").create(name)
    try:
        written = generate(args.docs).fill(project)
        count = project.store.info()["doc_count"]
    finally:
        project.close()
    print(machine())
    print(f"project: {count:,} documents (written in {written:.1f}s)")
    backup = home / "memory-bench-backup.json"
    drafft = home / "memory-bench-drafft.json"
    checks: list[Check] = []
    for verb, argv, file in (
        ("backup", ["backup", name, "-o", str(backup), "--force"], backup),  # --dir may hold one
        ("restore", ["restore", str(backup), "--new-id", "--name", f"{name}-restored"], backup),
        ("import", ["import", str(drafft), "--name", f"{name}-imported", "--json"], drafft),
    ):
        if verb == "import":
            drafft_backup(backup, drafft)
        code, out, peak, elapsed = _measure(argv)
        size = file.stat().st_size / 1e6 if file.exists() else 0.0
        print(f"storyloom {verb}: {elapsed:.1f}s, {size:.1f} MB file, peak RSS {peak:.0f} MB"
              + ("" if code == 0 else f", FAILED (exit {code})"))
        checks.append(Check(f"storyloom {verb}: peak RSS", peak if code == 0 else float("inf"), RSS_TARGET_MB,
                            "<=", " MB", note=f"{elapsed:.1f}s, {size:.1f} MB file"))
        if verb == "import" and code == 0:
            report = json.loads(out)
            checks.append(Check("import: documents imported = the project's", report["totals"]["imported"], count,
                                "==", ""))
    checks.append(Check("restore: documents restored = the project's", _count(f"{name}-restored"), count, "==", ""))
    return verdict("memory", checks)


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


def _measure(argv: list[str]) -> tuple[int, str, float, float]:
    """``storyloom *argv`` as a process: exit code, its output, its peak RSS (MB), its wall time."""
    command = [sys.executable, "-c", _PEAK_RSS, sys.executable, "-m", "storyloom", *argv]
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
