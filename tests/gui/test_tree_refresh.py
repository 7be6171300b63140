"""The explorer's tree follows the session's changes row by row: a save that changes nothing the
tree shows (the autosave of a script being typed) leaves it alone, a rename repaints one row, a
move, a creation and a deletion move, insert and remove rows; the tree stays what a fresh build
from the index shows, with the open folders and the selection kept (on the garden sample)."""

from __future__ import annotations

import random

from tests.gui.support import first_document


def _shape(model, parent=None) -> list:  # type: ignore[no-untyped-def]
    """The tree as nested (id, name, is folder, children) tuples, in row order."""
    from PySide6.QtCore import QModelIndex

    from storyloom.gui.tree_model import FOLDER_ROLE, ID_ROLE

    parent = parent or QModelIndex()
    rows = []
    for row in range(model.rowCount(parent)):
        index = model.index(row, 0, parent)
        assert index.parent() == parent  # the parents the view is told agree with the rows
        rows.append((index.data(ID_ROLE), index.data(), index.data(FOLDER_ROLE), _shape(model, index)))
    return rows


def _persistent(model, parent=None) -> dict:  # type: ignore[no-untyped-def]
    """A persistent index of every row, by id (as a view keeps its open folders and selection)."""
    from PySide6.QtCore import QModelIndex, QPersistentModelIndex

    from storyloom.gui.tree_model import ID_ROLE

    parent = parent or QModelIndex()
    found = {}
    for row in range(model.rowCount(parent)):
        index = model.index(row, 0, parent)
        found[index.data(ID_ROLE)] = QPersistentModelIndex(index)
        found.update(_persistent(model, index))
    return found


def _fresh(window):  # type: ignore[no-untyped-def]
    from storyloom.gui.tree_model import CollectionTreeModel

    return _shape(CollectionTreeModel(window.session, window.explorer.collection))


class Signals:
    """How many times the model said it was reset, and which rows it said changed or moved."""

    def __init__(self, model) -> None:  # type: ignore[no-untyped-def]
        from storyloom.gui.tree_model import ID_ROLE

        self.resets = 0
        self.changed: list[str] = []
        self.structure = 0
        model.modelReset.connect(self._reset)
        model.dataChanged.connect(lambda first, _last, *_roles: self.changed.append(first.data(ID_ROLE)))
        for signal in (model.rowsInserted, model.rowsRemoved, model.rowsMoved, model.layoutChanged):
            signal.connect(self._structure)

    def _reset(self) -> None:
        self.resets += 1

    def _structure(self, *_args: object) -> None:
        self.structure += 1


def _delivered(window, qtbot, write) -> None:  # type: ignore[no-untyped-def]
    """Run ``write`` and wait for its changes to reach the window."""
    with qtbot.waitSignal(window.bridge.documents_changed, timeout=10000):
        write()


def _followed(window, qtbot, write) -> None:  # type: ignore[no-untyped-def]
    """Run ``write`` and wait for the tree to show what a fresh build from the index shows (a
    write may reach the window in more than one batch of changes)."""
    write()
    qtbot.waitUntil(lambda: _shape(window.explorer.model) == _fresh(window), timeout=10000)


def test_saving_a_script_whose_tree_fields_do_not_change_leaves_the_tree_alone(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    doc_id = first_document(window, "Script")
    model = window.explorer.model
    before = _shape(model)
    signals = Signals(model)
    editor = window.tabs.open(doc_id)
    editor.text.setPlainText(editor.text.toPlainText() + "\n::Narrator:: One more line.")
    _delivered(window, qtbot, editor.save)
    assert window.explorer.model is model
    assert (signals.resets, signals.structure, signals.changed) == (0, 0, [])
    assert _shape(model) == before


def test_a_rename_elsewhere_repaints_its_row_and_keeps_open_folders_and_selection(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    explorer = window.explorer
    model = explorer.model
    folder = model.index(0, 0)
    assert model.node(folder).is_folder and model.rowCount(folder)
    explorer.view.expand(folder)
    child = model.node(model.index(0, 0, folder)).id
    explorer.reveal(child)
    signals = Signals(model)
    _delivered(window, qtbot, lambda: window.session.editor.rename(child, "Renamed elsewhere"))
    assert (signals.resets, signals.structure, signals.changed) == (0, 0, [child])
    assert model.index_of(child).data() == "Renamed elsewhere"
    assert explorer.view.isExpanded(model.index_of(model.node(folder).id))
    assert explorer.selected_ids() == [child]
    assert _shape(model) == _fresh(window)


def test_moves_creations_and_deletions_update_rows_not_the_whole_tree(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    from storyloom.app.views.outline import create_in

    explorer = window.explorer
    model = explorer.model
    session = window.session
    folder = model.node(model.index(0, 0))
    assert folder.is_folder
    explorer.view.expand(model.index_of(folder.id))
    selected = model.node(model.index(model.rowCount() - 1, 0)).id
    explorer.reveal(selected)
    signals = Signals(model)
    created: list[str] = []
    _followed(window, qtbot, lambda: created.append(create_in(session.editor, "Script", folder.id).id))
    moved = folder.children[0].id
    _followed(window, qtbot, lambda: session.editor.move(moved, None))
    _followed(window, qtbot, lambda: session.editor.move(moved, folder.id, before=created[0]))
    _followed(window, qtbot, lambda: session.editor.delete(created[0]))
    subfolder = create_in(session.editor, "Script", folder.id, folder=True).id
    _followed(window, qtbot, lambda: create_in(session.editor, "Script", subfolder))
    _followed(window, qtbot, lambda: session.editor.delete(subfolder, recursive=True))
    assert signals.resets == 0 and signals.structure >= 6
    assert explorer.view.isExpanded(model.index_of(folder.id))
    assert explorer.selected_ids() == [selected]
    assert explorer.view.currentIndex().data() == model.index_of(selected).data()


def test_random_edits_elsewhere_keep_the_tree_equal_to_a_fresh_build(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    from storyloom.gui.tree_model import ID_ROLE

    explorer = window.explorer
    session = window.session
    rng = random.Random(24)
    for step in range(40):
        ids: list[str] = [s.id for s in session.index.summaries() if s.is_tree and s.collection == "Script"]
        folders: list[str | None] = [None, *(s.id for s in session.index.summaries()
                                             if s.is_tree and s.collection == "Script" and s.type == "Folder")]
        doc_id = rng.choice(ids)
        kind = rng.choice(["rename", "move", "move", "create", "folder", "delete", "save"])

        write = _random_write(session, rng, step, kind, doc_id, ids, folders)
        for index in (explorer.model.index(row, 0) for row in range(explorer.model.rowCount())):
            explorer.view.expand(index)
        kept = _persistent(explorer.model)
        _followed(window, qtbot, write)
        # What the view holds on to (open folders, the selection) follows the rows moved.
        for doc, index in kept.items():
            assert not index.isValid() or index.data(ID_ROLE) == doc, (step, kind, doc)
        for doc in explorer._expanded:
            assert explorer.view.isExpanded(explorer.model.index_of(doc)), (step, kind, doc)
        assert all(i.data(ID_ROLE) for i in explorer.view.selectionModel().selectedRows())


def _random_write(session, rng, step: int, kind: str, doc_id: str, ids: list[str],  # type: ignore[no-untyped-def]
                  folders: list[str | None]):
    """One edit made elsewhere: ``kind`` of ``doc_id`` (a save that changes nothing the tree shows
    when the edit is refused, a move into itself say: the tree must stay right then too)."""
    from storyloom.app.views.outline import create_in
    from storyloom.errors import StoryloomError

    def write() -> None:
        try:
            if kind == "rename":
                session.editor.rename(doc_id, f"Renamed {step}")
            elif kind == "move":
                before = rng.choice([None, *ids])
                parent = rng.choice(folders)
                if before is not None:
                    summary = session.index.get(before)
                    parent = summary.parent if summary is not None else parent
                session.editor.move(doc_id, parent, before=before)
            elif kind in ("create", "folder"):
                create_in(session.editor, "Script", rng.choice(folders), folder=kind == "folder")
            elif kind == "delete":
                session.editor.delete(doc_id, recursive=True)
            else:
                session.editor.patch(doc_id, {"modified": f"step {step}"})
        except (StoryloomError, ValueError):
            session.editor.patch(doc_id, {"modified": f"step {step}"})

    return write


def test_the_rail_counts_follow_creations_and_deletions_not_saves(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import Qt

    from storyloom.app.views.outline import create_in

    def scripts() -> str:
        rail = window.sidebar.list
        return next(rail.item(row).text() for row in range(rail.count())
                    if rail.item(row).data(Qt.ItemDataRole.UserRole) == "Script")

    shown = scripts()
    count = sum(1 for s in window.session.index.summaries() if s.type == "Script")
    assert shown.endswith(f" {count}")
    doc_id = first_document(window, "Script")
    editor = window.tabs.open(doc_id)
    editor.text.setPlainText(editor.text.toPlainText() + "\n::Narrator:: One more line.")
    _delivered(window, qtbot, editor.save)
    assert not window._counts.isActive()  # a save counts nothing again (every document read)
    created = create_in(window.session.editor, "Script", None).id
    qtbot.waitUntil(lambda: scripts().endswith(f" {count + 1}"), timeout=5000)
    window.session.editor.delete(created)
    qtbot.waitUntil(lambda: scripts().endswith(f" {count}"), timeout=5000)


def test_the_tree_reads_a_folder_when_it_is_first_asked_for(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    """Opening a collection reads its top level; a folder is read when the view first asks for
    its rows (it is opened) or a row inside it is revealed, and then shows what a whole outline
    from every summary shows."""
    from storyloom.app.views.outline import build_outline

    explorer = window.explorer
    model = explorer.model
    folders = [model.node(model.index(row, 0)) for row in range(model.rowCount())]
    folders = [node for node in folders if node.is_folder]
    assert folders and not any(node.loaded for node in folders)
    assert model.hasChildren(model.index_of(folders[0].id))  # the view draws its expander unread
    explorer.view.expand(model.index_of(folders[0].id))
    assert folders[0].loaded
    whole = {node.id: node for node in build_outline(window.session.index.summaries(), "Script")}
    assert [child.id for child in folders[0].children] == [child.id for child in whole[folders[0].id].children]
    if len(folders) > 1:
        inside = whole[folders[1].id].children[0].id
        assert not model.shows(inside)
        explorer.reveal(inside)
        assert folders[1].loaded and explorer.selected_ids() == [inside]
