"""Issue 13, revisions and conflicts in the window (pytest-qt, offscreen, the real session and
store): the info drawer lists revisions, diffs one against the current version and restores it
through the gate (a lock refuses it, shown); a conflict made in two stores (the other leaf
written with ``bulk_docs(new_edits=False)``, as replication writes it) is flagged in the tree and
the tab, merged in the merge view by choosing fields and settling a text passage, saved, and
gone; a remote change to a document with unsaved text shows the "changed remotely" banner, its
diff and a merge, and never loses the typed text."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from storyloom.gui.merge_view import MergeView, TextCard, ValueCard
from storyloom.project.conflicts import list_conflicts
from storyloom.project.editor import Editor, WriteIntent
from storyloom.project.locks import TeamLocks
from storyloom.store import Database
from storyloom.sync import RemoteDatabase, pull, push
from tests.gui.support import first_document
from tests.support.couch import couch, couch_server  # noqa: F401  (pouchdb-server fixtures)
from tests.support.two_stores import edit_elsewhere

pytestmark = pytest.mark.slow  # a second or more a test

SCRIPT = "".join(f"::Woman:: line {n}\n" for n in range(1, 11))


def _script(window) -> str:  # type: ignore[no-untyped-def]
    doc_id = first_document(window, "Script")
    window.session.editor.patch(doc_id, {"content": {"script": SCRIPT}})
    return doc_id


def _drawer(window, qtbot):  # type: ignore[no-untyped-def]
    window.info_drawer.toggleViewAction().trigger()
    qtbot.waitUntil(window.info_drawer.isVisible)
    return window.info_drawer


def test_the_drawer_lists_revisions_diffs_and_restores(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    doc_id = _script(window)
    first = window.session.db.get(doc_id)["_rev"]
    window.session.editor.rename(doc_id, "Renamed")
    window.session.editor.patch(doc_id, {"content": {"script": SCRIPT.replace("line 4", "line four")}})
    editor = window.tabs.open(doc_id)
    drawer = _drawer(window, qtbot)
    assert drawer.doc_id == doc_id and drawer.title.text() == "Renamed"
    assert drawer.modified.text().endswith("by tester")
    items = [drawer.revisions.item(i).text() for i in range(drawer.revisions.count())]
    assert "current" in items[0] and "Changed Script" in items[0] and "Changed Name" in items[1]
    number = int(first.split("-")[0])
    row = next(i for i in range(drawer.revisions.count()) if drawer.revisions.item(i).data(Qt.ItemDataRole.UserRole)
               == first)
    drawer.revisions.setCurrentRow(row)
    assert {d.path for d in drawer.diff.diffs} == {"name", "content.script"}
    text = drawer.diff.toPlainText()
    assert "line four" in text and "line 4" in text and f"Revision {number}" in drawer.compare_title.text()
    assert drawer.restore_button.isEnabled()
    drawer.restore_button.click()
    doc = window.session.db.get(doc_id)
    assert doc["content"]["script"] == SCRIPT and doc["name"] != "Renamed"
    assert "Restored revision" in drawer.message.text()
    qtbot.waitUntil(lambda: editor.text.toPlainText() == SCRIPT, timeout=5000)  # the open tab follows
    assert "current" in drawer.revisions.item(0).text()


def test_a_restore_refused_by_a_lock_is_shown_and_changes_nothing(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    doc_id = _script(window)
    first = window.session.db.get(doc_id)["_rev"]
    window.session.editor.patch(doc_id, {"content": {"script": "changed\n"}})
    editor = window.session.editor
    editor.lock_policy = TeamLocks(lambda: "bob", lambda: False)
    editor.update(editor.get(doc_id) | {"locked": True, "lockedBy": "bob", "lockedAt": "2026-01-01T10:00:00.000Z"},
                  intent=WriteIntent.LOCK)
    editor.lock_policy = TeamLocks(lambda: "tester", lambda: False)
    window.tabs.open(doc_id)
    drawer = _drawer(window, qtbot)
    qtbot.waitUntil(lambda: "Locked by bob" in drawer.revisions.item(0).text(), timeout=5000)
    row = next(i for i in range(drawer.revisions.count()) if drawer.revisions.item(i).data(Qt.ItemDataRole.UserRole)
               == first)
    drawer.revisions.setCurrentRow(row)
    assert drawer.restore_selected() is False
    assert "Not restored" in drawer.message.text() and "bob" in drawer.message.text()
    assert window.session.db.get(doc_id)["content"]["script"] == "changed\n"


def test_a_conflict_is_flagged_merged_in_the_merge_view_and_gone(window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    doc_id = _script(window)
    start = window.session.db.get(doc_id)["_rev"]
    mine = SCRIPT.replace("line 2\n", "line 2, as I see it\n").replace("line 9\n", "line 9 by me\n")
    window.session.editor.patch(doc_id, {"content": {"script": mine}, "color": "blue"})
    editor = window.tabs.open(doc_id)
    theirs = SCRIPT.replace("line 2\n", "line 2, as bob sees it\n").replace("line 6\n", "line 6 by bob\n")
    edit_elsewhere(window.session.project.store, doc_id, "bob", tmp_path, from_rev=start,
                   content_script=theirs, color="red", tags=["act 1"])
    marks = window.conflict_marks
    qtbot.waitUntil(lambda: marks.flags.flag(doc_id) is not None, timeout=10000)
    # flagged in the tree, the tab and the editor
    window.explorer.reveal(doc_id)
    index = window.explorer.model.index_of(doc_id)
    assert "In conflict: 2 versions" in index.data(Qt.ItemDataRole.ToolTipRole)
    assert "In conflict" in window.tabs.tabToolTip(window.tabs.indexOf(editor))
    bar = marks.bar(editor)
    assert bar.isVisibleTo(editor) and bar.button.isVisibleTo(editor)
    bar.button.click()
    view = marks.views[doc_id]
    assert isinstance(view, MergeView) and view.isVisible()
    cards = {card.row.path: card for card in view.cards}
    assert set(cards) == {"color", "tags", "content.script"}
    bob = next(i for i, side in enumerate(view.form.sides) if side.author == "bob")
    me = 1 - bob
    assert view.form.sides[me].label.startswith("You")
    color = cards["color"]
    assert isinstance(color, ValueCard) and color.radios[0].isChecked()  # both changed: the current kept
    color.radios[bob].click()  # choose bob's colour
    assert isinstance(cards["tags"], ValueCard) and cards["tags"].radios[bob].isChecked()  # only bob added it
    script = cards["content.script"]
    assert isinstance(script, TextCard) and script.radios["merged"].isChecked()
    assert len(script.blocks()) == 1 and script.take["both"].isVisible()
    assert not view.save_button.isEnabled() and "1 conflicting passage left" in view.state.text()
    script.settle("theirs" if view.form.sides[0].author == "bob" else "ours")  # keep my line 2
    assert script.blocks() == [] and view.save_button.isEnabled()
    view.save_button.click()
    assert not view.isVisible()
    assert list_conflicts(window.session.db) == []
    doc = window.session.db.get(doc_id)
    assert (doc["color"], doc["tags"]) == ("red", ["act 1"])
    assert "line 2, as I see it" in doc["content"]["script"] and "line 6 by bob" in doc["content"]["script"]
    assert "line 9 by me" in doc["content"]["script"] and "<<<<<<<" not in doc["content"]["script"]
    qtbot.waitUntil(lambda: marks.flags.flag(doc_id) is None, timeout=10000)
    assert "In conflict" not in window.tabs.tabToolTip(window.tabs.indexOf(editor))
    assert not bar.isVisibleTo(editor)
    qtbot.waitUntil(lambda: editor.text.toPlainText() == doc["content"]["script"], timeout=5000)


def test_a_text_passage_is_edited_by_hand_in_the_result(window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    doc_id = _script(window)
    start = window.session.db.get(doc_id)["_rev"]
    window.session.editor.patch(doc_id, {"content": {"script": SCRIPT.replace("line 5\n", "line 5 mine\n")}})
    edit_elsewhere(window.session.project.store, doc_id, "bob", tmp_path, from_rev=start,
                   content_script=SCRIPT.replace("line 5\n", "line 5 bob\n"))
    qtbot.waitUntil(lambda: window.conflict_marks.flags.flag(doc_id) is not None, timeout=10000)
    view = window.conflict_marks.open_merge(doc_id)
    assert view is not None
    card = view.card("content.script")
    assert isinstance(card, TextCard)
    card.go(0, select=True)
    assert card.result.textCursor().selectedText().startswith("<<<<<<<")
    card.result.textCursor().insertText("::Woman:: line 5, agreed")
    assert card.blocks() == [] and card.radios["edited"].isChecked()
    assert view.save()
    assert "line 5, agreed" in window.session.db.get(doc_id)["content"]["script"]
    assert list_conflicts(window.session.db) == []


def test_a_remote_change_while_typing_shows_the_banner_and_keeps_the_text(window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    doc_id = _script(window)
    editor = window.tabs.open(doc_id)
    typed = SCRIPT.replace("line 9\n", "line 9, typed here\n")
    editor.text.setPlainText(typed)
    assert editor.dirty
    edit_elsewhere(window.session.project.store, doc_id, "bob", tmp_path,
                   content_script=SCRIPT.replace("line 1\n", "line 1 from bob\n"))
    qtbot.waitUntil(lambda: editor.banner.kind == "warning", timeout=5000)
    assert "changed remotely by bob" in editor.banner.label.text()
    assert [b.text() for b in editor.banner.buttons if not b.isHidden()] == [
        "Show changes", "Merge…", "Keep mine", "Take theirs"]
    assert editor.text.toPlainText() == typed and editor.dirty
    qtbot.wait(1000)  # the autosave runs, is refused, and keeps both the text and the banner
    assert editor.text.toPlainText() == typed and "changed remotely" in editor.banner.label.text()

    changes = editor.show_changes()
    assert changes is not None
    assert "line 1 from bob" in changes.theirs.toPlainText() and "typed here" in changes.mine.toPlainText()
    changes.close()
    next(b for b in editor.banner.buttons if b.text() == "Take theirs").click()
    assert "line 1 from bob" in editor.text.toPlainText() and not editor.dirty
    assert editor.banner.kind == "info"
    next(b for b in editor.banner.buttons if b.text() == "Put my text back").click()
    assert editor.text.toPlainText() == typed and editor.dirty
    again = SCRIPT.replace("line 1\n", "line 1 from bob\n").replace("line 5\n", "line 5 from bob\n")
    edit_elsewhere(window.session.project.store, doc_id, "bob", tmp_path, content_script=again)
    qtbot.waitUntil(lambda: editor.banner.kind == "warning", timeout=5000)

    view = editor.merge_changes()
    assert isinstance(view, MergeView) and view.mode == "unsaved"
    card = view.card("content.script")
    assert isinstance(card, TextCard) and card.blocks() == []  # different lines: merged cleanly
    view.save_button.click()
    stored = window.session.db.get(doc_id)["content"]["script"]
    assert "line 5 from bob" in stored and "typed here" in stored
    assert editor.text.toPlainText() == stored and not editor.dirty and editor.banner.isHidden()


def test_a_remote_change_without_unsaved_text_refreshes_in_place(window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    doc_id = _script(window)
    editor = window.tabs.open(doc_id)
    edit_elsewhere(window.session.project.store, doc_id, "bob", tmp_path, content_script="from bob\n")
    qtbot.waitUntil(lambda: editor.text.toPlainText() == "from bob\n", timeout=5000)
    assert editor.banner.isHidden() and not editor.dirty


def test_an_offline_conflict_through_the_server_is_merged_and_every_machine_converges(  # type: ignore[no-untyped-def]
        window, qtbot, tmp_path: Path, couch) -> None:  # noqa: F811  (the fixture)
    doc_id = _script(window)
    name = couch.create_db()
    store = window.session.project.store
    ours = RemoteDatabase(couch.db_url(name), username=couch.admin[0], password=couch.admin[1])
    theirs = RemoteDatabase(couch.db_url(name), username=couch.admin[0], password=couch.admin[1])
    bob_db = Database(str(tmp_path / "bob.sqlite"))
    bob = Editor(bob_db, username="bob")
    try:
        assert push(store, ours).ok and pull(theirs, bob_db).ok
        # both edit while they do not sync: different lines, one value both changed
        window.session.editor.patch(doc_id, {"color": "#111111",
                                             "content": {"script": SCRIPT.replace("line 3\n", "line 3 (tester)\n")}})
        doc = bob.get(doc_id)
        doc.update(color="#222222", name="Bob's title",
                   content={**doc["content"], "script": SCRIPT.replace("line 8\n", "line 8 (bob)\n")})
        bob.update(doc)
        assert push(bob_db, theirs).ok
        assert push(store, ours).ok and pull(ours, store).ok
        qtbot.waitUntil(lambda: window.conflict_marks.flags.flag(doc_id) is not None, timeout=10000)
        view = window.conflict_marks.open_merge(doc_id)
        assert view is not None
        cards = {card.row.path: card for card in view.cards}
        assert set(cards) == {"color", "name", "content.script"}
        script = cards["content.script"]
        assert isinstance(script, TextCard) and script.blocks() == []  # merged line by line
        bob_index = next(i for i, side in enumerate(view.form.sides) if side.author == "bob")
        cards["color"].radios[bob_index].click()  # type: ignore[attr-defined]
        assert view.save()
        assert push(store, ours).ok and pull(theirs, bob_db).ok
        for db in (window.session.db, bob_db):
            merged = db.get(doc_id, conflicts=True)
            assert "_conflicts" not in merged
            assert (merged["color"], merged["name"]) == ("#222222", "Bob's title")
            assert "line 3 (tester)" in merged["content"]["script"] and "line 8 (bob)" in merged["content"]["script"]
        assert bob_db.get(doc_id)["_rev"] == window.session.db.get(doc_id)["_rev"]
        qtbot.waitUntil(lambda: window.conflict_marks.flags.flag(doc_id) is None, timeout=10000)
    finally:
        ours.close()
        theirs.close()
        bob_db.close()
