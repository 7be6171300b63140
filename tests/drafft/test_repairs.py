"""Drafft import of malformed backups: repaired where the intent is clear, never a traceback,
never a document silently dropped (the import fails and creates nothing, unless --allow-skips)."""

from __future__ import annotations

import base64
import json
import math
from pathlib import Path
from typing import Any

import pytest

from storyloom.cli.explain import say as cli_say
from storyloom.cli.main import main
from storyloom.drafft import DrafftImportError, ImportWouldDropError, import_backup
from storyloom.project.manager import Project, ProjectManager
from storyloom.project.tree import derive_tree
from storyloom.project.validation import MappingContext, check_document

PNG_A = base64.b64encode(b"\x89PNG\r\n\x1a\n image A").decode()
PNG_B = base64.b64encode(b"\x89PNG\r\n\x1a\n image B").decode()


def _row(doc: dict[str, Any]) -> dict[str, Any]:
    return {"id": doc["_id"], "key": doc["_id"], "value": {"rev": doc.get("_rev", "1-a")}, "doc": doc}


def write_dump(path: Path, docs: list[dict[str, Any]]) -> Path:
    """A Drafft backup file of ``docs`` (json.dumps writes NaN and Infinity as JavaScript does)."""
    path.write_text(json.dumps({"total_rows": len(docs), "offset": 0, "rows": [_row(d) for d in docs]}))
    return path


def script(doc_id: str, **fields: Any) -> dict[str, Any]:
    return {"_id": doc_id, "type": "Script", "collection": "Script", "name": doc_id, "parent": None,
            "content": {"script": "::A:: hi"}} | fields


def stored(project: Project) -> dict[str, dict[str, Any]]:
    rows = project.store.all_docs(include_docs=True, attachments=True)["rows"]
    return {row["id"]: row["doc"] for row in rows}


def assert_all_valid(project: Project) -> None:
    docs = stored(project)
    context = MappingContext(docs)
    for doc in docs.values():
        assert [p.message for p in check_document(doc, context) if p.is_error] == [], doc["_id"]


def assert_nothing_created(manager: ProjectManager) -> None:
    assert manager.list() == []
    assert list(manager.root.iterdir()) == []


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# -- 1. documents validation refused are repaired --------------------------------------------

# The reviewer's dump: 13 documents, 6 of which the import used to report as skipped while
# writing the project anyway.
REVIEW_DUMP = [
    {"_id": "ProjectSettings", "projectName": "Synthetic"},
    {"_id": "f-script", "type": "Folder", "collection": "Script", "name": "Scripts", "parent": None},
    {"_id": "f-item", "type": "Folder", "collection": "Item", "name": "Items", "parent": None},
    script("s-ok", parent="f-script"),
    {"_id": "s-no-collection", "type": "Script", "name": "no collection", "parent": None,
     "content": {"script": "x"}},
    script("s-null-name", name=None),
    script("s-under-script", parent="s-ok"),
    script("s-under-item-folder", parent="f-item"),
    {"_id": "m-out", "type": "Map", "collection": "Map", "name": "map", "parent": None,
     "content": {"width": 2, "height": 2, "cells": {"0,0": {"type": "wall"}, "5,5": {"type": "wall"}},
                 "edges": {"1,1:S": {"type": "door"}, "9,9:N": {"type": "door"}}, "markers": {}}},
    script("s-number", content={"script": 42}),
    {"_id": "i-ok", "type": "Item", "collection": "Item", "name": "item", "parent": "f-item",
     "content": {"item": "weight: 1"}},
    {"_id": "g-ok", "type": "Gdd", "collection": "Gdd", "name": "gdd", "parent": None, "content": {"gdd": ""}},
    {"_id": "d-ok", "type": "Dialogue", "collection": "Dialogue", "name": "talk", "parent": None,
     "content": {"tree": {"nodes": [], "edges": []}}},
]


def test_refused_documents_are_repaired_and_imported(manager: ProjectManager, tmp_path: Path) -> None:
    project, report = import_backup(manager, write_dump(tmp_path / "review.json", REVIEW_DUMP))
    try:
        docs = stored(project)
        assert set(docs) == {d["_id"] for d in REVIEW_DUMP}  # all 13, nothing dropped
        assert report.skipped == [] and report.skipped_count == 0
        assert report.imported == 13
        assert report.count("Script").imported == 6 and report.count("Map").imported == 1
        assert_all_valid(project)

        assert docs["s-no-collection"]["collection"] == "Script"
        assert docs["s-null-name"]["name"] == ""
        for doc_id, was in (("s-under-script", "s-ok"), ("s-under-item-folder", "f-item")):
            assert docs[doc_id]["parent"] is None and docs[doc_id]["originalParent"] == was
        assert docs["s-ok"]["parent"] == "f-script"  # good parents are kept
        content = docs["m-out"]["content"]
        assert content["cells"] == {"0,0": {"type": "wall"}} and content["edges"] == {"1,1:S": {"type": "door"}}
        assert content["invalid"] == {"cells": {"5,5": {"type": "wall"}}, "edges": {"9,9:N": {"type": "door"}}}
        assert docs["s-number"]["content"]["script"] == "42"

        warnings = "\n".join(report.warnings)
        for doc_id in ("s-no-collection", "s-null-name", "s-under-script", "s-under-item-folder", "m-out",
                       "s-number"):
            assert doc_id in warnings
            assert doc_id in report.conversions  # a repair counts as a conversion
        assert "is a Script, not a folder" in warnings and "is a folder of 'Item', not of 'Script'" in warnings
        assert "content.invalid" in warnings and "outside the map" in warnings
        assert "Warnings (" in report.to_text()
    finally:
        project.close()


def test_map_markers_duplicates_and_bad_properties_move_aside(manager: ProjectManager, tmp_path: Path) -> None:
    doc = {"_id": "m", "type": "Map", "collection": "Map", "name": "m", "parent": None,
           "content": {"width": 3, "height": 3, "cells": {"0, 1": {"type": "x"}, "1,1": {"nope": 1}},
                       "edges": {"0,0:S": {"type": "wall"}, "0,1:N": {"type": "wall"}},
                       "markers": [{"name": "spawn", "x": 1, "y": 1}, {"name": "spawn", "x": 2, "y": 2},
                                   {"name": "far", "x": 7, "y": 0}],
                       "properties": ["not", "an", "object"], "editor": {"zoom": 2}}}
    project, report = import_backup(manager, write_dump(tmp_path / "map.json",
                                                        [{"_id": "ProjectSettings", "projectName": "M"}, doc]))
    try:
        content = stored(project)["m"]["content"]
        assert content["cells"] == {} and content["edges"] == {"0,0:S": {"type": "wall"}}
        assert content["markers"] == [{"name": "spawn", "x": 1, "y": 1}]
        assert content["invalid"] == {
            "cells": {"0, 1": {"type": "x"}, "1,1": {"nope": 1}},
            "edges": {"0,1:N": {"type": "wall"}},
            "markers": [{"name": "spawn", "x": 2, "y": 2}, {"name": "far", "x": 7, "y": 0}],
            "properties": ["not", "an", "object"],
        }
        assert "properties" not in content and content["editor"] == {"zoom": 2}
        assert_all_valid(project)
        assert any("m: map entries" in w for w in report.warnings)
    finally:
        project.close()


def test_parents_that_cannot_be_kept(manager: ProjectManager, tmp_path: Path) -> None:
    docs = [
        {"_id": "ProjectSettings", "projectName": "Parents"},
        {"_id": "fa", "type": "Folder", "collection": "Script", "name": "A", "parent": "fb"},
        {"_id": "fb", "type": "Folder", "collection": "Script", "name": "B", "parent": "fa"},  # a cycle
        {"_id": "fc", "type": "Folder", "collection": "Script", "name": "C", "parent": None,
         "children": [{"_id": "listed"}]},
        script("ghost-parent", parent="nowhere"),
        script("listed", parent="s-plain"),  # a Script as parent, but folder fc lists it: placed there
        script("s-plain"),
        script("empty-parent", parent=""),
        script("number-parent", parent=7),
    ]
    project, report = import_backup(manager, write_dump(tmp_path / "parents.json", docs))
    try:
        got = stored(project)
        assert_all_valid(project)
        assert got["ghost-parent"]["parent"] is None and got["ghost-parent"]["originalParent"] == "nowhere"
        assert got["listed"]["parent"] == "fc" and got["listed"]["originalParent"] == "s-plain"
        assert got["empty-parent"]["parent"] is None and "originalParent" not in got["empty-parent"]
        assert got["number-parent"]["parent"] is None and got["number-parent"]["originalParent"] == 7
        cut = [i for i in ("fa", "fb") if "originalParent" in got[i]]
        assert len(cut) == 1 and got[cut[0]]["parent"] is None  # the cycle is cut once, nothing lost
        other = "fb" if cut == ["fa"] else "fa"
        assert got[other]["parent"] == cut[0]
        tree = derive_tree(got.values())
        assert tree["fc"]["children"] == ["listed"]
        warnings = "\n".join(report.warnings)
        assert "inside itself" in warnings and "does not exist in the backup" in warnings
        assert "empty-parent" not in warnings  # "" simply means the top level
    finally:
        project.close()


def test_content_of_an_odd_kind_is_kept(manager: ProjectManager, tmp_path: Path) -> None:
    docs = [
        {"_id": "ProjectSettings", "projectName": "Odd"},
        script("s-content-number", content=12),
        script("s-content-null-script", content={"script": None}),
        script("s-dict-script", content={"script": {"a": 1}}),
        {"_id": "actor", "type": "Actor", "collection": "Actor", "name": "A", "parent": None,
         "content": {"bio": 3, "properties": "", "expressions": "default"}},
        {"_id": "image", "type": "Attachment", "collection": "Attachment", "name": "img",
         "_attachments": {"blob": {"content_type": "image/png", "data": PNG_A}}},
    ]
    project, report = import_backup(manager, write_dump(tmp_path / "odd.json", docs))
    try:
        got = stored(project)
        assert_all_valid(project)
        assert got["s-content-number"]["contentOriginal"] == 12
        assert got["s-content-number"]["content"]["script"] == ""
        assert got["s-content-null-script"]["content"]["script"] == ""
        assert json.loads(got["s-dict-script"]["content"]["script"]) == {"a": 1}
        assert got["actor"]["content"]["bio"] == "3"
        actor = got["actor"]["content"]
        assert actor["expressions"] == [] and actor["expressionsOriginal"] == "default"
        assert got["image"]["mimeType"] == "image/png"  # taken from its blob
        assert len(report.warnings) >= 6
    finally:
        project.close()


# -- 1. what cannot be repaired: fail and create nothing, unless allow_skips ------------------

UNREPAIRABLE = [
    {"_id": "ProjectSettings", "projectName": "Broken"},
    script("fine"),
    {"_id": "ship", "type": "Spaceship", "name": "?"},
    {"_id": "m-no-size", "type": "Map", "collection": "Map", "name": "m", "parent": None,
     "content": {"width": "huge", "height": 2, "cells": {}}},
    {"_id": "d-dup", "type": "Dialogue", "collection": "Dialogue", "name": "d", "parent": None,
     "content": {"tree": {"nodes": [{"id": "n", "data": {"nodeType": "start", "handles": []}},
                                    {"id": "n", "data": {"nodeType": "end", "handles": []}}], "edges": []}}},
    script("twice", content={"script": "first"}),
    script("twice", content={"script": "second"}),
    script("with-stub", _attachments={"pic.png": {"content_type": "image/png", "stub": True}}),
]


def test_unrepairable_documents_fail_the_import_and_create_nothing(manager: ProjectManager, tmp_path: Path) -> None:
    path = write_dump(tmp_path / "broken.json", UNREPAIRABLE)
    with pytest.raises(ImportWouldDropError) as info:
        import_backup(manager, path)
    assert_nothing_created(manager)
    message = cli_say(info.value)  # the fix as the command line says it
    dropped = {s.id: s.reason for s in info.value.dropped}
    assert set(dropped) == {"ship", "m-no-size", "d-dup", "twice", "with-stub/pic.png"}
    assert "unknown document type 'Spaceship'" in dropped["ship"]
    assert "width" in dropped["m-no-size"] and "refused by validation" in dropped["m-no-size"]
    assert "duplicate" in dropped["d-dup"] or "unique" in dropped["d-dup"]
    assert "other content" in dropped["twice"]
    assert "no data" in dropped["with-stub/pic.png"]
    for doc_id, reason in dropped.items():
        assert f"{doc_id} (" in message and reason in message
    assert "--allow-skips" in message and "nothing was imported" in message


def test_allow_skips_imports_the_rest_and_lists_what_was_left_out(manager: ProjectManager, tmp_path: Path) -> None:
    path = write_dump(tmp_path / "broken.json", UNREPAIRABLE)
    project, report = import_backup(manager, path, allow_skips=True)
    try:
        got = stored(project)
        assert {"fine", "twice", "with-stub", "ProjectSettings"} <= set(got)
        assert not {"ship", "m-no-size", "d-dup"} & set(got)
        assert got["twice"]["content"]["script"] == "first"
        lost = {s.id for s in report.skipped if s.lost}
        assert lost == {"ship", "m-no-size", "d-dup", "twice", "with-stub/pic.png"}
        assert report.count("Map").skipped == 1 and report.count("Map").imported == 0
        assert report.count("Dialogue").skipped == 1
        text = report.to_text()
        for doc_id in lost:
            assert doc_id in text
        assert "[left out: --allow-skips]" in text
        assert json.loads(json.dumps(report.to_dict()))["skipped"]
    finally:
        project.close()


def test_a_repeated_identical_row_is_not_a_loss(manager: ProjectManager, tmp_path: Path) -> None:
    docs = [{"_id": "ProjectSettings", "projectName": "Rep"}, script("s"), script("s", _rev="2-b")]
    project, report = import_backup(manager, write_dump(tmp_path / "rep.json", docs))
    project.close()
    assert [(s.id, s.lost) for s in report.skipped] == [("s", False)]


@pytest.mark.parametrize("allow_skips", [False, True])
def test_when_every_document_is_refused_nothing_is_created(
    manager: ProjectManager, tmp_path: Path, allow_skips: bool
) -> None:
    docs = [UNREPAIRABLE[0], UNREPAIRABLE[3], UNREPAIRABLE[4]]  # settings, a map without size, a bad dialogue
    with pytest.raises(DrafftImportError) as info:
        import_backup(manager, write_dump(tmp_path / "none.json", docs), allow_skips=allow_skips)
    assert_nothing_created(manager)
    assert "m-no-size" in str(info.value) and "d-dup" in str(info.value)
    assert isinstance(info.value, ImportWouldDropError) is not allow_skips
    only_unknown = [UNREPAIRABLE[0], UNREPAIRABLE[2]]
    with pytest.raises(DrafftImportError, match="ship" if not allow_skips else "no project documents"):
        import_backup(manager, write_dump(tmp_path / "unknown.json", only_unknown), allow_skips=allow_skips)
    assert_nothing_created(manager)


def test_the_cli_fails_cleanly_and_lists_what_would_be_dropped(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = write_dump(tmp_path / "broken.json", UNREPAIRABLE)
    code, out, err = run(capsys, "import", str(path))
    assert code == 1 and out == ""
    assert err.startswith("storyloom: error: ") and "Traceback" not in err
    for doc_id in ("ship", "m-no-size", "d-dup", "twice", "with-stub/pic.png"):
        assert doc_id in err
    assert "--allow-skips" in err
    assert ProjectManager().list() == []


def test_the_cli_allow_skips_option(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = write_dump(tmp_path / "broken.json", UNREPAIRABLE)
    code, out, _ = run(capsys, "import", str(path), "--allow-skips")
    assert code == 0 and "[left out: --allow-skips]" in out and "ship" in out
    assert [p.name for p in ProjectManager().list()] == ["Broken"]


# -- 2. malformed dates and attachments: no traceback, no lost value --------------------------


def test_out_of_range_and_non_finite_dates_are_kept(manager: ProjectManager, tmp_path: Path) -> None:
    docs = [
        {"_id": "ProjectSettings", "projectName": "Dates", "createdAt": 1e300},
        script("big", modified=1e20, created=-1e20),
        script("nan", modified=math.nan, created=math.inf, lastModified=-math.inf),
        script("huge-int", modified=10**30, lastModifiedDate="0001-01-01T00:00:00+01:00"),
        script("fine", modified=1771519319161),
    ]
    path = write_dump(tmp_path / "dates.json", docs)
    assert "NaN" in path.read_text() and "Infinity" in path.read_text()
    project, report = import_backup(manager, path)
    try:
        got = stored(project)
        assert_all_valid(project)
        assert got["big"]["modifiedOriginal"] == 1e20 and got["big"]["createdOriginal"] == -1e20
        assert "modified" not in got["big"] and "created" not in got["big"]
        # NaN and the infinities are not JSON: kept as the text the backup wrote.
        assert got["nan"]["modifiedOriginal"] == "NaN"
        assert got["nan"]["createdOriginal"] == "Infinity" and got["nan"]["lastModifiedOriginal"] == "-Infinity"
        assert got["huge-int"]["modifiedOriginal"] == 10**30
        assert got["huge-int"]["lastModifiedDateOriginal"] == "0001-01-01T00:00:00+01:00"
        assert got["ProjectSettings"]["createdAtOriginal"] == 1e300
        assert got["fine"]["modified"] == "2026-02-19T16:41:59.161Z"
        warnings = "\n".join(report.warnings)
        for kept in ("modifiedOriginal", "createdOriginal", "lastModifiedOriginal", "lastModifiedDateOriginal",
                     "createdAtOriginal"):
            assert kept in warnings
        assert "1 to 9999" in warnings and "not a finite number" in warnings
    finally:
        project.close()


def test_the_cli_imports_a_dump_with_nan_dates(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = write_dump(tmp_path / "dates.json", [{"_id": "ProjectSettings", "projectName": "D"},
                                                script("nan", modified=math.nan, created=1e20)])
    code, out, err = run(capsys, "import", str(path))
    assert code == 0 and err == ""
    assert "modifiedOriginal" in out and "createdOriginal" in out


@pytest.mark.parametrize("data", ["not base64 at all!", "abc", "QUJD\x00", "QU JD"])
def test_invalid_base64_fails_the_import_naming_the_attachment(
    manager: ProjectManager, tmp_path: Path, data: str
) -> None:
    docs = [{"_id": "ProjectSettings", "projectName": "B64"}, script("fine"),
            {"_id": "pic", "type": "Attachment", "collection": "Attachment", "name": "pic", "mimeType": "image/png",
             "_attachments": {"blob": {"content_type": "image/png", "data": data}}}]
    with pytest.raises(DrafftImportError) as info:
        import_backup(manager, write_dump(tmp_path / "b64.json", docs))
    message = str(info.value)
    assert "'pic'" in message and "'blob'" in message and "not valid base64" in message
    assert_nothing_created(manager)


def test_the_cli_reports_invalid_base64_without_a_traceback(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    docs = [{"_id": "ProjectSettings", "projectName": "B64"},
            script("actor-ish", _attachments={"expression_default": {"content_type": "image/png", "data": "%%%"}})]
    code, out, err = run(capsys, "import", str(write_dump(tmp_path / "b64.json", docs)))
    assert code == 1 and out == "" and "Traceback" not in err
    assert err.startswith("storyloom: error: ")
    assert "'actor-ish'" in err and "'expression_default'" in err and "not valid base64" in err
    assert ProjectManager().list() == []


# -- 3. expression images are stored once -----------------------------------------------------


def test_expression_images_reuse_an_attachment_document_with_the_same_bytes(
    manager: ProjectManager, tmp_path: Path
) -> None:
    docs = [
        {"_id": "ProjectSettings", "projectName": "Images"},
        {"_id": "lib-a", "type": "Attachment", "collection": "Attachment", "name": "library A", "mimeType": "image/png",
         "permalink": "drafft://image/lib-a", "_attachments": {"blob": {"content_type": "image/png", "data": PNG_A}}},
        {"_id": "kim", "type": "Actor", "collection": "Actor", "name": "Kim", "parent": None,
         "content": {"bio": "", "properties": "", "expressions": []},
         "_attachments": {"expression_default": {"content_type": "image/png", "data": PNG_A},
                          "expression_sad": {"content_type": "image/png", "data": PNG_B},
                          "expression_odd": {"content_type": "image/gif", "data": PNG_A}}},
        {"_id": "lee", "type": "Actor", "collection": "Actor", "name": "Lee", "parent": None,
         "content": {"bio": "", "properties": "", "expressions": []},
         "_attachments": {"expression_default": {"content_type": "image/png", "data": PNG_B}}},
    ]
    project, report = import_backup(manager, write_dump(tmp_path / "images.json", docs))
    try:
        assert_all_valid(project)
        got = stored(project)
        kim = {e["name"]: e for e in got["kim"]["content"]["expressions"]}
        lee = {e["name"]: e for e in got["lee"]["content"]["expressions"]}
        assert kim["default"] == {"name": "default", "permalink": "drafft://image/lib-a", "_id": "lib-a"}
        assert lee["default"]["_id"] == kim["sad"]["_id"]  # the same bytes: one Attachment document
        assert kim["odd"]["_id"] not in ("lib-a", kim["sad"]["_id"])  # same bytes, another type: its own
        created = [c.id for c in report.created if c.type == "Attachment"]
        assert sorted(created) == sorted([kim["sad"]["_id"], kim["odd"]["_id"]])
        assert len([d for d in got.values() if d.get("type") == "Attachment"]) == 3
        assert len(report.shared_images) == 2
        assert report.attachments == 5  # every attachment of the backup is kept (4 of them as 2 documents)
        for (actor_id, att_name), (image_id, blob) in report.attachment_moves.items():
            source = next(d for d in docs if d["_id"] == actor_id)["_attachments"][att_name]
            assert project.store.get_attachment(image_id, blob) == base64.b64decode(source["data"])
        assert "Expression images stored once" in report.to_text()
    finally:
        project.close()
