"""The benchmarks cannot rot: each one's ``main`` runs here on a tiny project (a few seconds in
all), prints its targets table and returns 0 or 1; ``scripts/bench`` refuses what it does not know.
The figures themselves are docs/benchmarks.md's business, not the tests'."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from bench import edit_bench, export_bench, store_bench, sync_bench
from bench.generate import generate

pytestmark = pytest.mark.slow  # each benchmark's main on a tiny project

REPO = Path(__file__).resolve().parent.parent


def _ran(capsys: pytest.CaptureFixture[str], code: int, title: str) -> str:
    out = capsys.readouterr().out
    assert code in (0, 1), out
    assert f"{title}: " in out and " targets met" in out, out
    return out


def test_store_bench(tmp_path, capsys) -> None:
    code = store_bench.main(["--docs", "100", "--repeat", "1", "--dir", str(tmp_path)])
    out = _ran(capsys, code, "store")
    assert "write (bulk_docs)" in out


def test_edit_bench(tmp_path, capsys) -> None:
    code = edit_bench.main(["--docs", "100", "--writes", "9", "--rounds", "1", "--dir", str(tmp_path)])
    out = _ran(capsys, code, "edit")
    assert "first write after opening" in out


def test_export_bench_checks_the_planted_problems(tmp_path, capsys) -> None:
    code = export_bench.main(["--docs", "100", "--repeat", "1", "--plant", "4", "--no-processes",
                              "--dir", str(tmp_path)])
    out = _ran(capsys, code, "export")
    assert "4 warning(s)" in out
    assert "_meta.warningCount = problems planted" in out and "MISSED: _meta" not in out


def test_sync_bench(tmp_path, capsys) -> None:
    code = sync_bench.main(["--docs", "60", "--rounds", "1", "--server", "memory", "--dir", str(tmp_path)])
    out = _ran(capsys, code, "sync")
    assert "push, server in memory" in out


def test_the_generator_is_the_same_at_every_size_and_counts_what_it_plants() -> None:
    small, large = generate(1_000, plant=5), generate(30_000, plant=5)
    assert sum(1 for _ in small.docs()) == 1_000
    assert small.planted == {"script-unknown-path": 2, "unknown-state": 2, "parse-error": 1}
    # Every reference resolves past 10,000 documents too (parents, scene items, dialogue
    # scripts, kanban cards, expressions), by construction rather than by luck.
    ids, folders, refs = set(), {}, []
    for doc in large.docs():
        ids.add(doc["_id"])
        if doc["type"] == "Folder":
            folders[doc["_id"]] = doc["collection"]
        if doc.get("parent") is not None:
            refs.append(("parent", doc["parent"], doc["collection"]))
        content = doc.get("content") or {}
        refs += [("doc", item["docId"], None) for item in content.get("items", [])]
        refs += [("doc", n["data"]["scriptId"], None) for n in (content.get("tree") or {}).get("nodes", [])
                 if n["data"].get("scriptId")]
        refs += [("doc", e["_id"], None) for e in content.get("expressions", [])]
    assert len(ids) == 30_000
    for kind, target, collection in refs:
        if kind == "parent":
            assert folders.get(target) == collection, target
        else:
            assert target in ids, target


@pytest.mark.integration
def test_scripts_bench_refuses_an_unknown_benchmark() -> None:
    result = subprocess.run([str(REPO / "scripts" / "bench"), "nope"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "no benchmark named 'nope'" in result.stderr and "store" in result.stderr


@pytest.mark.parametrize("count", [29, 1_000])
def test_every_speaker_of_a_generated_script_is_an_actor(count: int) -> None:
    """`storyloom check` flags a speaker who is not an actor: the generator's scripts speak only
    the names of its Actor documents, at the smallest size too (two Actors)."""
    from storyloom.project import speaker_key
    from storyloom.script import SpeechLine, parse_script

    docs = list(generate(count).docs())
    actors = {speaker_key(d["name"]) for d in docs if d["type"] == "Actor"}
    speakers = {speaker_key(line.actor) for d in docs if d["type"] == "Script"
                for line in parse_script(d["content"]["script"]).lines if isinstance(line, SpeechLine)}
    assert speakers and speakers <= actors


def test_l10n_bench(tmp_path, capsys) -> None:
    from bench import l10n_bench

    code = l10n_bench.main(["--docs", "100", "--dir", str(tmp_path)])
    out = _ran(capsys, code, "l10n")
    assert code == 0, out
    assert "l10n import: lines stored = lines exported" in out and "time as a ratio to the plain export" in out


def test_memory_bench_slope_misses_a_verb_that_grows_per_document(capsys) -> None:
    from bench import memory_bench
    from bench.report import verdict

    mib = 1024  # KiB
    peaks = {
        "flat": {10_000: memory_bench.Peak(60 * mib, 1.0), 50_000: memory_bench.Peak(64 * mib, 2.0)},
        "steep": {10_000: memory_bench.Peak(60 * mib, 1.0), 50_000: memory_bench.Peak(100 * mib, 2.0)},
    }
    checks = {check.name.split(":")[0]: check for check in memory_bench.slope_checks(peaks)}
    assert round(checks["flat"].value, 4) == 0.1024 and checks["flat"].ok  # 4 MiB over 40,000 documents
    assert round(checks["steep"].value, 4) == 1.024 and not checks["steep"].ok
    assert verdict("memory", list(checks.values())) == 1
    assert "1.02 KB target <= 0.2 KB   MISSED" in capsys.readouterr().out
    assert verdict("memory", [checks["flat"]]) == 0


def test_memory_bench_prints_each_verbs_slope(tmp_path, capsys) -> None:
    from bench import memory_bench

    code = memory_bench.main(["--docs", "200", "--small", "100", "--dir", str(tmp_path),
                              "--only", "dump", "--only", "restore"])
    out = _ran(capsys, code, "memory")
    for verb in ("dump", "restore"):
        assert f"{verb}: KB per document (100 to 200)" in out
        assert f"{verb} at 200: peak RSS" in out
    assert "restore at 200: documents restored = the project's" in out
    assert "KB per document (target 0.2 KB)" in out and "export" not in out
