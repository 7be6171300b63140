"""The streamed export's memo of each exported document's JSON per revision: a kept document is
copied with its current place in the tree and its body is not read, and the bytes stay exactly
those of the built export when what a document's exported form depends on changes without its
revision changing (its parent's children, the Attachment documents, the other Variables, the
export mappings), and for documents orjson would spell otherwise (never kept)."""

from __future__ import annotations

import io
import re
from typing import Any

import pytest

from storyloom.export import stream
from storyloom.export.cache import cache_for
from storyloom.export.game_export import build_game_export, dumps_export
from storyloom.export.stream import write_game_export
from storyloom.project.collections import FOLDER_TYPE
from storyloom.project.manager import ProjectManager
from tests.export.helpers import doc, variable

_EXPORTED_AT = re.compile(r'"exportedAt":"[^"]*"')


def _without_time(text: str) -> str:
    return _EXPORTED_AT.sub('"exportedAt":""', text)


def _streamed(project: Any) -> str:
    out = io.BytesIO()
    write_game_export(out, project, None, "tester")
    return out.getvalue().decode("utf-8")


def _built(project: Any) -> str:
    return dumps_export(build_game_export(project, None, "tester"))


@pytest.fixture
def project() -> Any:
    project = ProjectManager(username="tester").create("Memo")
    docs = [
        doc(FOLDER_TYPE, "folder-a", collection="Script", sortKey="V"),
        doc(FOLDER_TYPE, "folder-b", collection="Script", sortKey="k"),
        doc("Script", "script-1", parent="folder-a", sortKey="V",
            content={"script": "::HERO::I have ${variables.hero.hp} hp"}),
        doc("Script", "script-2", parent="folder-a", sortKey="a", content={"script": "::HERO::second"}),
        doc("Actor", "actor-1", content={"properties": "age: 3",
                                         "expressions": [{"name": "smile", "_id": "att-1"}]}),
        doc("Gdd", "gdd-1", content={"gdd": "![face](storyloom://image/att-1)"}),
        variable("var-1", "_sid: hero\nhp: 3"),
        variable("var-2", "_sid: hero\nhp: 9"),
        # Stored values orjson writes otherwise than the stdlib (a tiny float, an integer beyond
        # 64 bits), and a parsed property text with a float the stdlib writes with an exponent.
        doc("Grid", "grid-1", content={"x": 1.5e-07, "big": 2**70, "low": -(2**63) - 1, "y": [0.5, 1e20]}),
        doc("Misc", "misc-1", content={"properties": "small: 0.00001\nlarge: 1e+17"}),
        doc("Item", "item-1", content={"item": "weight: 2"}),
    ]
    for item in docs:
        project.store.put(item)
    try:
        yield project
    finally:
        project.close()


def _same_as_built(project: Any) -> str:
    """The streamed export, cold (memo in memory emptied: read from disk) and warm, equals the
    built one; returns it."""
    cache = cache_for(project.db)
    assert cache is not None
    built = _without_time(_built(project))
    cache.clear()
    cold = _without_time(_streamed(project))
    assert cold == built
    assert _without_time(_streamed(project)) == built  # warm
    return built


def test_kept_documents_follow_what_they_depend_on(project: Any) -> None:
    text = _same_as_built(project)
    assert '"children":["script-1","script-2"]' in text
    assert "1.5e-07" in text and "1e+20" in text and "1e+17" in text
    # Integers beyond 64 bits stay exact (orjson would read them as floats).
    assert f'"big":{2**70}' in text and f'"low":{-(2**63) - 1}' in text
    assert "duplicate-sid" in text and '"attachmentId"' not in text

    script = project.store.get("script-1")  # moved: folder-a and folder-b keep their revisions
    script["parent"] = "folder-b"
    project.store.put(script)
    text = _same_as_built(project)
    assert '"path":"folder-b.script-1"' in text

    project.store.put(doc("Attachment", "att-1", mimeType="image/png"))  # actor-1, gdd-1 unchanged
    text = _same_as_built(project)
    assert '"attachmentId":"att-1"' in text and '"attachments":[{"_attachments":{},"_id":"att-1"' in text

    first = project.store.get("var-1")  # var-2 is no longer a duplicate
    project.store.remove("var-1", first["_rev"])
    text = _same_as_built(project)
    assert "duplicate-sid" not in text and '"hp":9' in text
    project.store.put(variable("var-0", "_sid: hero\nhp: 1"))  # and now var-2 is one again
    text = _same_as_built(project)
    assert "is already used by document var-0" in text and '"hp":1' in text

    settings = project.store.get("ProjectSettings")
    settings["exportMappings"] = {"speechExportMapping": {"text": '%actor.Say("%speech")'},
                                  "interpolateVariablesOnExport": True}
    project.store.put(settings)
    text = _same_as_built(project)
    assert 'HERO.Say(\\"I have 1 hp\\")' in text


def test_a_kept_document_is_not_read_again(project: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    _same_as_built(project)
    read: list[str] = []
    real = stream.live_document

    def counting(snap: Any, doc_id: str, rev: str | None = None) -> Any:
        if rev is not None:  # the main pass (the Variables and Attachments are read whole before it)
            read.append(doc_id)
        return real(snap, doc_id, rev)

    monkeypatch.setattr(stream, "live_document", counting)
    cache = cache_for(project.db)
    assert cache is not None
    cache.clear()
    _streamed(project)
    # Only the documents orjson would write otherwise are read (and encoded by the stdlib) again.
    assert sorted(read) == ["grid-1", "misc-1"]
    read.clear()
    cache.clear(disk=True)
    _streamed(project)  # the first export ever: everything is read
    assert {"script-1", "actor-1", "var-2", "folder-a"} <= set(read)


def test_the_light_fields_kept_per_revision_follow_the_documents(monkeypatch: pytest.MonkeyPatch) -> None:
    project = ProjectManager(username="tester").create("Light")
    try:
        folders = [doc(FOLDER_TYPE, f"folder-{i:02}", collection="Item", sortKey="V") for i in range(10)]
        pages = [doc("Item", f"page-{i:03}", parent=f"folder-{i % 10:02}", sortKey="abcdefgh"[i % 8],
                     content={"item": f"weight: {i}"}) for i in range(120)]
        for item in folders + pages:
            project.store.put(item)
        cache = cache_for(project.db)
        assert cache is not None
        calls = {"all": 0, "one": 0}
        real_all, real_one = stream.document_fields, stream.revision_fields

        def every(*args: Any) -> Any:
            calls["all"] += 1
            return real_all(*args)

        def one(*args: Any) -> Any:
            calls["one"] += 1
            return real_one(*args)

        monkeypatch.setattr(stream, "document_fields", every)
        monkeypatch.setattr(stream, "revision_fields", one)
        _same_as_built(project)  # the first export reads every document's fields in one pass
        assert calls == {"all": 1, "one": 0}
        _same_as_built(project)  # then every revision's fields are kept
        assert calls == {"all": 1, "one": 0}
        for doc_id, parent in (("page-007", "folder-03"), ("page-050", None), ("folder-01", "folder-02")):
            moved = project.store.get(doc_id)
            moved["parent"] = parent
            project.store.put(moved)
        project.store.put(doc("Item", "page-999", parent="folder-01", sortKey="0z"))
        text = _same_as_built(project)  # the four new revisions' fields are read one by one
        assert calls == {"all": 1, "one": 4}
        assert '"path":"folder-02.folder-01.page-999"' in text
    finally:
        project.close()
