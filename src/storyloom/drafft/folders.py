"""Folders: Drafft's ``children`` arrays become each document's ``parent`` and ``sortKey``."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Mapping, MutableMapping
from typing import Any

from storyloom.diagnostics import name_list
from storyloom.drafft.report import ImportReport, describe, free_key, note
from storyloom.project import (
    FOLDER_TYPE,
    TREE_COLLECTIONS,
    order_key,
    spread_keys,
)


def build_tree(docs: MutableMapping[str, dict[str, Any]], children_of: Mapping[str, list[str]],
               report: ImportReport) -> None:
    """Each tree document gets ``parent`` (kept, or adopted from a folder's children array when
    it had none) and a ``sortKey`` giving the order of the folder's children array; documents
    a folder does not list, and the top level, are ordered by name.

    A parent validation would refuse or that does not exist (not a folder, a folder of another
    collection, a missing document, a parent cycle) is replaced by the folder listing the
    document in its children array when that one fits, else by the top level; the value is kept
    as ``originalParent``, with a warning.

    ``docs`` (id to summary) may be a :class:`~storyloom.project.DiskMapping`: the passes read
    one summary at a time, set again each one they change, and hold one folder's children at a
    time (the groups wait in a temporary SQLite table), so memory stays flat whatever the size."""
    for folder_id, child_ids in children_of.items():
        for child_id in child_ids:
            child = docs.get(child_id)
            if child is None or not _in_tree(child):
                if child is None:
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
                docs[child_id] = child
    for doc_id, doc in docs.items():
        if not _in_tree(doc):
            continue
        parent = doc.get("parent")
        if parent in (None, ""):
            if "parent" not in doc or parent is not None:
                doc["parent"] = None  # top level ("" is how some documents say it)
                docs[doc_id] = doc
            continue
        problem = _parent_problem(doc, parent, docs)
        if problem:
            _replace_parent(doc, None, problem, "moved to the top level", report)
            docs[doc_id] = doc
    with contextlib.closing(sqlite3.connect("")) as groups:  # a private temporary database on disk
        groups.execute("PRAGMA cache_size = -2048")  # KiB: a bounded cache
        groups.execute("CREATE TABLE member (parent TEXT, collection TEXT, id TEXT NOT NULL)")
        for doc_id, doc in docs.items():
            if not _in_tree(doc):
                continue
            chain = [doc_id]
            current = doc.get("parent")
            while isinstance(current, str) and current not in chain[1:]:
                chain.append(current)
                if current == doc_id:
                    cycle = name_list(chain, separator=" > ")
                    _replace_parent(doc, None, f"puts it inside itself ({cycle})", "moved to the top level", report)
                    docs[doc_id] = doc
                    break
                found = docs.get(current)
                current = found.get("parent") if found is not None else None
            parent = doc["parent"] if isinstance(doc.get("parent"), str) and doc["parent"] in docs else None
            groups.execute("INSERT INTO member VALUES (?, ?, ?)",
                           (parent, None if parent else _text_key(doc.get("collection")), doc_id))
        rows = groups.execute("SELECT parent, collection, id FROM member ORDER BY parent, collection, rowid")
        group: tuple[Any, Any] | None = None
        members: list[str] = []
        for parent, collection, doc_id in rows:
            if (parent, collection) != group and members:
                _order(docs, group[0] if group else None, members, children_of)
                members = []
            group = (parent, collection)
            members.append(doc_id)
        if members:
            _order(docs, group[0] if group else None, members, children_of)


def _in_tree(doc: Mapping[str, Any]) -> bool:
    return doc.get("type") == FOLDER_TYPE or doc.get("type") in TREE_COLLECTIONS


def _text_key(collection: Any) -> str | None:
    """A summary's collection as a group key SQLite can hold (``None`` and text as they are)."""
    return collection if collection is None or isinstance(collection, str) else f"{type(collection)}:{collection!r}"


def _order(docs: MutableMapping[str, dict[str, Any]], parent: str | None, ids: list[str],
           children_of: Mapping[str, list[str]]) -> None:
    """The ``sortKey`` of one group's members (a folder's children, or one collection's top
    level): the folder's children array's order first, then by name."""
    members = [docs[doc_id] for doc_id in ids]
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
        docs[doc["_id"]] = doc


def _parent_problem(doc: Mapping[str, Any], parent: Any, docs: Mapping[str, Mapping[str, Any]]) -> str | None:
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
