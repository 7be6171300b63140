"""``Editor.update_settings(changes, rev=...)``: a settings form saves with the revision it
loaded, so a change made meanwhile (another window, an import, a sync) is a conflict instead of
being overwritten; without ``rev`` the current revision is patched as before."""

from __future__ import annotations

import pytest

from storyloom.project.collections import SETTINGS_ID
from storyloom.store import Conflict


def test_a_save_based_on_the_loaded_revision_goes_through(project) -> None:  # type: ignore[no-untyped-def]
    editor = project.editor
    loaded = editor.settings()
    result = editor.update_settings({"projectVersion": "1.1"}, rev=loaded["_rev"])
    assert result.rev != loaded["_rev"]
    assert project.db.get(SETTINGS_ID)["projectVersion"] == "1.1"


def test_a_change_made_meanwhile_is_a_conflict_and_nothing_is_written(project) -> None:  # type: ignore[no-untyped-def]
    editor = project.editor
    loaded = editor.settings()
    elsewhere = editor.update_settings({"projectDescription": "changed in another window"})
    with pytest.raises(Conflict):
        editor.update_settings({"projectVersion": "9.9"}, rev=loaded["_rev"])
    stored = project.db.get(SETTINGS_ID)
    assert stored["_rev"] == elsewhere.rev
    assert stored["projectDescription"] == "changed in another window"
    assert stored.get("projectVersion") != "9.9"
    # saving again over the newer revision (the form's "overwrite") keeps the other change
    editor.update_settings({"projectVersion": "9.9"}, rev=stored["_rev"])
    stored = project.db.get(SETTINGS_ID)
    assert stored["projectVersion"] == "9.9" and stored["projectDescription"] == "changed in another window"


def test_without_a_revision_the_current_one_is_patched(project) -> None:  # type: ignore[no-untyped-def]
    editor = project.editor
    editor.update_settings({"projectDescription": "first"})
    editor.update_settings({"projectVersion": "2.0"})
    stored = project.db.get(SETTINGS_ID)
    assert (stored["projectDescription"], stored["projectVersion"]) == ("first", "2.0")
