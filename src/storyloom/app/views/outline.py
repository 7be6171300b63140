"""The collection trees the desktop app shows, and the tree edits it sends: Qt-free rules.

:func:`build_outline` turns the index's summaries into one collection's tree (folders first,
each group in the user's order by ``sortKey``); :func:`read_top` and :func:`read_children` read the
same tree from the index a level at a time (the desktop app's tree reads a folder when it is first
shown or asked about: a 100,000-document project shows its top level at once); :func:`create_in`, :func:`duplicate` and
:func:`drop_placement` decide names and places so the GUI only forwards intents to the editor.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from storyloom.project import FOLDER_TYPE, DocSummary, Editor, WriteResult, new_id, without_line_ids

if TYPE_CHECKING:
    from storyloom.project import ProjectIndex

UNTITLED = "Untitled"
# What a fresh document of each collection is called ("New Script", "New Script 2"...).
_NEW_NAMES = {"Gdd": "New GDD", "Misc": "New Misc", "Kanban": "New Board", "Canvas": "New Canvas"}


@dataclass
class OutlineNode:
    """One row of a collection tree."""

    id: str
    name: str
    is_folder: bool
    parent: str | None
    order: tuple[str, str]
    children: list[OutlineNode] = field(default_factory=list)
    #: Whether ``children`` holds the node's children (a node read a level at a time holds none
    #: until its folder is read: :func:`read_children`).
    loaded: bool = True
    #: For a node not ``loaded``: whether it has children in the tree.
    has_children: bool = False


def display_name(name: Any) -> str:
    """A document's name as a tree row shows it (a missing or blank name reads "Untitled")."""
    return name.strip() if isinstance(name, str) and name.strip() else UNTITLED


def _sort_key(node: OutlineNode) -> tuple[bool, tuple[str, str]]:
    return (not node.is_folder, node.order)


def build_outline(summaries: Iterable[DocSummary], collection: str) -> list[OutlineNode]:
    """The top-level nodes of ``collection``'s tree, folders first, each group in sortKey order.

    A document whose parent is missing (or in another collection) is shown at the top level; a
    parent cycle (possible only after replicating concurrent moves) is cut so every document
    appears once."""
    nodes = {
        s.id: OutlineNode(s.id, display_name(s.name), s.type == FOLDER_TYPE, s.parent, s.order)
        for s in summaries
        if s.is_tree and s.collection == collection
    }
    top: list[OutlineNode] = []
    for node in nodes.values():
        parent = nodes.get(node.parent) if node.parent else None
        if parent is None or parent is node:
            top.append(node)
        else:
            parent.children.append(node)
    reached: set[str] = set()
    stack = list(top)
    while stack:
        node = stack.pop()
        reached.add(node.id)
        stack.extend(node.children)
    for node in nodes.values():  # members of a cycle: shown at the top, their children kept
        if node.id not in reached:
            top.append(node)
            stack = [node]
            while stack:
                current = stack.pop()
                reached.add(current.id)
                current.children = [c for c in current.children if c.id not in reached]
                stack.extend(current.children)
    for node in nodes.values():
        node.children.sort(key=_sort_key)
    top.sort(key=_sort_key)
    return top


def _node(summary: DocSummary, has_children: bool) -> OutlineNode:
    return OutlineNode(summary.id, display_name(summary.name), summary.type == FOLDER_TYPE, summary.parent,
                       summary.order, loaded=False, has_children=has_children)


def read_top(index: ProjectIndex, collection: str) -> tuple[list[OutlineNode], set[str]]:
    """The top level of ``collection``'s tree as :func:`build_outline` orders it, read from the
    index (:meth:`~storyloom.project.ProjectIndex.tree_top`), each node not yet ``loaded``; and
    the ids where parent cycles are cut (shown at the top, under no folder)."""
    rows, cut = index.tree_top(collection)
    nodes = [_node(summary, has_children) for summary, has_children in rows]
    nodes.sort(key=_sort_key)
    return nodes, cut


def read_children(index: ProjectIndex, collection: str, parent_id: str, cut: set[str]) -> list[OutlineNode]:
    """The children of ``parent_id`` in ``collection``'s tree, in order, each not yet ``loaded``
    (``cut``: the ids :func:`read_top` shows at the top instead)."""
    nodes = [_node(summary, has_children) for summary, has_children in index.tree_children(parent_id, collection)
             if summary.id not in cut]
    nodes.sort(key=_sort_key)
    return nodes


def new_name(collection: str, taken: Iterable[str], *, folder: bool = False) -> str:
    """A name for a new document or folder that none of its siblings (``taken``) has."""
    base = "New Folder" if folder else _NEW_NAMES.get(collection, f"New {collection}")
    names = set(taken)
    if base not in names:
        return base
    number = 2
    while f"{base} {number}" in names:
        number += 1
    return f"{base} {number}"


def create_in(editor: Editor, collection: str, parent: str | None, *, folder: bool = False,
              name: str | None = None) -> WriteResult:
    """Create a document of ``collection`` (or a folder of it) at the end of ``parent``."""
    siblings = editor.index.siblings(parent, collection)
    chosen = name or new_name(collection, (display_name(s.name) for s in siblings), folder=folder)
    if folder:
        return editor.create(FOLDER_TYPE, chosen, parent=parent, collection=collection)
    return editor.create(collection, chosen, parent=parent)


def duplicate(editor: Editor, doc_id: str) -> WriteResult:
    """A copy of a document right after it, named "<name> copy" (unlocked, with a new id).

    Folders are not duplicated (their content would need copying too): a ``ValueError`` says so."""
    original = editor.get(doc_id)
    if original.get("type") == FOLDER_TYPE:
        raise ValueError("folders cannot be duplicated; duplicate the documents inside instead")
    doc = {k: copy.deepcopy(v) for k, v in original.items()
           if k not in ("_rev", "_attachments", "_conflicts", "sortKey", "created", "createdBy", "modified",
                        "modifiedBy")}
    doc["_id"] = new_id()
    doc["name"] = f"{display_name(original.get('name'))} copy"
    without_line_ids(doc)  # a copy's lines are new lines: the gate gives them ids of their own
    if "locked" in doc:
        doc["locked"] = False
        doc["lockedBy"] = "nobody"
    return editor.create_document(doc, after=doc_id)


@dataclass(frozen=True)
class Placement:
    """Where a dropped document goes: under ``parent`` (``None``: top level), before ``before``
    (``None``: at the end)."""

    parent: str | None
    before: str | None


def drop_placement(parent: str | None, siblings: Sequence[str], row: int, moved: Sequence[str]) -> Placement:
    """The placement of documents ``moved`` dropped at ``row`` among ``siblings`` (the ids under
    ``parent`` as shown; ``row`` -1 or past the end: at the end). The first sibling at or after
    ``row`` that is not itself moved is the one they go before."""
    if row < 0:
        return Placement(parent, None)
    moving = set(moved)
    for sibling in siblings[row:]:
        if sibling not in moving:
            return Placement(parent, sibling)
    return Placement(parent, None)


def can_move_into(editor: Editor, doc_id: str, parent: str | None) -> bool:
    """False when ``parent`` is ``doc_id`` or inside it (a folder cannot go into itself)."""
    if parent is None:
        return True
    return parent != doc_id and doc_id not in editor.index.ancestors(parent)
