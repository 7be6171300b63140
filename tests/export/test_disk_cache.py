"""The exporters' memo kept on disk beside the store: a later process reads the results instead of
computing them, the bytes are the same, and a stale, foreign or broken file never fails an export."""

from __future__ import annotations

import os
import re
import sqlite3
from pathlib import Path

from storyloom.drafft import import_backup
from storyloom.export.cache import ContentCache
from storyloom.export.cache import disk as disk_cache
from storyloom.export.game_export import dumps_export, export_from_docs, read_documents
from storyloom.project.manager import ProjectManager
from tests.export.helpers import GARDEN

_EXPORTED_AT = re.compile(r'"exportedAt":"[^"]*"')


def _export(project, cache: ContentCache) -> str:  # type: ignore[no-untyped-def]
    text = dumps_export(export_from_docs(read_documents(project.db), project.settings(), None, cache=cache))
    return _EXPORTED_AT.sub('"exportedAt":""', text)


def test_a_new_process_reads_the_results_kept_on_disk(storyloom_home: Path) -> None:
    project, _ = import_backup(ProjectManager(), GARDEN, name="Garden")
    try:
        path = Path(project.db.path).parent / disk_cache.FILE_NAME
        first = ContentCache(disk_cache.disk_memo_for(project.db))
        computed = _export(project, first)
        first.trim()  # the end of the export: its results are committed
        assert path.is_file()
        assert path.stat().st_mode & 0o077 == 0  # private, as the store is
        with sqlite3.connect(path) as conn:
            kinds = {row[0] for row in conn.execute("SELECT kind FROM results")}
        assert {"export:Script", "variables"} <= kinds
        later = ContentCache(disk_cache.disk_memo_for(project.db))  # as a new process has it
        assert _export(project, later) == computed
        assert later.misses == 0 and later.hits > 0
    finally:
        project.close()


def test_results_of_other_code_are_forgotten_and_a_broken_file_is_ignored(storyloom_home: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    project, _ = import_backup(ProjectManager(), GARDEN, name="Garden")
    try:
        path = Path(project.db.path).parent / disk_cache.FILE_NAME
        cache = ContentCache(disk_cache.disk_memo_for(project.db))
        expected = _export(project, cache)
        cache.trim()
        monkeypatch.setattr(disk_cache, "code_fingerprint", lambda: "another version of the code")
        other = ContentCache(disk_cache.disk_memo_for(project.db))
        assert _export(project, other) == expected
        assert other.hits == 0  # nothing computed by the other code was used
        for memo in (cache.disk, other.disk):
            assert memo is not None
            memo.close()
        for side in ("-wal", "-shm"):
            Path(f"{path}{side}").unlink(missing_ok=True)
        path.write_bytes(b"this is not an SQLite database" * 100)
        broken = ContentCache(disk_cache.disk_memo_for(project.db))
        assert _export(project, broken) == expected
        broken.trim()
        assert broken.disk is not None and broken.disk.broken
    finally:
        project.close()


def test_a_store_in_memory_has_no_disk_memo() -> None:
    from storyloom.store import Database

    assert disk_cache.disk_memo_for(Database(":memory:")) is None
    assert disk_cache.slot(("export", "Script", "doc-1", "1-a", ("x", "y"))) == ("doc-1", "export:Script")
    assert disk_cache.slot(("variables", "doc-2", "2-b")) == ("doc-2", "variables")
    assert disk_cache.slot(("anything",)) is None


def test_key_text_is_the_json_of_the_key() -> None:
    import json

    keys = [("json", "Script", "doc-1", "1-a", (("x", "y"),)), ("variables", "é\n\"\u2028\x00", "2-b"),
            ("export", "Map", "m", "3-c", ("", "")), ("a", 1, None, 2.5, True, float("nan"), [1, {"k": 2}]), "alone"]
    for key in keys:
        assert disk_cache._key_text(key) == json.dumps(key, ensure_ascii=False, separators=(",", ":"), default=str)
    for doc_id in ("doc-1", "é\n\"\\\u2028\x00"):
        assert disk_cache.revision_key_text("light", doc_id, "1-a") == disk_cache._key_text(("light", doc_id, "1-a"))



_FINGERPRINT = "from storyloom.export.cache.disk import code_fingerprint; print(code_fingerprint())"


def test_a_package_without_source_files_still_fingerprints_the_code_that_computed_the_results(tmp_path: Path) -> None:
    """A frozen or sourceless build has no .py files beside the package: the fingerprint then
    comes from the modules' compiled code, so a changed parser still makes kept results stale.
    Built here as Python builds a sourceless package: ``compileall -b``, then the sources removed."""
    import compileall
    import shutil
    import subprocess
    import sys

    src = Path(__file__).resolve().parents[2] / "src" / "storyloom"

    def sourceless(change: str = "") -> str:
        tree = tmp_path / "site"  # one path: the compiled code names its file
        shutil.rmtree(tree, ignore_errors=True)
        shutil.copytree(src, tree / "storyloom", ignore=shutil.ignore_patterns("__pycache__"))
        if change:
            lines = tree / "storyloom" / "script" / "lines.py"
            lines.write_text(lines.read_text() + change)
        assert compileall.compile_dir(tree, legacy=True, quiet=1)
        for source in (tree / "storyloom").rglob("*.py"):
            source.unlink()
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        env["PYTHONPATH"] = str(tree)
        done = subprocess.run([sys.executable, "-c", _FINGERPRINT + "; import storyloom; print(storyloom.__file__)"],
                              env=env, capture_output=True, text=True, timeout=120, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        fingerprint, where = done.stdout.split()
        assert where == str(tree / "storyloom" / "__init__.pyc")  # the sourceless copy, not the checkout
        return fingerprint

    first, again, changed = sourceless(), sourceless(), sourceless("\nCHANGED = 1\n")
    assert first == again
    assert changed != first
