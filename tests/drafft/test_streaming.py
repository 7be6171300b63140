"""A large import or restore is read as a stream and written in batches: each batch is checked
against the whole backup, so batches change nothing in what is imported or reported."""

from __future__ import annotations

import codecs
import json
from pathlib import Path
from typing import Any

import ijson
import pytest

from storyloom.drafft import import_backup
from storyloom.progress import Progress
from storyloom.project import bulk
from storyloom.project.manager import BackupError, ProjectManager, read_dump, read_dump_rows

from .conftest import fixture_path


def test_the_c_parser_reads_backups() -> None:
    # The pure-Python backend reads a large backup ten times slower.
    assert ijson.backend == "yajl2_c"


def _imported(manager: ProjectManager, path: Path, name: str) -> tuple[dict[str, Any], list[Any]]:
    project, report = import_backup(manager, path, name)
    with project:
        rows = project.db.all_docs(include_docs=True, attachments=True)["rows"]
    result = report.to_dict()
    result.pop("projectId")
    result.pop("projectName")
    docs = [{k: v for k, v in row["doc"].items() if row["id"] != "ProjectSettings" or k not in ("_rev", "projectId",
                                                                                                "projectName")}
            for row in rows]
    return result, docs


@pytest.mark.parametrize("key", ["garden", "gof-v1", "one-bullet"])
@pytest.mark.slow
def test_batches_of_one_import_what_one_batch_imports(manager: ProjectManager, key: str,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    whole = _imported(manager, fixture_path(key), "Whole")
    monkeypatch.setattr(bulk, "BATCH_SIZE", 1)
    assert _imported(manager, fixture_path(key), "Batched") == whole


def _row(doc: dict[str, Any]) -> dict[str, Any]:
    return {"id": doc["_id"], "key": doc["_id"], "value": {"rev": doc["_rev"]}, "doc": doc}


def test_a_restore_in_batches_checks_each_batch_against_the_whole_backup(
        manager: ProjectManager, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = manager.create("Source")
    folder = project.editor.create("Folder", "Chapter", collection="Script").doc
    script = project.editor.create("Script", "Scene", parent=folder["_id"]).doc
    backup = manager.backup(project, tmp_path / "source.json")
    project.close()
    dump = json.loads(backup.read_text(encoding="utf-8"))
    # The folder after its script: in batches of one, the folder is not written yet when the
    # script is checked; its parent must still be known as a folder of the same collection.
    dump["rows"].sort(key=lambda row: row["id"] != script["_id"])
    backup.write_text(json.dumps(dump), encoding="utf-8")
    monkeypatch.setattr(bulk, "BATCH_SIZE", 1)
    events: list[Progress] = []
    with manager.restore(backup, "Copy", new_id=True, progress=events.append) as copy:
        assert copy.db.get(script["_id"])["parent"] == folder["_id"]
    total = len(dump["rows"])
    # The index is built last (the staging's end), under the same bar.
    assert events[-1] == Progress("restore", total, total, detail="indexing", finished=True)

    # A parent that is a Script, not a folder, further on in the file: refused as one batch would.
    scene = next(r["doc"] for r in dump["rows"] if r["id"] == script["_id"])
    bad = dict(dump, rows=[*dump["rows"], _row({**scene, "_id": "late-child", "parent": "zz-late-script"}),
                           _row({**scene, "_id": "zz-late-script", "parent": None})])
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad), encoding="utf-8")
    with pytest.raises(BackupError, match=r"late-child.*is a Script, not a folder"):
        manager.restore(path, "Bad", new_id=True)
    assert [p.name for p in manager.list()] == ["Copy", "Source"]


def test_the_stream_reads_a_byte_order_mark_and_says_what_is_wrong(tmp_path: Path) -> None:
    dump = {"total_rows": 1, "offset": 0, "rows": [{"id": "a", "key": "a", "doc": {"_id": "a", "n": 1.5}}]}
    path = tmp_path / "bom.json"
    path.write_bytes(codecs.BOM_UTF8 + json.dumps(dump).encode())
    assert read_dump(path) == dump["rows"]
    path.write_text(json.dumps({"total_rows": 1, "rows": {"a": 1}}), encoding="utf-8")
    with pytest.raises(Exception, match='a JSON object with a "rows" array'):
        list(read_dump_rows(path))
    path.write_text('{"rows": [{"id": "a", "doc": {"_id": "a"}}, {"id": "b", "doc": {"_id": "b"}} oops',
                    encoding="utf-8")
    rows = read_dump_rows(path)
    with pytest.raises(Exception, match="the file is not JSON"):
        list(rows)


def test_a_backup_document_without_an_id_is_refused_as_before(manager: ProjectManager, tmp_path: Path) -> None:
    project = manager.create("Source")
    backup = manager.backup(project, tmp_path / "source.json")
    project.close()
    dump = json.loads(backup.read_text(encoding="utf-8"))
    dump["rows"].append({"id": "x", "key": "x", "value": {"rev": "1-a"},
                         "doc": {"_rev": "1-a", "type": "Script", "collection": "Script", "name": "no id"}})
    backup.write_text(json.dumps(dump), encoding="utf-8")
    with pytest.raises(BackupError, match="1 document\\(s\\) cannot be restored"):
        manager.restore(backup, "Copy", new_id=True)
    assert [p.name for p in manager.list()] == ["Source"]


def test_lone_surrogates_survive_the_stream(manager: ProjectManager, tmp_path: Path) -> None:
    """The C parser reads a lone surrogate escape as "?": a file holding one is streamed by the
    Python parser, so the text arrives exactly (JavaScript writes an unpaired half as \\ud800)."""
    from storyloom.project.manager import _SurrogateWatch

    odd = "half \ud800 of a pair, then a whole one \U0001F600 and a low half \udc00"
    project = manager.create("Source")
    item_id = project.editor.create("Item", "Cup").doc["_id"]
    backup = manager.backup(project, tmp_path / "source.json")
    project.close()
    dump = json.loads(backup.read_text(encoding="utf-8"))
    for row in dump["rows"]:
        if row["id"] == item_id:
            row["doc"]["name"] = odd
    text = json.dumps(dump)  # ensure_ascii: every surrogate and the emoji as \u escapes
    assert "\\ud800" in text
    backup.write_text(text, encoding="utf-8")
    assert [row["doc"]["name"] for row in read_dump_rows(backup) if row["id"] == item_id] == [odd]
    restored = manager.restore(backup, "Copy", new_id=True)
    with restored:
        assert restored.db.get(item_id)["name"] == odd
    # Only a file with a surrogate escape goes to the slower parser; with reads of 7 bytes the
    # escapes straddle two reads.
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps({"rows": [{"id": "a", "doc": {"_id": "a", "t": "\u00e9\ue000"}}]}), encoding="utf-8")
    for chunk in (1 << 20, 7):
        for path, expected in ((plain, False), (backup, True)):
            with path.open("rb") as handle:
                watched = _SurrogateWatch(handle)
                while watched.read(chunk):
                    pass
                assert watched.found is expected, (path.name, chunk)


def _drafft_rows(count: int) -> list[dict[str, Any]]:
    """A Drafft backup's rows: folders of 50 Scripts each, listed in the folders' children."""
    rows = []
    for folder_no in range(count // 50):
        folder_id = f"folder-{folder_no:05d}"
        children = [f"script-{folder_no:05d}-{i:02d}" for i in range(49)]
        rows.append(_row({"_id": folder_id, "_rev": "1-a", "type": "Folder", "collection": "Script",
                          "name": f"Chapter {folder_no}", "children": [{"_id": c} for c in children]}))
        rows += [_row({"_id": child, "_rev": "1-a", "type": "Script", "collection": "Script",
                       "name": f"Scene {child}", "created": 1700000000000, "content": {"script": "Hello."}})
                 for child in reversed(children)]
    return rows


def test_an_import_keeps_nothing_per_document_in_memory_while_it_converts() -> None:
    # Issue 28: what the conversion keeps per document (summaries, labels, digests, the folders'
    # children) waits on disk; in dicts it was about 1 KB a document, 500 MB at 500,000.
    import gc
    import tracemalloc

    from storyloom.drafft.convert import Converter
    from storyloom.project import FileSpool

    def held(count: int) -> int:
        rows = _drafft_rows(count)
        gc.collect()
        tracemalloc.start()
        try:
            converter = Converter(source="big.json", project_id="p", spool=FileSpool())
            for row in rows:
                converter.add(row)
            converter.finish()
            docs = converter.docs()
            folder, last = next(docs), next(docs)  # the folder's last child, first in the backup
            assert folder["parent"] is None and last["parent"] == folder["_id"]
            assert last["sortKey"] > next(docs)["sortKey"]  # the children array's order
            docs.close()
            gc.collect()
            size = tracemalloc.get_traced_memory()[0]
            converter.release()
            return size
        finally:
            tracemalloc.stop()

    small, large = held(500), held(2_500)
    assert (large - small) / 2_000 < 100  # bytes a document

