"""Editing benchmark: editor writes in a generated project against plain store writes.

    scripts/bench edit [--docs 10000] [--writes 200] [--rounds 5] [--dir DIR]
    .venv/bin/python bench/edit_bench.py [same options]

A project of ``--docs`` documents from ``bench/generate.py`` is written straight to the store
under a temporary ``STORYLOOM_HOME`` and closed. It is opened once to build its project index
from nothing (timed and printed: what the first opening on a machine pays, after an import, a
clone or a first pull; the index then stays in a file beside the store), closed, changed with
plain store writes while closed (100 documents, as a pull or another process changes them),
and opened again as a user opens it: the first editor write after opening is timed on its own
(it catches the index up with those changes), for three kinds of write, each in a fresh
opening: a Script update, a Scenario update (every variable state) and an Item created at the
top level; the slowest is checked against the target.

Each round then times ``--writes`` writes, a third each of:

* create: a Script in a Script folder, a Variable with a new ``_sid`` (duplicate check), an
  Item at the top level of its collection;
* update: a Variable (a comment added: same ``_sid``, duplicate check), a Scenario (its
  overrides are checked against every variable state), a Script;
* move: a Script or an Item into another folder of its collection (placement, cycle check),

once through the editing service (placement, stamping, validation, the gate) and once as the
same writes with plain ``db.put`` (the documents already built: no placement, no validation),
on the same store (same durability), in the same round. Each write's document is read and
changed before its clock starts, for both; before an editor round the project index catches
up, unclocked, with the plain round's writes (another writer's changes, which the plain writes
do not pay for either). ``--rounds`` rounds alternate the two; the ratio is the median over the
rounds of (editor time / plain time). The same ratio in CPU time (``time.process_time``, which
other processes of a shared machine do not inflate, and which leaves out the waits for the
disk) is printed beside it, for information.

To see whether a write's cost grows with the project, the same rounds run on a second project
ten times smaller (at least 1,000 documents) and the editor's time per write in the best round
of each is compared.

Targets (issue 16): editor writes <= 2x plain writes; per-write time at ``--docs`` <= 1.2x that
at a tenth of it; the first write after opening <= 300 ms. Exit status 1 when one is missed.
"""

from __future__ import annotations

import argparse
import copy
import itertools
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench import paths

paths.setup()

from bench.generate import Generated, generate  # noqa: E402
from bench.report import Check, check_docs, machine, storyloom_home, verdict  # noqa: E402

EDITOR_TARGET = 2.0
GROWTH_TARGET = 1.2
FIRST_WRITE_TARGET_MS = 300

Op = tuple[str, Callable[[], Callable[[], Any]]]  # (kind, prepare) -> the write to time


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=10_000)
    parser.add_argument("--writes", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--dir", help="STORYLOOM_HOME to use, kept afterwards (default: a temporary directory)")
    args = parser.parse_args(argv)
    check_docs(args.docs)
    with storyloom_home(args.dir, "storyloom-edit-bench-"):
        print(machine())
        big = measure(args.docs, args)
        small_docs = max(1_000, args.docs // 10)
        small = measure(small_docs, args) if small_docs < args.docs else None
    checks = [
        Check("editor writes / plain writes", big["ratio"], EDITOR_TARGET),
        Check("first write after opening", big["first_ms"], FIRST_WRITE_TARGET_MS, "<=", " ms",
              note=f"the slowest kind, {big['first_kind']}; {WHILE_CLOSED} changes made while closed caught up"),
    ]
    if small is not None:
        growth = big["per_write_ms"] / small["per_write_ms"]
        checks.append(Check(f"per write at {args.docs:,} / at {small_docs:,} docs", growth, GROWTH_TARGET,
                            note=f"{big['per_write_ms']:.2f} vs {small['per_write_ms']:.2f} ms; CPU time "
                                 f"{big['cpu_per_write_ms'] / max(small['cpu_per_write_ms'], 1e-9):.2f}x"))
    else:
        print(f"(no growth check: --docs {args.docs} is the smallest size measured)")
    return verdict("edit", checks)


def measure(count: int, args: argparse.Namespace) -> dict[str, float]:
    """Fill a project of ``count`` documents, build its index once, change it behind the index's
    back, then time the first write of each kind after opening and the rounds."""
    from storyloom.project.manager import ProjectManager

    generated = generate(count)
    manager = ProjectManager(username="bench")
    project = manager.create(f"edit-bench-{count}-{random.randrange(10**9)}")
    try:
        generated.fill(project)
    finally:
        project.close()
    built = _build_index(manager, project.id, generated)
    _write_while_closed(manager, project.id, generated)
    firsts = _first_writes(manager, project.id, generated)
    project = manager.open(project.id)
    try:
        result = _rounds(project, generated, args)
        result["indexed"] = len(project.editor.index)
    finally:
        project.close()
    first_kind, first_ms = max(firsts.items(), key=lambda item: item[1])
    print(f"project: {result['indexed']:,} documents indexed; index built from nothing in {built:.0f} ms "
          f"(once per project on this machine); first write after opening: "
          + ", ".join(f"{kind} {ms:.1f} ms" for kind, ms in firsts.items()))
    return result | {"first_ms": first_ms, "first_kind": first_kind, "built_ms": built}


def _build_index(manager: Any, project_id: str, generated: Generated) -> float:
    """Open the freshly filled project and build its index (what a first opening on this machine
    pays: after an import, a clone or a first pull); returns the milliseconds."""
    project = manager.open(project_id)
    try:
        started = time.perf_counter()
        project.editor.index.refresh()
        return (time.perf_counter() - started) * 1000
    finally:
        project.close()


WHILE_CLOSED = 100


def _write_while_closed(manager: Any, project_id: str, generated: Generated) -> None:
    """Change documents with plain store writes while the project is closed (as a pull or another
    process does): the next opening has to catch the index up with them."""
    project = manager.open(project_id)
    try:
        db = project.store
        docs = [db.get(doc_id) for doc_id in generated.ids_of("Variable")[-WHILE_CLOSED // 2:]]
        for doc in docs:
            doc["content"]["variables"] += "\n# changed while closed\n"
        for doc_id in generated.ids_of("Script")[-WHILE_CLOSED // 2:]:
            doc = db.get(doc_id)
            doc["content"]["script"] += "\n::B:: changed while closed"
            docs.append(doc)
        failures = [r for r in db.bulk_docs(docs) if "error" in r]
        if failures:
            raise RuntimeError(f"write failed: {failures[:3]}")
    finally:
        project.close()


def _first_writes(manager: Any, project_id: str, generated: Generated) -> dict[str, float]:
    """The first write after opening the project, in milliseconds, for three kinds of write, each
    in a fresh opening: a Script update (a parent cycle check), a Scenario update (checked
    against every variable state) and an Item created at the top level (placed after the last
    of thousands of siblings)."""
    from storyloom.project.documents import new_document

    timed: dict[str, float] = {}
    for kind in ("script update", "scenario update", "item create"):
        project = manager.open(project_id)
        try:
            db, editor = project.store, project.editor
            if kind == "item create":
                doc = new_document("Item", "first", parent=None, content={"item": "weight: 1"})
                write: Callable[[], Any] = lambda doc=doc, editor=editor: editor.create_document(doc)  # noqa: E731
            else:
                doc_type, key = ("Script", "script") if kind == "script update" else ("Scenario", "scenario")
                doc = db.get(generated.ids_of(doc_type)[0])
                doc["content"][key] += "\n" if doc_type == "Scenario" else "\n::B:: first"
                write = lambda doc=doc, editor=editor: editor.update(doc)  # noqa: E731
            started = time.perf_counter()
            write()
            timed[kind] = (time.perf_counter() - started) * 1000
        finally:
            project.close()
    return timed


def _rounds(project: Any, generated: Generated, args: argparse.Namespace) -> dict[str, float]:
    from storyloom.project.dates import now_iso
    from storyloom.project.documents import new_document

    db, editor = project.store, project.editor
    rng = random.Random(5)
    counter = itertools.count()
    pools = {t: generated.ids_of(t) for t in ("Variable", "Scenario", "Script", "Item")}
    for ids in pools.values():
        rng.shuffle(ids)
    cursors = {t: itertools.cycle(ids) for t, ids in pools.items()}
    folders = {t: generated.folder_ids(t) for t in ("Script", "Item")}

    def stamp(doc: dict[str, Any]) -> dict[str, Any]:
        doc["modified"] = now_iso()
        doc["modifiedBy"] = "bench"
        return doc

    def op(kind: str, variant: int, through_editor: bool) -> Callable[[], Callable[[], Any]]:
        """What to prepare (untimed) for one write; the preparation returns the write itself."""

        def prepare() -> Callable[[], Any]:
            if kind == "create":
                if variant == 0:
                    doc_type, parent, body = "Script", rng.choice(folders["Script"]), {"script": "::A:: hello"}
                elif variant == 1:
                    doc_type, parent = "Variable", None
                    body = {"variables": f"_sid: bench_{next(counter)}\nlevel: 1\n"}
                else:
                    doc_type, parent, body = "Item", None, {"item": "weight: 1"}
                doc = new_document(doc_type, f"new {doc_type}", parent=parent, content=body)
                if through_editor:
                    return lambda: editor.create_document(doc)
                plain = stamp(dict(doc, sortKey=f"zz{next(counter)}1", created=now_iso(), createdBy="bench"))
                return lambda: db.put(plain)
            if kind == "update":
                doc_type = ("Variable", "Scenario", "Script")[variant]
                doc = db.get(next(cursors[doc_type]))
                content = doc["content"]
                if doc_type == "Variable":
                    content["variables"] += f"\n# edited {next(counter)}\n"
                elif doc_type == "Scenario":
                    content["scenario"] += "\n"
                else:
                    content["script"] += "\n::B:: more"
                if through_editor:
                    return lambda: editor.update(doc)
                plain = stamp(copy.deepcopy(doc))
                return lambda: db.put(plain)
            doc_type = ("Script", "Item", "Script")[variant]
            doc = db.get(next(cursors[doc_type]))
            target = rng.choice([f for f in folders[doc_type] if f != doc.get("parent")] or [None])
            if through_editor:
                return lambda: editor.move(doc["_id"], target)
            plain = stamp(dict(doc, parent=target, sortKey=f"zz{next(counter)}1"))
            return lambda: db.put(plain)

        return prepare

    def run(through_editor: bool) -> tuple[float, dict[str, float], float]:
        per_kind: dict[str, float] = {}
        total = cpu = 0.0
        if through_editor:
            # The plain round's writes are another writer's: the index follows them before the
            # clock starts, so an editor round pays for its own writes only (as the plain one).
            editor.index.refresh()
        for n in range(args.writes):
            kind = ("create", "update", "move")[n % 3]
            write = op(kind, (n // 3) % 3, through_editor)()
            c0, t0 = time.process_time(), time.perf_counter()
            write()
            elapsed = time.perf_counter() - t0
            cpu += time.process_time() - c0
            total += elapsed
            per_kind[kind] = per_kind.get(kind, 0.0) + elapsed
        return total, per_kind, cpu

    editor_runs, plain_runs = [], []
    for round_no in range(args.rounds):
        order = (False, True) if round_no % 2 == 0 else (True, False)
        for through_editor in order:
            (editor_runs if through_editor else plain_runs).append(run(through_editor))

    n = args.writes
    best_editor = min(editor_runs, key=lambda r: r[0])
    best_plain = min(plain_runs, key=lambda r: r[0])
    ratios = [e[0] / p[0] for e, p in zip(editor_runs, plain_runs, strict=True)]
    ratio = statistics.median(ratios)
    per_write_ms = best_editor[0] / n * 1000  # the best round: the least disturbed by other load
    print(f"{n} writes (create + update + move) per round, {args.rounds} rounds:")
    print(f"  plain db.put: best {best_plain[0] * 1000:8.1f} ms  ({best_plain[0] / n * 1000:.2f} ms/write)")
    print(f"  editor:       best {best_editor[0] * 1000:8.1f} ms  ({best_editor[0] / n * 1000:.2f} ms/write)")
    for kind in ("create", "update", "move"):
        print(f"    {kind:<7} editor {best_editor[1][kind] * 1000:7.1f} ms  plain {best_plain[1][kind] * 1000:7.1f} ms"
              f"  ratio {best_editor[1][kind] / best_plain[1][kind]:.2f}")
    print(f"  ratio editor / plain: median {ratio:.2f} (per round: {', '.join(f'{r:.2f}' for r in ratios)})")
    # CPU time, which other processes of a shared machine do not inflate (and which leaves out
    # the waits for the disk that both sides share): information, not a target.
    cpu_ratios = [e[2] / p[2] for e, p in zip(editor_runs, plain_runs, strict=True) if p[2] > 0]
    best_cpu = min(r[2] for r in editor_runs)
    if cpu_ratios:
        print(f"  (information) CPU time editor / plain: median {statistics.median(cpu_ratios):.2f}; "
              f"editor CPU per write, best round: {best_cpu / n * 1000:.2f} ms")
    return {"ratio": ratio, "per_write_ms": per_write_ms, "cpu_per_write_ms": best_cpu / n * 1000}


if __name__ == "__main__":
    raise SystemExit(main())
