"""Folders: Drafft's ``children`` arrays become each document's ``parent`` and ``sortKey``."""

from __future__ import annotations

from typing import Any

from storyloom.diagnostics import name_list
from storyloom.drafft.report import ImportReport, describe, free_key, note
from storyloom.project import (
    FOLDER_TYPE,
    TREE_COLLECTIONS,
    order_key,
    spread_keys,
)


def build_tree(docs: dict[str, dict[str, Any]], children_of: dict[str, list[str]], report: ImportReport) -> None:
    """Each tree document gets ``parent`` (kept, or adopted from a folder's children array when
    it had none) and a ``sortKey`` giving the order of the folder's children array; documents
    a folder does not list, and the top level, are ordered by name.

    A parent validation would refuse or that does not exist (not a folder, a folder of another
    collection, a missing document, a parent cycle) is replaced by the folder listing the
    document in its children array when that one fits, else by the top level; the value is kept
    as ``originalParent``, with a warning."""
    tree_docs = {i: d for i, d in docs.items() if d.get("type") == FOLDER_TYPE or d.get("type") in TREE_COLLECTIONS}
    for folder_id, child_ids in children_of.items():
        for child_id in child_ids:
            child = tree_docs.get(child_id)
            if child is None:
                if child_id not in docs:
                    report.warnings.append(f"{folder_id}: children lists {child_id!r}, which is not in the backup")
                continue
            parent = child.get("parent")
            problem = None if parent in (None, "") else _parent_problem(child, parent, docs)
            if (parent in (None, "") or problem) and _parent_problem(child, folder_id, docs) is None:
                if problem:
                    _replace_parent(child, folder_id, problem, f"placed in folder {folder_id!r}, which lists it",
                                    report)
                else:
                    child["parent"] = folder_id
    for doc in tree_docs.values():
        parent = doc.get("parent")
        if parent in (None, ""):
            doc["parent"] = None  # top level ("" is how some documents say it)
            continue
        problem = _parent_problem(doc, parent, docs)
        if problem:
            _replace_parent(doc, None, problem, "moved to the top level", report)
    for doc in tree_docs.values():
        chain = [doc["_id"]]
        current = doc.get("parent")
        while isinstance(current, str) and current not in chain[1:]:
            chain.append(current)
            if current == doc["_id"]:
                cycle = name_list(chain, separator=" > ")
                _replace_parent(doc, None, f"puts it inside itself ({cycle})", "moved to the top level", report)
                break
            current = docs[current].get("parent") if current in docs else None
    groups: dict[tuple[str | None, str | None], list[dict[str, Any]]] = {}
    for doc in tree_docs.values():
        doc.setdefault("parent", None)
        parent = doc["parent"] if isinstance(doc["parent"], str) and doc["parent"] in docs else None
        key = (parent, None if parent else doc.get("collection"))
        groups.setdefault(key, []).append(doc)
    for (parent, _), members in groups.items():
        listed = children_of.get(parent, []) if parent else []
        position = {child_id: i for i, child_id in enumerate(dict.fromkeys(listed))}
        members.sort(
            key=lambda d: (
                position.get(d["_id"], len(position)),
                str(d.get("name", "")).casefold(),
                order_key(d),
            )
        )
        for doc, sort_key in zip(members, spread_keys(len(members)), strict=True):
            doc["sortKey"] = sort_key


def _parent_problem(doc: dict[str, Any], parent: Any, docs: dict[str, dict[str, Any]]) -> str | None:
    """Why ``parent`` cannot be ``doc``'s parent (``None``: it can)."""
    if not isinstance(parent, str):
        return f"is {describe(parent)}, not a document id"
    if parent == doc.get("_id"):
        return "is the document itself"
    folder = docs.get(parent)
    if folder is None:
        return "does not exist in the backup"
    if folder.get("type") != FOLDER_TYPE:
        return f"is a {folder.get('type') or 'document without a type'}, not a folder"
    if folder.get("collection") != doc.get("collection"):
        return f"is a folder of {folder.get('collection')!r}, not of {doc.get('collection')!r}"
    return None


def _replace_parent(doc: dict[str, Any], new_parent: str | None, problem: str, outcome: str,
                    report: ImportReport) -> None:
    original = doc.get("parent")
    kept = free_key(doc, "originalParent")
    doc[kept] = original
    doc["parent"] = new_parent
    report.warnings.append(f"{doc['_id']}: parent {original!r} {problem}; {outcome} (the value is kept as {kept})")
    note(report, doc["_id"], "repair: parent replaced, the old one kept as originalParent")
