"""The streamed export and schema (storyloom.export.stream) give exactly the bytes of the built
ones: every fixture project, every selection, compact and indented, compatibility modes."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from storyloom.drafft import import_backup
from storyloom.export.cache import cache_for
from storyloom.export.game_export import build_game_export, dumps_export
from storyloom.export.schema_export import build_export_and_schema, build_schema
from storyloom.export.stream import encode_value, stream_game_export, stream_schema, write_game_export
from storyloom.progress import Progress
from storyloom.project.collections import EXPORT_NAMES, FOLDER_TYPE
from storyloom.project.manager import ProjectManager
from tests.export.helpers import GARDEN, PROJECT_FILES, MemoryProject, doc, settings_doc, variable

_IDS = [f"{p.parent.name}/{p.name}" for p in PROJECT_FILES]
_EXPORTED_AT = re.compile(r'"exportedAt": ?"[^"]*"')


def _without_time(text: str) -> str:
    blanked, count = _EXPORTED_AT.subn('"exportedAt":""', text)
    assert count == 1
    return blanked


def _streamed(project: Any, *args: Any, **kwargs: Any) -> str:
    out = io.BytesIO()
    write_game_export(out, project, *args, **kwargs)
    return out.getvalue().decode("utf-8")


@pytest.mark.parametrize("path", PROJECT_FILES, ids=_IDS)
@pytest.mark.slow
def test_streamed_export_and_schema_equal_the_built_ones(path: Path) -> None:
    project, _ = import_backup(ProjectManager(), path)
    try:
        for collections in (None, ",".join(EXPORT_NAMES), "Scripts,Actors,GDD"):
            for indent in (None, 2):
                for cold in (True, False):
                    if cold:
                        cache = cache_for(project.db)
                        assert cache is not None
                        cache.clear()
                    built = dumps_export(build_game_export(project, collections, "tester"), indent)
                    streamed = _streamed(project, collections, "tester", indent=indent)
                    assert _without_time(streamed) == _without_time(built), (collections, indent, cold)
            assert stream_schema(project, collections) == build_schema(project, collections)
        export, schema = build_export_and_schema(project, None, exported_by="tester", compat="drafft")
        with stream_game_export(project, None, "tester", compat="drafft", with_schema=True) as streamed:
            text = b"".join(streamed.chunks()).decode("utf-8")
            assert streamed.schema == schema
            assert streamed.meta["warningCount"] == export["_meta"]["warningCount"]
        assert _without_time(text) == _without_time(dumps_export(export))
    finally:
        project.close()


def test_stream_reports_progress_and_counts_documents() -> None:
    project, _ = import_backup(ProjectManager(), GARDEN)
    events: list[Progress] = []
    try:
        with stream_game_export(project, ",".join(EXPORT_NAMES), "tester", progress=events.append) as streamed:
            export = json.loads(b"".join(streamed.chunks()))
            exported = [d for key, docs in export.items() if key != "_meta" for d in docs]
            folders = sum(1 for d in exported if d.get("type") == FOLDER_TYPE)
            listed = len(exported)
            assert streamed.documents == listed - folders > 0
        schema_events: list[Progress] = []
        stream_schema(project, None, progress=schema_events.append)
    finally:
        project.close()
    assert events[-1].phase == "export" and events[-1].finished
    assert events[-1].done == events[-1].total > 0
    assert schema_events[-1].phase == "schema" and schema_events[-1].done == schema_events[-1].total > 0


def test_an_in_memory_project_streams_the_same_bytes() -> None:
    """A project over an in-memory Database (the tests' stand-in) streams the same bytes, floats
    of every spelling included."""
    docs = [
        settings_doc(),
        variable("var-1", "_sid: hero\nhp: 3"),
        doc("Script", "script-1", content={"script": "HERO: hello ${variables.hero.hp}\n@set variables.hero.hp = 4"}),
        doc(FOLDER_TYPE, "folder-1", collection="Script"),
        doc("Actor", "actor-1", content={"properties": "a: 1"}),
        # Floats orjson spells otherwise than the stdlib, in a stored body and in parsed text.
        doc("Grid", "grid-1", content={"x": 1.5e-05, "y": 1e20, "z": [0.5, -0.0, 1e-300]}),
        doc("Misc", "misc-1", content={"properties": "small: 0.00001\nlarge: 1e+17"}),
    ]
    project = MemoryProject(docs)
    for indent in (None, 2):
        built = dumps_export(build_game_export(project, None, "t"), indent)
        assert "1e-05" in built and "1e+20" in built and "1e+17" in built
        assert _without_time(_streamed(project, None, "t", indent=indent)) == _without_time(built)


@pytest.mark.parametrize("value", [
    {"b": 1, "a": [1.5e-05, 1e16, 0.0001, -0.0, 1e300, 2**70, "é\u2028\x00"]},
    {"x": {"é": {}, "a": []}, "s": "x,1e5 [0.00001"},
    {"n": None, "t": True, "f": 0.1},
])
@pytest.mark.parametrize("indent", [None, 2])
def test_encode_value_spells_json_as_the_stdlib(value: Any, indent: int | None) -> None:
    expected = dumps_export(value, indent)[:-1]
    assert encode_value(value, indent).decode("utf-8") == expected


def test_encode_value_refuses_nan_and_infinity() -> None:
    for bad in (float("nan"), float("inf")):
        with pytest.raises(ValueError):
            encode_value({"a": [bad]})


@pytest.mark.parametrize("pretty", [False, True])
def test_cli_export_file_and_app_export_equal_the_built_export(pretty: bool, tmp_path: Path) -> None:
    from storyloom.app.export_files import ExportChoices, export_game_content, export_schema
    from storyloom.cli.main import main

    project, _ = import_backup(ProjectManager(), GARDEN, name="Garden")
    project.close()
    out = tmp_path / "game.json"
    args = ["export", "Garden", "-o", str(out), "--collections", ",".join(EXPORT_NAMES), "--quiet"]
    assert main(args + (["--pretty"] if pretty else [])) == 0
    schema_out = tmp_path / "schema.json"
    assert main(["schema", "Garden", "-o", str(schema_out), "-q"] + (["--pretty"] if pretty else [])) == 0
    indent = 2 if pretty else None
    project = ProjectManager().open("Garden")
    try:
        built = dumps_export(build_game_export(project, list(EXPORT_NAMES), "tester"), indent)
        assert _without_user(_without_time(out.read_text(encoding="utf-8"))) == _without_user(_without_time(built))
        assert schema_out.read_text(encoding="utf-8") == dumps_export(build_schema(project, None), indent)
        events: list[Progress] = []
        app_out = tmp_path / "app.json"
        result = export_game_content(project, ExportChoices(str(app_out), list(EXPORT_NAMES), pretty=pretty),
                                     exported_by="tester", on_progress=events.append)
        assert _without_time(app_out.read_text(encoding="utf-8")) == _without_time(built)
        assert result.files == [(str(app_out), app_out.stat().st_size)]
        assert events[-1].phase == "export" and events[-1].finished and events[-1].done == events[-1].total
        schema_events: list[Progress] = []
        export_schema(project, ExportChoices(str(tmp_path / "app.schema.json"), pretty=pretty),
                      on_progress=schema_events.append)
        assert (tmp_path / "app.schema.json").read_text(encoding="utf-8") == schema_out.read_text(encoding="utf-8")
        assert schema_events[-1].phase == "schema" and schema_events[-1].finished
    finally:
        project.close()


_EXPORTED_BY = re.compile(r'"exportedBy": ?(?:"[^"]*"|null)')


def _without_user(text: str) -> str:
    """The CLI writes the workspace's user name; the built export here names ``tester``."""
    return _EXPORTED_BY.sub('"exportedBy":""', text)


def test_lone_surrogates_are_exported_as_escapes_in_valid_utf8(tmp_path: Path) -> None:
    """UTF-8 cannot hold a lone surrogate (JavaScript and JSON can: ``"\\ud800"``): the built and
    the streamed export write it as its escape, read back as the same string, the rest of the
    text as UTF-8."""
    odd = "half \ud800 of a pair, é"
    manager = ProjectManager(root=tmp_path)
    project = manager.create("Odd")
    with project:
        project.editor.create("Item", odd)
        built = dumps_export(build_game_export(project, None, "t"))
        streamed = _streamed(project, None, "t")
    assert _without_time(streamed) == _without_time(built)
    assert "\\ud800" in built and "é" in built
    items = json.loads(built.encode("utf-8"))["items"]
    assert [item["name"] for item in items] == [odd]


def test_the_schema_keeps_nothing_for_documents_it_does_not_look_into(tmp_path: Path) -> None:
    # Issue 28: the schema pass kept the light fields and the collection of every document
    # (about 1 KB a document with the rest); it now keeps only those of the collections it reads.
    import gc
    import tracemalloc

    from bench.generate import generate

    manager = ProjectManager(root=tmp_path, username="t")

    def peak(count: int) -> int:
        project = manager.create(f"p{count}")
        with project:
            store = project.store
            for batch in generate(count).batches(500):
                # Scripts only: documents the schema never looks into.
                store.bulk_docs([d for d in batch if d["type"] == "Script"])
            gc.collect()
            tracemalloc.start()
            try:
                stream_schema(project)
                return tracemalloc.get_traced_memory()[1]
            finally:
                tracemalloc.stop()

    small, large = peak(1_000), peak(6_000)
    scripts = sum(1 for d in generate(6_000).docs() if d["type"] == "Script") - sum(
        1 for d in generate(1_000).docs() if d["type"] == "Script")
    assert (large - small) / scripts < 100  # bytes a document


def test_an_export_keeps_nothing_in_memory_for_every_document(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    # Issue 28: the light fields, the collection and the tree node of every document (about
    # 1.3 KB a document) wait in a temporary SQLite table. The buffers that are bounded whatever
    # the size (the spools, the memo in memory and its pending writes, the speech lines' memo)
    # are made small here, so that only what grows with the project shows.
    import gc
    import tracemalloc

    from bench.generate import generate

    from storyloom.export import stream as stream_module
    from storyloom.export.cache import disk as disk_module
    from storyloom.export.cache.memo import ContentCache
    from storyloom.script import line_ids

    monkeypatch.setattr(stream_module, "SPOOL_IN_MEMORY", 4096)
    monkeypatch.setattr(disk_module, "PENDING_BYTES", 4096)
    monkeypatch.setattr(ContentCache, "MEMORY_BYTES_WITH_DISK", 0)
    monkeypatch.setattr(line_ids, "_MEMO_LIMIT", 100)
    manager = ProjectManager(root=tmp_path, username="t")

    def peak(count: int) -> int:
        project = manager.create(f"p{count}")
        with project:
            generate(count).fill(project)
            gc.collect()
            tracemalloc.start()
            try:
                with stream_game_export(project) as export:
                    for _ in export.chunks():
                        pass
                return tracemalloc.get_traced_memory()[1]
            finally:
                tracemalloc.stop()

    # What is left per document: the Variables the export reads whole (a twentieth of the
    # documents) and the paths of the folders.
    small, large = peak(1_000), peak(4_000)
    assert (large - small) / 3_000 < 400  # bytes a document (about 1,000 before)
