"""What an autosave costs the window beyond its write: the panels that follow the saved document
(the lock marks, the tree, the Problems dock) do not read it from the store on the GUI thread (a
5,000-line script is about 5 ms a read: JSON and its CRC); the gate reads the revision it
replaces."""

from __future__ import annotations

from tests.gui.support import first_document


def test_an_autosave_reads_the_saved_document_once(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    doc_id = first_document(window, "Script")
    editor = window.tabs.open(doc_id)
    window.problems_panel.wait_until_checked()
    db = window.session.db._db  # the store behind the session's read view (the editor's too)
    reads: list[str] = []
    get = db.get

    def counted(read_id, *args, **kwargs):  # type: ignore[no-untyped-def]
        reads.append(read_id)
        return get(read_id, *args, **kwargs)

    editor.text.setPlainText(editor.text.toPlainText() + "\n::Narrator:: One more line.")
    db.get = counted  # the real read, counted
    try:
        with qtbot.waitSignal(window.bridge.documents_changed, timeout=10000):
            assert editor.save()
        window.problems_panel.wait_until_checked()
    finally:
        del db.get
    # The gate reads the current revision before writing it; the lock marks take what was saved
    # from the editor (the index's current revision), not from the store.
    assert reads.count(doc_id) <= 1, reads
    reads.clear()
    db.get = counted
    try:
        editor.text.insertPlainText("A")  # the first edit after the save: the lock state again
    finally:
        del db.get
    assert reads.count(doc_id) <= 1, reads
