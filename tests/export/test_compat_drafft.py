"""The ``drafft`` compatibility mode: Drafft's own Godot 4 importer loads our export unchanged.

:func:`godot4_addon_load` does, in Python, what the ``drafft-godot-4-plugin`` addon
(``addons/drafft/drafft_importer.gd`` and ``drafft_document.gd``) does with an export file,
written from its behaviour:

- parse the file as JSON; a value that is not a non-empty object is refused ("Invalid JSON");
- read ``_meta`` (default ``{}``) and the arrays ``gdds``, ``scripts``, ``dialogues``,
  ``quests``, ``items``, ``grids``, ``kanban`` (each defaulting to ``[]``), then print a summary
  with the size of each (so a key that is present must be an array: ``null`` has no size);
- accept the database only when ``_meta`` has ``drafftVersion``; otherwise it prints "Failed to
  load Drafft database" and keeps nothing;
- look a document up by ``_id`` over those seven arrays in that order (``doc._id``: every
  document needs one) and turn it into a ``DrafftDocument``: ``id`` from ``_id``, ``docName``
  from ``name``, ``content`` as JSON text of ``content``, and the typed properties it declares
  (``type``, ``parent``, ``path``, ``created``, ``modified``, ``comments``, ``collection``,
  ``alias`` as strings, ``locked`` as a boolean) copied when present.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from storyloom.drafft import import_backup
from storyloom.export.compat import DRAFFT_VERSION, UnknownCompat
from storyloom.export.game_export import build_game_export, dumps_export, export_from_docs
from storyloom.export.schema_export import build_export_and_schema, build_schema
from storyloom.project.checking import ValidationError
from storyloom.project.collections import EXPORT_NAMES
from storyloom.project.manager import ProjectManager
from tests.export import validators
from tests.export.helpers import GAME_EXPORTS, GARDEN, PROJECT_FILES, doc, settings_doc

# The arrays the addon reads, in the order its document lookup searches them.
ADDON_COLLECTIONS = ("gdds", "scripts", "dialogues", "quests", "items", "grids", "kanban")
# DrafftDocument's typed properties filled from a document's fields of the same name
# (`name` and `content` are handled apart). A root document's `parent` is null in Drafft's own
# export too (the addon's sample file), so null is what the addon meets there anyway.
ADDON_PROPERTIES: dict[str, tuple[type, ...]] = {
    "type": (str,), "parent": (str, type(None)), "path": (str,), "created": (str,), "modified": (str,),
    "comments": (str,), "collection": (str,), "alias": (str,), "locked": (bool,),
}
FAILED = "Failed to load Drafft database"
_NOW = dt.datetime(2026, 3, 1, tzinfo=dt.UTC)


@dataclass
class AddonDatabase:
    loaded: bool
    message: str
    meta: dict[str, Any] = field(default_factory=dict)
    arrays: dict[str, list[Any]] = field(default_factory=dict)

    def get_document(self, doc_id: str) -> dict[str, Any] | None:
        """``DrafftImporter.get_document``: the first document with this ``_id``, as the fields of
        the ``DrafftDocument`` the addon fills from it."""
        for key in ADDON_COLLECTIONS:
            for raw in self.arrays[key]:
                if raw["_id"] == doc_id:  # GDScript `doc._id`: a document without one is an error
                    return _drafft_document(raw)
        return None


def _drafft_document(raw: dict[str, Any]) -> dict[str, Any]:
    filled: dict[str, Any] = {}
    for prop, kinds in ADDON_PROPERTIES.items():
        if prop in raw:
            assert isinstance(raw[prop], kinds), f"{raw['_id']}: {prop} is {raw[prop]!r}, the addon declares {kinds}"
            filled[prop] = raw[prop]
    filled["id"] = raw["_id"]
    if "content" in raw:
        filled["content"] = json.dumps(raw["content"], indent=" ")  # JSON.stringify(content, " ")
    if "name" in raw:
        filled["docName"] = raw["name"]
    return filled


def godot4_addon_load(text: str) -> AddonDatabase:
    """``DrafftImporter.load_from_file`` on the file's text (see the module docstring)."""
    try:
        data = json.loads(text)
    except ValueError:
        return AddonDatabase(False, "Invalid JSON")
    if not data or not isinstance(data, dict):
        return AddonDatabase(False, "Invalid JSON")
    meta = data.get("_meta", {})
    arrays = {key: data.get(key, []) for key in ADDON_COLLECTIONS}
    if "drafftVersion" not in meta:
        return AddonDatabase(False, FAILED)
    for key, value in arrays.items():
        assert isinstance(value, list), f"{key} is {type(value).__name__}: the addon calls .size() on it"
    summary = ", ".join(f"{key}: {len(value)}" for key, value in arrays.items())
    return AddonDatabase(True, f"Export Version: {meta['drafftVersion']}; {summary}", meta, arrays)


def _check_every_document(db: AddonDatabase) -> int:
    """Every document of the seven arrays is found by its ``_id`` with its name and content."""
    found = 0
    for key in ADDON_COLLECTIONS:
        for raw in db.arrays[key]:
            got = db.get_document(raw["_id"])
            assert got is not None and got["id"] == raw["_id"], (key, raw["_id"])
            assert got.get("docName") == raw.get("name")
            if "content" in raw:
                assert json.loads(got["content"]) == raw["content"]
            found += 1
    return found


def test_the_reader_accepts_drafft_s_own_export() -> None:
    """The reader is faithful: Drafft 2.1.4's export (the addon's own sample) loads."""
    text = (GAME_EXPORTS / "v2.1.4_the_goddess_of_fate.game-export.json").read_text(encoding="utf-8")
    db = godot4_addon_load(text)
    assert db.loaded, db.message
    assert db.meta["drafftVersion"] == DRAFFT_VERSION  # the version we state is the one it wrote
    assert _check_every_document(db) > 0


@pytest.mark.parametrize("path", PROJECT_FILES, ids=[f"{p.parent.name}/{p.name}" for p in PROJECT_FILES])
@pytest.mark.slow
def test_every_sample_loads_in_the_godot4_addon_only_in_compat_mode(path: Path) -> None:
    project, _ = import_backup(ProjectManager(), path)
    try:
        plain = dumps_export(build_game_export(project, exported_by="tester"))
        compat, schema = build_export_and_schema(project, exported_by="tester", compat="drafft")
        everything = build_game_export(project, ",".join(EXPORT_NAMES), "tester", compat="drafft")
        everything_schema = build_schema(project, ",".join(EXPORT_NAMES), compat="drafft")
        plain_schema = build_schema(project)
    finally:
        project.close()

    # Without the option the addon refuses the file, as it refuses any non-Drafft export.
    refused = godot4_addon_load(plain)
    assert not refused.loaded and refused.message == FAILED
    assert "drafftVersion" not in json.loads(plain)["_meta"]

    for export in (compat, everything):
        db = godot4_addon_load(dumps_export(export))
        assert db.loaded, db.message
        assert db.meta["drafftVersion"] == DRAFFT_VERSION
        # Nothing else changed: the compat export is the plain one plus the version.
        assert _check_every_document(db) == sum(len(export.get(key, [])) for key in ADDON_COLLECTIONS)
    assert everything["gdds"] is not None and _check_every_document(godot4_addon_load(dumps_export(everything))) > 0
    same = json.loads(plain)
    same["_meta"]["drafftVersion"] = DRAFFT_VERSION
    same["_meta"]["exportedAt"] = compat["_meta"]["exportedAt"]
    assert json.loads(dumps_export(compat)) == same

    # The compat schema requires the version; both validators accept the compat exports, and
    # refuse the plain export against the compat schema.
    for built, its_schema in ((compat, schema), (everything, everything_schema)):
        validators.check_schema(its_schema)
        assert validators.messages(its_schema, json.loads(dumps_export(built))) == []
    assert validators.errors(schema, json.loads(plain)) == {(("_meta",), "required")}
    assert "drafftVersion" not in plain_schema["properties"]["_meta"]["properties"]
    assert schema["properties"]["_meta"]["properties"]["drafftVersion"]["const"] == DRAFFT_VERSION
    wrong = json.loads(dumps_export(compat))
    wrong["_meta"]["drafftVersion"] = "2.4.7"
    assert validators.errors(schema, wrong) == {(("_meta", "drafftVersion"), "const")}


def test_off_by_default_and_none_is_the_plain_export() -> None:
    def export(compat: str | None = None, **settings: Any) -> str:
        docs = [settings_doc(**settings), doc("Item", "i1", "Key", content={"item": "a: 1"})]
        return dumps_export(export_from_docs(docs, settings_doc(**settings), now=_NOW, compat=compat))

    plain = export()
    assert export("none") == plain
    assert '"drafftVersion"' not in plain
    assert f'"drafftVersion":"{DRAFFT_VERSION}"' in export("drafft")
    # The project's setting turns it on; the request's `none` turns it off again.
    assert f'"drafftVersion":"{DRAFFT_VERSION}"' in export(exportCompat="drafft")
    assert '"drafftVersion"' not in export("none", exportCompat="drafft")
    assert '"drafftVersion"' not in export(exportCompat=None)
    with pytest.raises(UnknownCompat, match="allowed values: drafft, none"):
        export("godot")


def test_an_invalid_setting_is_a_warning_and_off() -> None:
    settings = settings_doc(exportCompat="unity")
    exported = export_from_docs([settings_doc(exportCompat="unity")], settings, now=_NOW)
    assert "drafftVersion" not in exported["_meta"]
    assert [w["code"] for w in exported["_meta"]["warnings"]] == ["unknown-export-compat"]
    assert exported["_meta"]["warnings"][0]["field"] == "exportCompat"


def test_the_setting_is_validated_and_followed(storyloom_home: Path) -> None:
    project, _ = import_backup(ProjectManager(), GARDEN, name="Garden")
    try:
        with pytest.raises(ValidationError, match=r'exportCompat: expected null \(no compatibility mode\) or one '
                                                  r'of: "drafft", got'):
            project.editor.update_settings({"exportCompat": "godot"})
        project.editor.update_settings({"exportCompat": "drafft"})
        assert build_game_export(project)["_meta"]["drafftVersion"] == DRAFFT_VERSION
        assert "drafftVersion" in build_schema(project)["properties"]["_meta"]["required"]
        assert "drafftVersion" not in build_game_export(project, compat="none")["_meta"]
        assert "drafftVersion" not in build_schema(project, compat="none")["properties"]["_meta"]["required"]
        project.editor.update_settings({"exportCompat": None})
        assert "drafftVersion" not in build_game_export(project)["_meta"]
    finally:
        project.close()


def test_cli_compat_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from storyloom.cli.main import main

    project, _ = import_backup(ProjectManager(), GARDEN, name="Garden")
    project.close()
    out = tmp_path / "game.json"
    assert main(["export", "Garden", "--compat", "drafft", "-o", str(out), "--schema-sidecar"]) == 0
    db = godot4_addon_load(out.read_text(encoding="utf-8"))
    assert db.loaded and db.meta["drafftVersion"] == DRAFFT_VERSION
    schema = json.loads((tmp_path / "game.schema.json").read_text(encoding="utf-8"))
    assert validators.messages(schema, json.loads(out.read_text(encoding="utf-8"))) == []
    assert "drafftVersion" in schema["properties"]["_meta"]["required"]

    assert main(["schema", "Garden", "--compat", "drafft"]) == 0
    assert "drafftVersion" in json.loads(capsys.readouterr().out)["properties"]["_meta"]["required"]
    assert main(["export", "Garden"]) == 0
    assert not godot4_addon_load(capsys.readouterr().out).loaded

    with pytest.raises(SystemExit) as exit_info:
        main(["export", "Garden", "--compat", "godot"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "--compat: invalid choice: 'godot'" in err and "drafft" in err and "none" in err
