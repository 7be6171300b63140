"""Export benchmark: game export and schema export of a generated project, against reading it.

    scripts/bench export [--docs 10000] [--repeat 5] [--plant N] [--dir DIR]
    .venv/bin/python bench/export_bench.py [same options]

A project of ``--docs`` documents from ``bench/generate.py`` (all 14 collections, realistic
content, every export mapping set; ``--plant`` problems planted on purpose, by default one per
1,000 documents) is created under a temporary ``STORYLOOM_HOME`` (deleted at the end, whatever
happens; with ``--dir`` that directory is used and kept).

Timed in ``--repeat`` rounds in the same process, every phase once per round (each ratio compares
runs made under the same load on a shared machine):

* reference: ``read_documents(project.db)`` (the store's walk of its live documents that the
  export itself reads through: every document read and JSON-decoded) **with the garbage collector
  paused as the exporters pause it** (``gc_paused``): the same collector state, the same store,
  the same caches as the export;
* game export: ``stream_game_export(project, all collections)`` with its bytes read out of the
  spools (what ``storyloom export``, File > Export and ``/game-export`` run), written nowhere;
* game export + writing the file: the same written to a file (``write_game_export``);
* schema export: ``stream_schema(project, all collections)``;
* for information: the export built as one dict (``build_game_export``), and with ``dumps_export``.

Exports run cold (the in-memory per-revision memo of ``storyloom.export.cache.memo`` emptied before
each run: the first export after opening a project, as ``storyloom export`` runs, with the
results an earlier export kept on disk, ``export-cache.sqlite3``) and warm (repeated exports of
an open project, as the API serves them), and as the first export of a project ever (nothing kept
on disk either, ``export-cache.sqlite3`` emptied: every script rendered, every property text
parsed, every result kept; a build server's export of a fresh clone). Each ratio
is the median over the rounds of (phase time / reference time in the same round). Shown for
information, not as a target: the reference read with the collector on, as a caller that does
not pause it would read.

Then ``storyloom export``, ``storyloom schema`` and ``storyloom dump`` of the project run once
each as separate processes: their wall time and peak RSS.

Targets (issue 16): cold game export <= 2x the reference, cold export + writing the file <= 3x;
schema export and warm exports <= 3x; (issue 28) the first export ever <= 3x, with writing the
file <= 4x; the export's ``_meta.warningCount`` equal to the problems
planted; the ``export``, ``schema`` and ``dump`` processes under 300 MB peak RSS. Exit status 1
when one is missed.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench import paths

paths.setup()

from bench.generate import generate  # noqa: E402
from bench.report import Check, check_docs, machine, storyloom_home, verdict  # noqa: E402

COLD_TARGET = 2.0
COLD_SERIALISE_TARGET = 3.0
FIRST_TARGET = 3.0
FIRST_SERIALISE_TARGET = 4.0
OTHER_TARGET = 3.0
RSS_TARGET_MB = 300


def make_docs(count: int, seed: int = 11) -> list[dict[str, Any]]:
    """``count`` generated documents (kept for benchmarks written against the old generator:
    use :func:`bench.generate.generate`, which also sets the export mappings and counts problems)."""
    return list(generate(count, seed=seed).docs())


def forget_script_memos() -> None:
    """Empty the script layer's memos of lines and expressions, as a new process has them: an
    earlier round's first export must not leave the next one's parse half done."""
    from storyloom.script import line_ids, mappings, parser

    parser._expression_memo.clear()
    parser._set_memo.clear()
    parser._remembered.clear()
    line_ids._lines.clear()
    mappings._compiled.clear()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5, help="rounds (every phase once per round)")
    parser.add_argument("--plant", type=int, default=None, help="problems to plant (default: one per 1,000 docs)")
    parser.add_argument("--dir", help="STORYLOOM_HOME to use, kept afterwards (default: a temporary directory)")
    parser.add_argument("--no-processes", action="store_true", help="skip the export and dump processes")
    args = parser.parse_args(argv)
    check_docs(args.docs)
    with storyloom_home(args.dir, "storyloom-export-bench-"):
        return run(args)


def run(args: argparse.Namespace) -> int:
    """The benchmark proper, in the ``STORYLOOM_HOME`` that :func:`main` set up."""
    from storyloom.project.manager import ProjectManager

    project = ProjectManager(username="bench").create(f"export-bench-{random.randrange(10**9)}")
    try:
        return _measure(args, project)
    finally:
        project.close()


def _measure(args: argparse.Namespace, project: Any) -> int:
    from storyloom.collector import gc_paused
    from storyloom.export.cache import cache_for
    from storyloom.export.collections_filter import EXPORT_NAMES
    from storyloom.export.game_export import build_game_export, dumps_export, read_documents
    from storyloom.export.stream import stream_game_export, stream_schema, write_game_export

    plant = args.docs // 1000 if args.plant is None else args.plant
    generated = generate(args.docs, plant=plant)
    written = generated.fill(project)
    collections = list(EXPORT_NAMES)
    print(f"{machine()}")
    print(f"project: {project.store.info()['doc_count']:,} documents over {len(collections)} collections "
          f"(written in {written:.1f}s), {generated.planted_total} problem(s) planted, {args.repeat} rounds")

    db = project.db  # the read view the export itself reads through (and whose memo it keeps)
    cache = cache_for(db)
    assert cache is not None

    def reference() -> Any:
        with gc_paused():
            return read_documents(db)

    def read_gc_on() -> Any:
        return read_documents(db)

    out_path = Path(tempfile.mkdtemp(prefix="export-bench-file-")) / "game.json"

    def export() -> Any:
        # What storyloom export, File > Export and /game-export run: the streamed export, whose
        # bytes are produced (spooled and read back out), not written anywhere.
        with stream_game_export(project, collections, "bench") as streamed:
            return sum(len(chunk) for chunk in streamed.chunks())

    def export_and_write() -> Any:
        with open(out_path, "wb") as handle:
            return write_game_export(handle, project, collections, "bench")

    def built() -> Any:
        return build_game_export(project, collections, "bench")

    def built_and_dumped() -> str:
        return dumps_export(build_game_export(project, collections, "bench"))

    def schema() -> Any:
        return stream_schema(project, collections)

    def cold(fn: Callable[[], Any]) -> Callable[[], Any]:
        def run() -> Any:
            cache.clear()  # every run starts from an empty memo: the first export of an opened project
            return fn()

        return run

    def first(fn: Callable[[], Any]) -> Callable[[], Any]:
        def run() -> Any:
            cache.clear(disk=True)  # nor any result kept on disk: the project's first export ever
            forget_script_memos()  # as in a new process (a build server's `storyloom export`)
            return fn()

        return run

    phases: list[tuple[str, Callable[[], Any], float | None]] = [
        ("reference: read + decode, GC paused", reference, None),
        ("info: read + decode, GC on", read_gc_on, None),
        ("first export ever, nothing on disk", first(export), FIRST_TARGET),
        ("first export ever + writing the file", first(export_and_write), FIRST_SERIALISE_TARGET),
        ("game export, cold", cold(export), COLD_TARGET),
        ("game export + writing the file, cold", cold(export_and_write), COLD_SERIALISE_TARGET),
        ("schema export, cold", cold(schema), OTHER_TARGET),
        ("info: built export (dict), cold", cold(built), None),
        ("info: built export + dumps_export, cold", cold(built_and_dumped), None),
        ("game export, warm", export, OTHER_TARGET),
        ("game export + writing the file, warm", export_and_write, OTHER_TARGET),
        ("schema export, warm", schema, OTHER_TARGET),
    ]
    times: dict[str, list[float]] = {name: [] for name, _, _ in phases}
    cpu: dict[str, list[float]] = {name: [] for name, _, _ in phases}
    for _ in range(args.repeat):
        for name, fn, _ in phases:
            if name == "game export, warm":
                export()  # the cold schema run emptied the memo: fill it (not timed)
            started, started_cpu = time.perf_counter(), time.process_time()
            result = fn()
            times[name].append(time.perf_counter() - started)
            cpu[name].append(time.process_time() - started_cpu)
            del result  # freed outside the timing; no result stays alive into the next phase

    exported = cold(built)()
    text = dumps_export(exported)
    meta = exported["_meta"]
    meta.setdefault("warningCount", len(meta["warnings"]))  # before _meta.warningCount existed
    lines = sum(len(d.get("content", {}).get("lines", [])) for d in exported["scripts"])
    print(f"export: {len(text) / 1e6:.1f} MB of JSON, {lines:,} script lines, {meta['warningCount']} warning(s)")
    del exported, text
    print()
    base = times["reference: read + decode, GC paused"]
    base_cpu = cpu["reference: read + decode, GC paused"]
    print(f"{'phase':<42}{'best s':>9}{'median s':>10}{'ratio':>9}{'cpu ratio':>11}")
    checks: list[Check] = []
    for name, _, target in phases:
        ratio = statistics.median(t / b for t, b in zip(times[name], base, strict=True))
        cpu_ratio = statistics.median(t / max(b, 1e-9) for t, b in zip(cpu[name], base_cpu, strict=True))
        print(f"{name:<42}{min(times[name]):>9.3f}{statistics.median(times[name]):>10.3f}{ratio:>8.2f}x"
              f"{cpu_ratio:>10.2f}x")
        if target is not None:
            checks.append(Check(name, ratio, target, note=f"{cpu_ratio:.2f}x in CPU time"))
    print("ratio = median over the rounds of (phase / reference in the same round), wall time (the targets);")
    print("cpu ratio = the same in this process's CPU time, which other processes on a shared machine do not inflate")
    shutil.rmtree(out_path.parent, ignore_errors=True)
    checks.append(Check("_meta.warningCount = problems planted", meta["warningCount"], generated.planted_total,
                        "==", ""))
    if not args.no_processes:
        checks += _processes(project)
    return verdict("export", checks)


# Runs a command and prints its peak RSS (KiB). A process forked from this big benchmark process
# would count this one's pages until it execs (Linux charges them to its maxrss), so the command
# is started from this small wrapper instead.
_PEAK_RSS = """
import os, subprocess, sys
proc = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
_, status, usage = os.wait4(proc.pid, 0)
print(usage.ru_maxrss)
sys.exit(os.waitstatus_to_exitcode(status))
"""


def _processes(project: Any) -> list[Check]:
    """``storyloom export`` and ``storyloom dump`` of the project as processes: time and peak RSS."""
    import storyloom

    src = str(Path(storyloom.__file__).resolve().parent.parent)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (src, os.environ.get("PYTHONPATH")) if p))
    checks = []
    with tempfile.TemporaryDirectory(prefix="export-bench-out-") as out:
        for verb in ("export", "schema", "dump"):
            target = Path(out) / f"{verb}.json"
            command = [sys.executable, "-c", _PEAK_RSS, sys.executable, "-m", "storyloom", verb, project.id,
                       "-o", str(target)]
            started = time.perf_counter()
            result = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
            elapsed = time.perf_counter() - started
            if result.returncode != 0:
                print(f"storyloom {verb} failed ({result.returncode}): {result.stderr[-2000:]}")
            size = target.stat().st_size / 1e6 if target.exists() else 0.0
            peak = int(result.stdout.split()[-1]) / 1024 if result.stdout.strip() else float("nan")
            print(f"storyloom {verb}: {elapsed:.1f}s, {size:.1f} MB written, peak RSS {peak:.0f} MB")
            checks.append(Check(f"storyloom {verb}: peak RSS", peak, RSS_TARGET_MB, "<=", " MB",
                                note=f"{elapsed:.1f}s, {size:.1f} MB file"))
    return checks


if __name__ == "__main__":
    sys.exit(main())
