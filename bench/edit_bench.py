"""Editing benchmark: editor writes in a 10,000-document project against plain store writes.

    .venv/bin/python bench/edit_bench.py [--docs 10000] [--writes 200] [--rounds 3] [--dir DIR]

A project is created under a temporary ``STORYLOOM_HOME`` and filled with the export
benchmark's generated documents (``export_bench.make_docs``: all 15 collections, about 5%
folders, 680 Variables with unique ``_sid``s, 680 Scenarios over them, ...), written straight to
the store. The editor's project index is then built once (timed and printed on its own: it is
paid once per opened project, on the first write).

Each round times ``--writes`` writes, a third each of:

* create: a Script in a Script folder, a Variable with a new ``_sid`` (duplicate check), an
  Item at the top level of its collection (about 240 siblings);
* update: a Variable (new value, same ``_sid``: duplicate check), a Scenario (its overrides are
  checked against every variable state), a Script;
* move: a Script or an Item into another folder of its collection (placement, cycle check),

once through the editing service (placement, stamping, validation, the gate) and once as the
same writes done with plain ``db.put`` calls (the documents already built: no placement, no
validation), in the same process, on distinct documents of the same kinds. The documents an
update or a move starts from are read before the clock starts, for both. The figure is the
ratio editor time / plain time (best round of each); ``--rounds`` rounds alternate the two.
"""

from __future__ import annotations

import argparse
import copy
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent / "src"))
sys.path.insert(0, str(ROOT))



def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=10_000)
    parser.add_argument("--writes", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--dir", help="STORYLOOM_HOME to use (default: a temporary directory)")
    args = parser.parse_args()

    home = args.dir or tempfile.mkdtemp(prefix="storyloom-edit-bench-")
    os.environ["STORYLOOM_HOME"] = home

    from export_bench import make_docs
    from storyloom.project.dates import now_iso
    from storyloom.project.documents import new_document
    from storyloom.project.manager import ProjectManager

    manager = ProjectManager(username="bench")
    project = manager.create(f"edit-bench-{random.randrange(10**9)}")
    db, editor = project.store, project.editor
    docs = make_docs(args.docs)
    for i in range(0, len(docs), 500):
        failures = [r for r in db.bulk_docs(docs[i : i + 500]) if "error" in r]
        if failures:
            raise SystemExit(f"write failed: {failures[:3]}")
    start = time.perf_counter()
    editor.index.refresh()
    build = time.perf_counter() - start
    print(f"project: {db.info()['doc_count']} documents; index built in {build * 1000:.0f} ms "
          f"({len(editor.index)} documents, once per opened project)")

    rng = random.Random(5)
    by_type: dict[str, list[str]] = {}
    folders: dict[str, list[str]] = {}
    for doc in docs:
        if doc["type"] == "Folder":
            folders.setdefault(doc["collection"], []).append(doc["_id"])
        else:
            by_type.setdefault(doc["type"], []).append(doc["_id"])
    for ids in by_type.values():
        rng.shuffle(ids)
    sid_counter = iter(range(10**9))

    def take(doc_type: str) -> dict[str, Any]:
        """A document nobody has written in the benchmark yet (read before timing)."""
        return db.get(by_type[doc_type].pop())

    def stamp(doc: dict[str, Any]) -> dict[str, Any]:
        doc["modified"] = now_iso()
        doc["modifiedBy"] = "bench"
        return doc

    def build_ops(count: int) -> tuple[list[tuple[str, Callable[[], Any]]], list[tuple[str, Callable[[], Any]]]]:
        """The same writes twice: through the editor, and as plain puts (on other documents)."""
        editor_ops: list[tuple[str, Callable[[], Any]]] = []
        plain_ops: list[tuple[str, Callable[[], Any]]] = []
        for n in range(count):
            kind = ("create", "update", "move")[n % 3]
            variant = (n // 3) % 3
            for ops, through_editor in ((editor_ops, True), (plain_ops, False)):
                ops.append((kind, make_op(kind, variant, through_editor)))
        return editor_ops, plain_ops

    def make_op(kind: str, variant: int, through_editor: bool) -> Callable[[], Any]:
        if kind == "create":
            if variant == 0:
                doc_type, parent, body = "Script", rng.choice(folders["Script"]), {"script": "::A:: hello"}
            elif variant == 1:
                doc_type, parent = "Variable", None
                body = {"variables": f"_sid: bench_{next(sid_counter)}\nlevel: 1\n"}
            else:
                doc_type, parent, body = "Item", None, {"item": "weight: 1"}
            doc = new_document(doc_type, f"new {doc_type}", parent=parent, content=body)
            if through_editor:
                return lambda: editor.create_document(doc)
            plain = stamp(dict(doc, sortKey="zz" + str(next(sid_counter)) + "1", created=now_iso(),
                               createdBy="bench"))
            return lambda: db.put(plain)
        if kind == "update":
            doc_type = ("Variable", "Scenario", "Script")[variant]
            doc = take(doc_type)
            if doc_type == "Variable":
                doc["content"]["variables"] = doc["content"]["variables"].replace("level: 1", "level: 2")
            elif doc_type == "Scenario":
                doc["content"]["scenario"] = doc["content"]["scenario"] + "\n"
            else:
                doc["content"]["script"] = doc["content"]["script"] + "\n::B:: more"
            if through_editor:
                return lambda: editor.update(doc)
            plain = stamp(copy.deepcopy(doc))
            return lambda: db.put(plain)
        doc_type = ("Script", "Item", "Script")[variant]
        doc = take(doc_type)
        target = rng.choice([f for f in folders[doc_type] if f != doc.get("parent")])
        if through_editor:
            return lambda: editor.move(doc["_id"], target)
        plain = stamp(dict(doc, parent=target, sortKey="zz" + str(next(sid_counter)) + "1"))
        return lambda: db.put(plain)

    def run(ops: list[tuple[str, Callable[[], Any]]]) -> tuple[float, dict[str, float]]:
        per_kind: dict[str, float] = {}
        total = 0.0
        for kind, op in ops:
            t0 = time.perf_counter()
            op()
            elapsed = time.perf_counter() - t0
            total += elapsed
            per_kind[kind] = per_kind.get(kind, 0.0) + elapsed
        return total, per_kind

    editor_runs: list[tuple[float, dict[str, float]]] = []
    plain_runs: list[tuple[float, dict[str, float]]] = []
    for _ in range(args.rounds):
        editor_ops, plain_ops = build_ops(args.writes)
        plain_runs.append(run(plain_ops))
        editor_runs.append(run(editor_ops))

    best_editor = min(editor_runs, key=lambda r: r[0])
    best_plain = min(plain_runs, key=lambda r: r[0])
    n = args.writes
    print(f"{n} writes (create + update + move), best of {args.rounds} rounds:")
    print(f"  plain db.put:   {best_plain[0] * 1000:8.1f} ms  ({best_plain[0] / n * 1000:.2f} ms/write)")
    print(f"  editor:         {best_editor[0] * 1000:8.1f} ms  ({best_editor[0] / n * 1000:.2f} ms/write)")
    for kind in ("create", "update", "move"):
        print(f"    {kind:<7} editor {best_editor[1][kind] * 1000:7.1f} ms  plain {best_plain[1][kind] * 1000:7.1f} ms"
              f"  ratio {best_editor[1][kind] / best_plain[1][kind]:.2f}")
    ratios = [e[0] / p[0] for e, p in zip(editor_runs, plain_runs, strict=True)]
    print(f"ratio editor / plain: {best_editor[0] / best_plain[0]:.2f} "
          f"(per round: {', '.join(f'{r:.2f}' for r in ratios)}; median {statistics.median(ratios):.2f})")
    project.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
