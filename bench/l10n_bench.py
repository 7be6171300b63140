"""Localization benchmark: ``storyloom l10n export`` and ``l10n import`` of a project of
100,000 translatable lines, beside a plain ``storyloom export`` of the same project.

    scripts/bench l10n [--docs 25300] [--dir DIR]
    .venv/bin/python bench/l10n_bench.py [--docs 25300] [--dir DIR] [--format po|xlf|csv]

A project of ``--docs`` documents from ``bench/generate.py`` (25,300 documents hold about 100,500
speech lines and choice options; the line count is printed and checked) is created under a
temporary ``STORYLOOM_HOME`` (deleted at the end, whatever happens). With ``--dir`` that
directory is used and kept, and a project made by an earlier run with the same ``--docs`` is
reused: generating 25,000 documents takes minutes. Its target locale is ``fr``.

Then, each as its own process, as a user runs them, with its peak RSS read by a small wrapper
process (:func:`bench.memory_bench._measure`) and its wall time:

* ``storyloom export`` of the project to a file (the reference: the streamed game export), the
  project's first (the results an earlier export kept on disk are cleared first: every script
  rendered, as the l10n export parses every script), and again at the end (with the results the
  first one kept, as every later export of the project runs);
* ``storyloom l10n export --locale fr`` to a PO file (``--format``: or XLIFF, or Godot CSV);
* ``storyloom l10n import`` of that file with every line translated (a text new to each run, so
  every run writes every Translation document);
* ``storyloom l10n export`` again, now that every line is translated (a bigger file: each entry
  carries its translation), in the format asked and in XLIFF (the format that builds the most
  per line) when another was asked;
* ``storyloom l10n vo --locale fr``: the voice-over recording script of every speech line, in
  French (CSV);
* ``storyloom export --locale fr``: the localized game export, every line translated (its Scripts
  and Dialogues transformed afresh: the memos hold no translations).

Targets (issue 25): each l10n process peaks under 300 MB RSS (an export measured before and
after the import); the file holds at least 100,000
lines (with the default ``--docs``); the import stores a translation for every line. The time
ratios to both plain exports are printed beside no target (the issue gives none): they say what
a translator's round trip costs next to a build's export. Exit status 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench import paths

paths.setup()

from bench.generate import open_or_generate  # noqa: E402
from bench.memory_bench import RSS_TARGET_MB, _measure  # noqa: E402
from bench.report import Check, check_docs, machine, storyloom_home, verdict  # noqa: E402

LINES_TARGET = 100_000
DEFAULT_DOCS = 25_300
SUFFIXES = {"po": ".po", "xlf": ".xlf", "csv": ".csv"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=DEFAULT_DOCS)
    parser.add_argument("--dir", help="STORYLOOM_HOME to use, kept afterwards, its project reused "
                        "(default: a temporary directory)")
    parser.add_argument("--format", choices=tuple(SUFFIXES), default="po", help="the translation file's format")
    args = parser.parse_args(argv)
    check_docs(args.docs)
    with storyloom_home(args.dir, "storyloom-l10n-bench-") as home:
        return run(args, Path(home))


def _project(docs: int) -> tuple[str, int, float | None]:
    """The benchmark's project (reused when an earlier run with ``--dir`` made it): its name,
    documents, and the seconds it took to write (None when reused)."""
    name = f"l10n-bench-{docs}"
    project, written = open_or_generate(name, docs)
    try:
        project.editor.update_settings({"targetLocales": ["fr"]})
        count = int(project.store.info()["doc_count"])
        from storyloom.export.cache import cache_for

        cache = cache_for(project.db)
        if cache is not None:  # the first plain export renders every script, as the l10n export parses them
            cache.clear(disk=True)
    finally:
        project.close()
    return name, count, written


def run(args: argparse.Namespace, home: Path) -> int:
    name, count, written = _project(args.docs)
    print(machine())
    print(f"project: {count:,} documents ({'reused' if written is None else f'written in {written:.1f}s'})")
    suffix = SUFFIXES[args.format]
    game = home / "l10n-bench-game.json"
    exported = home / f"l10n-bench.fr{suffix}"
    translated = home / f"l10n-bench.fr.translated{suffix}"
    checks: list[Check] = []

    code, _out, export_peak, export_time = _measure(["export", name, "-o", str(game)])
    first_time = export_time
    print(f"storyloom export, the project's first: {export_time:.1f}s, peak RSS {export_peak:.0f} MB"
          + ("" if code == 0 else f", FAILED (exit {code})"))
    if code != 0:
        return verdict("l10n", [Check("storyloom export", float("inf"), 0, "<=", "")])

    code, out, peak, elapsed = _measure(["l10n", "export", name, "--locale", "fr", "-o", str(exported)])
    found = re.search(r": ([\d,]+) lines for fr", out)
    lines = int(found.group(1).replace(",", "")) if code == 0 and found else 0
    print(f"storyloom l10n export: {elapsed:.1f}s, {lines:,} lines, {_mb(exported):.1f} MB file, "
          f"peak RSS {peak:.0f} MB" + ("" if code == 0 else f", FAILED (exit {code})"))
    checks.append(Check("l10n export: peak RSS", peak if code == 0 else float("inf"), RSS_TARGET_MB, "<=", " MB",
                        note=f"{elapsed:.1f}s"))
    if args.docs >= DEFAULT_DOCS:
        checks.append(Check("l10n export: lines", lines, LINES_TARGET, ">=", ""))
    ratios = [("l10n export", elapsed)]
    if code != 0:
        return verdict("l10n", checks)

    started = time.perf_counter()
    filled = translate(exported, translated, args.format, f"run {random.randrange(10**6)}")
    print(f"(the translator's file: {filled:,} lines filled in {time.perf_counter() - started:.1f}s, not measured)")

    code, out, peak, elapsed = _measure(["l10n", "import", name, str(translated)])
    stored = sum(int(n) for n in re.findall(r"^\s+(\d+)\s+(?:new|changed|unchanged)$", out, re.MULTILINE))
    documents = re.search(r"([\d,]+) translation documents? written", out)
    print(f"storyloom l10n import: {elapsed:.1f}s, {stored:,} lines stored in "
          f"{documents.group(1) if documents else '?'} documents, peak RSS {peak:.0f} MB"
          + ("" if code == 0 else f", FAILED (exit {code})"))
    checks.append(Check("l10n import: peak RSS", peak if code == 0 else float("inf"), RSS_TARGET_MB, "<=", " MB",
                        note=f"{elapsed:.1f}s"))
    checks.append(Check("l10n import: lines stored = lines exported", stored, filled, "==", ""))
    ratios.append(("l10n import", elapsed))

    for fmt in dict.fromkeys((args.format, "xlf")):
        again = home / f"l10n-bench.fr.again{SUFFIXES[fmt]}"
        code, out, peak, elapsed = _measure(["l10n", "export", name, "--locale", "fr", "-o", str(again)])
        print(f"storyloom l10n export, translated, {fmt}: {elapsed:.1f}s, {_mb(again):.1f} MB file, "
              f"peak RSS {peak:.0f} MB" + ("" if code == 0 else f", FAILED (exit {code})"))
        checks.append(Check(f"l10n export ({fmt}, translated): peak RSS", peak if code == 0 else float("inf"),
                            RSS_TARGET_MB, "<=", " MB", note=f"{elapsed:.1f}s"))
        ratios.append((f"l10n export ({fmt}, translated)", elapsed))
    vo = home / "l10n-bench.vo.fr.csv"
    code, out, peak, elapsed = _measure(["l10n", "vo", name, "--locale", "fr", "-o", str(vo)])
    print(f"storyloom l10n vo --locale fr: {elapsed:.1f}s, {_mb(vo):.1f} MB file, peak RSS {peak:.0f} MB"
          + ("" if code == 0 else f", FAILED (exit {code})"))
    checks.append(Check("l10n vo (translated): peak RSS", peak if code == 0 else float("inf"), RSS_TARGET_MB, "<=",
                        " MB", note=f"{elapsed:.1f}s"))
    ratios.append(("l10n vo --locale fr", elapsed))
    localized = home / "l10n-bench-game.fr.json"
    code, out, peak, elapsed = _measure(["export", name, "--locale", "fr", "-o", str(localized)])
    print(f"storyloom export --locale fr: {elapsed:.1f}s, {_mb(localized):.1f} MB file, peak RSS {peak:.0f} MB"
          + ("" if code == 0 else f", FAILED (exit {code})"))
    checks.append(Check("export --locale fr (translated): peak RSS", peak if code == 0 else float("inf"),
                        RSS_TARGET_MB, "<=", " MB", note=f"{elapsed:.1f}s"))
    ratios.append(("export --locale fr", elapsed))

    # The plain export again, last: with the results the first one kept on disk
    # (export-cache.sqlite3), as every later export of a project runs.
    code, _out, peak, again_time = _measure(["export", name, "-o", str(game)])
    print(f"storyloom export, again: {again_time:.1f}s, peak RSS {peak:.0f} MB"
          + ("" if code == 0 else f", FAILED (exit {code})"))
    print("\ntime as a ratio to the plain export, its first run / a later one (no target):")
    for verb, seconds in ratios:
        print(f"  {verb:<32} {seconds / first_time:>6.2f}x / {seconds / again_time:>6.2f}x  "
              f"({seconds:.1f}s / {first_time:.1f}s, {again_time:.1f}s)")
    return verdict("l10n", checks)


def translate(source: Path, target: Path, fmt: str, token: str) -> int:
    """Write ``source`` (an exported translation file) to ``target`` with every line translated,
    as a translator's tool would (a text new to this run, so the import writes every line); the
    lines filled."""
    from storyloom.l10n.formats import catalog_bytes, read_translation_file

    read = read_translation_file(source)
    from storyloom.l10n.catalog import Catalog, CatalogEntry

    entries = tuple(CatalogEntry(e.line_id, e.source, f"[fr {token}] {e.source}") for e in read.entries)
    catalog = Catalog("bench", read.source_locale or "en", read.target_locale or "fr", entries)
    target.write_bytes(catalog_bytes(catalog, SUFFIXES[fmt]))
    return len(entries)


def _mb(path: Path) -> float:
    return path.stat().st_size / 1e6 if path.exists() else 0.0


if __name__ == "__main__":
    sys.exit(main())
