"""The Localization view's reads on a generated project (``bench.generate``), against the
catalog of one locale measured in the same run (``storyloom.l10n.gather.catalog``, what
``storyloom l10n export`` reads):

- **the first read** (``storyloom.app.views.localization.load``) of every line for two target
  locales: each document is read once for both, so it costs about one catalog, not two;
- **a changed document read again** (a source edit, a teammate's translation) when the tree is
  as it was: the last read's places and speakers are kept, so it costs a document's read, not a
  walk of the whole tree.

``.venv/bin/python bench/l10n_view_bench.py [--docs 10000] [--repeat 3]``; docs/benchmarks.md
quotes a run.
"""

from __future__ import annotations

import argparse
import sys
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


def _best(fn: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dir", help="STORYLOOM_HOME to use and keep (default: a temporary one)")
    args = parser.parse_args(argv)
    check_docs(args.docs)

    from storyloom.app.views.localization import load
    from storyloom.l10n.gather import catalog
    from storyloom.project import ProjectManager

    with storyloom_home(args.dir, "storyloom-l10n-view-bench-"):
        manager = ProjectManager(username="bench")
        project = manager.create(f"l10n-view-bench-{args.docs}")
        try:
            generate(args.docs).fill(project)
            project.editor.update_settings({"targetLocales": ["fr", "de"]})
            catalog(project, "fr")  # warm the store's caches for both
            one = _best(lambda: catalog(project, "fr"), args.repeat)
            first = _best(lambda: load(project), args.repeat)
            loaded = load(project)
            some = frozenset(doc_id for doc_id, _path, _type in loaded.places[:1])
            walked = _best(lambda: load(project, some), args.repeat * 5)
            kept = _best(lambda: load(project, some, loaded, loaded.speakers), args.repeat * 5)
            lines = sum(len(rows) for rows in loaded.rows["fr"].values())
        finally:
            project.close()
    print(f"l10n view: {args.docs:,} documents, {lines:,} lines, 2 target locales; {machine()}")
    print(f"  catalog of one locale  {one * 1000:8.0f} ms (the reference)")
    print(f"  first read, 2 locales  {first * 1000:8.0f} ms")
    print(f"  one document, walked   {walked * 1000:8.1f} ms")
    print(f"  one document, kept     {kept * 1000:8.1f} ms")
    return verdict("l10n view", [
        Check("first read of 2 locales / one catalog", first / one, 1.5),
        Check("one document read again / one catalog", kept / one, 0.02),
    ])


if __name__ == "__main__":
    sys.exit(main())
