"""Date stamps another client wrote in its own format (a Drafft teammate's JS Date strings and
epoch milliseconds, brought in by replication) are rewritten as ISO-8601 UTC when Storyloom
writes the document, instead of refusing the user's edit for a stamp they never typed."""

from __future__ import annotations

from pathlib import Path

import pytest

from storyloom.project.documents import normalise_foreign_dates
from storyloom.project.editor import Editor
from storyloom.project.validation import ValidationError
from storyloom.store import Database


def test_foreign_stamps_become_iso_and_lock_fields_stay() -> None:
    doc = {"created": "Fri Nov 27 2026 19:54:46 GMT+0100 (Central European Standard Time)",
           "modified": 1795000000000, "lastModified": "2026-11-27T18:54:46.000Z",
           "lockedAt": "Fri Nov 27 2026 19:54:46 GMT+0000", "createdAt": "not a date"}
    normalise_foreign_dates(doc)
    assert doc["created"] == "2026-11-27T18:54:46.000Z"
    assert doc["modified"].endswith("Z") and doc["modified"].startswith("2026-")
    assert doc["lastModified"] == "2026-11-27T18:54:46.000Z"
    assert doc["lockedAt"] == "Fri Nov 27 2026 19:54:46 GMT+0000"  # lock fields change only by locking
    assert doc["createdAt"] == "not a date"  # left for validation to name


def test_editing_a_document_a_drafft_teammate_stamped(tmp_path: Path) -> None:
    store = Database(tmp_path / "p.sqlite")
    editor = Editor(store, username="alice")
    doc_id = editor.create("Script", "Intro", content={"script": "one\n"}).id
    # As replication brings a Drafft teammate's revision in: written raw, not through the editor.
    raw = store.get(doc_id)
    raw["created"] = "Fri Nov 27 2026 19:54:46 GMT+0000 (Coordinated Universal Time)"
    raw["modified"] = "Fri Nov 27 2026 19:55:00 GMT+0000 (Coordinated Universal Time)"
    store.put(raw)
    editor.patch(doc_id, {"content": {"script": "two\n"}})
    stored = store.get(doc_id)
    assert stored["created"] == "2026-11-27T19:54:46.000Z" and stored["modified"].endswith("Z")
    assert stored["content"]["script"] == "two\n"

    raw = store.get(doc_id)
    raw["created"] = "yesterday"
    store.put(raw)
    with pytest.raises(ValidationError, match="created"):
        editor.patch(doc_id, {"content": {"script": "three\n"}})
    store.close()


def test_editing_a_document_a_drafft_teammate_created_without_a_sort_key(tmp_path: Path) -> None:
    """Drafft keeps order in its folders' ``children``, not in a ``sortKey``: the first edit here
    places such a document at the end of its siblings instead of refusing the edit."""
    store = Database(tmp_path / "p.sqlite")
    editor = Editor(store, username="alice")
    first = editor.create("Script", "First", content={"script": "a\n"}).id
    # A Drafft teammate's new script, as replication brings it in (raw, no sortKey).
    store.put({"_id": "drafft-script-1", "type": "Script", "collection": "Script", "name": "From Drafft",
               "parent": None, "content": {"script": "hello\n"}, "locked": False, "lockedBy": "nobody",
               "created": "2026-11-27T10:00:00.000Z", "modified": "2026-11-27T10:00:00.000Z"})
    editor.patch("drafft-script-1", {"content": {"script": "hello again\n"}})
    stored = store.get("drafft-script-1")
    assert stored["content"]["script"] == "hello again\n"
    assert stored["sortKey"] > store.get(first)["sortKey"]
    # A key the edit itself breaks is still refused.
    with pytest.raises(ValidationError, match="sortKey"):
        editor.patch("drafft-script-1", {"sortKey": "bad key"})
    store.close()
