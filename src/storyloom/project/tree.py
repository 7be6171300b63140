"""The folder tree, derived: documents store ``parent`` and ``sortKey``, never ``children`` or ``path``.

Sort keys are fractional-index strings: base-62 digits (``0-9A-Za-z``, in ASCII order) read as
the digits of a fraction in ``[0, 1)``, never ending in ``"0"`` (so there is always room before
any key). Plain string comparison orders them. :func:`key_between` returns a key strictly
between two others; by default it appends a few random digits so that two users inserting
between the same two siblings at the same time (offline, say) almost never pick the same key.
Siblings with equal keys are still ordered deterministically, by ``_id``.

:func:`derive_tree` returns, for every document, its ordered ``children`` ids and its ``path``:
the ids from the root down to and including the document, joined by ``"."`` (document ids are
UUIDs or special ids such as ``DialogueFolder``, none containing a dot). Drafft stored a
dot-joined path of *names*, which is ambiguous (names contain dots, for example
``"02 - Kenji visits Aries."``) and changes on every rename; ids do neither.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from storyloom.errors import StoryloomError

DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
BASE = len(DIGITS)
_INDEX = {ch: i for i, ch in enumerate(DIGITS)}
JITTER_DIGITS = 4
PATH_SEPARATOR = "."

# Sorts after every valid key: documents without a sort key come last among their siblings.
_NO_KEY = "\U0010ffff"


class SortKeyError(StoryloomError, ValueError):
    """A malformed sort key, or bounds in the wrong order."""

    code = "bad_sort_key"


def is_valid_key(key: object) -> bool:
    """A non-empty string of base-62 digits that does not end in ``"0"``."""
    return (
        isinstance(key, str)
        and bool(key)
        and key[-1] != "0"
        and all(ch in _INDEX for ch in key)
    )


def _check(key: str | None, name: str) -> None:
    if key is not None and not is_valid_key(key):
        raise SortKeyError(
            f"{name}: expected a sort key (base-62 digits 0-9A-Za-z, not ending in '0'), got {key!r}"
        )


def _midpoint(a: str, b: str | None) -> str:
    """A key strictly between ``a`` (``""`` = 0) and ``b`` (``None`` = 1); no randomness."""
    if b is not None:
        n = 0
        while n < len(b) and (a[n] if n < len(a) else "0") == b[n]:
            n += 1
        if n > 0:
            return b[:n] + _midpoint(a[n:], b[n:])
    digit_a = _INDEX[a[0]] if a else 0
    digit_b = _INDEX[b[0]] if b is not None else BASE
    if digit_b - digit_a > 1:
        return DIGITS[(digit_a + digit_b + 1) // 2]
    if b is not None and len(b) > 1:
        return b[0]
    return DIGITS[digit_a] + _midpoint(a[1:], None)


def _random_tail(upper: str | None) -> str:
    """Random digits ``t`` (not ending in ``"0"``) with ``"" < t < upper`` (``None``: no bound)."""
    for _ in range(8):
        tail = "".join(secrets.choice(DIGITS) for _ in range(JITTER_DIGITS - 1))
        tail += secrets.choice(DIGITS[1:])
        if upper is None or tail < upper:
            return tail
    return _midpoint("", upper)


def _after(a: str) -> str:
    """A short key after ``a``: bump the first digit that can be bumped (appends stay short)."""
    for i, ch in enumerate(a):
        if _INDEX[ch] < BASE - 1:
            return a[:i] + DIGITS[_INDEX[ch] + 1]
    return a + DIGITS[BASE // 2]


def _before(b: str) -> str:
    """A short key before ``b``: lower the first digit that can be lowered (prepends stay short)."""
    for i, ch in enumerate(b):
        if _INDEX[ch] > 1:
            return b[:i] + DIGITS[_INDEX[ch] - 1]
    return _midpoint("", b)


def key_between(before: str | None, after: str | None, *, jitter: bool = True) -> str:
    """A sort key strictly between ``before`` and ``after``; ``None`` means the start or the end.

    Appending (``after=None``) and prepending (``before=None``) step the first digit that can
    move, so keys stay short however many items are added at either end; inserting between two
    keys takes their midpoint. With ``jitter`` (the default) a few random digits are appended
    so that concurrent inserts at the same place rarely collide; ``jitter=False`` gives the
    shortest deterministic key.
    """
    _check(before, "before")
    _check(after, "after")
    if before is not None and after is not None and before >= after:
        raise SortKeyError(f"before ({before!r}) must sort strictly before after ({after!r})")
    if before is None and after is None:
        middle = DIGITS[BASE // 2]
    elif after is None:
        middle = _after(before or "")
    elif before is None:
        middle = _before(after)
    else:
        middle = _midpoint(before, after)
    if not jitter:
        return middle
    upper = after[len(middle):] if after is not None and after.startswith(middle) else None
    return middle + _random_tail(upper)


def spread_keys(count: int) -> list[str]:
    """``count`` increasing keys spread evenly over the key space (the shortest width that fits).

    Used when a whole list is laid out at once (an import): later inserts then have room
    everywhere, and the keys stay short.
    """
    if count <= 0:
        return []
    width = 1
    while BASE**width <= count:
        width += 1
    span = BASE**width
    keys = []
    for index in range(1, count + 1):
        value = (index * span) // (count + 1)
        digits = []
        for _ in range(width):
            value, rest = divmod(value, BASE)
            digits.append(DIGITS[rest])
        keys.append("".join(reversed(digits)).rstrip("0"))
    return keys


def keys_after(last: str | None, count: int) -> list[str]:
    """``count`` increasing keys, all after ``last`` (``None``: anywhere)."""
    keys: list[str] = []
    previous = last
    for _ in range(count):
        previous = key_between(previous, None, jitter=False)
        keys.append(previous)
    return keys


def order_key(doc: Mapping[str, Any]) -> tuple[str, str]:
    """How siblings are ordered: by ``sortKey`` (missing or invalid keys last), then by ``_id``."""
    return (sort_position(doc.get("sortKey")), str(doc.get("_id", "")))


def sort_position(key: object) -> str:
    """The first part of :func:`order_key`: the key when it is valid, else a string that sorts
    after every valid key."""
    return key if isinstance(key, str) and is_valid_key(key) else _NO_KEY


def derive_tree(docs: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """``{doc_id: {"children": [ids in order], "path": "rootId.….docId"}}`` for every document.

    A document whose ``parent`` is missing from ``docs`` (a dangling parent) is treated as a
    root; a parent cycle (only possible through replication of concurrent moves) is broken at
    the first document met again, which is then treated as a root. Deleted documents
    (``_deleted``) and design documents are ignored.
    """
    # Performance (bench/export_bench.py: an export derives the tree of every document):
    # children are gathered and sorted only under the documents that have some (most are
    # leaves), and each path is built once, from the nearest ancestor whose path is known.
    by_id: dict[str, Mapping[str, Any]] = {}
    for doc in docs:
        doc_id = doc.get("_id")
        if not isinstance(doc_id, str) or doc.get("_deleted") or doc_id.startswith("_design/"):
            continue
        by_id[doc_id] = doc

    gathered: dict[str, list[tuple[str, str]]] = {}
    parents: dict[str, str | None] = {}
    for doc_id, doc in by_id.items():
        parent = doc.get("parent")
        if isinstance(parent, str) and parent in by_id:
            parents[doc_id] = parent
            if parent != doc_id:
                gathered.setdefault(parent, []).append((sort_position(doc.get("sortKey")), doc_id))
        else:
            parents[doc_id] = None

    paths: dict[str, str] = {}
    for doc_id in by_id:
        if doc_id in paths:
            continue
        _add_path(doc_id, parents, paths, set())

    result: dict[str, dict[str, Any]] = {}
    for doc_id in by_id:
        kids = gathered.get(doc_id)
        if kids is None:
            result[doc_id] = {"children": [], "path": paths[doc_id]}
        else:
            kids.sort()
            result[doc_id] = {"children": [kid for _, kid in kids], "path": paths[doc_id]}
    return result


def roots(docs: Iterable[Mapping[str, Any]], collection: str | None = None) -> list[str]:
    """Ids of the top-level documents (no parent, or a parent not in ``docs``), in order.

    With ``collection``, only documents whose ``collection`` is that app name.
    """
    listed = [
        doc
        for doc in docs
        if isinstance(doc.get("_id"), str)
        and not doc.get("_deleted")
        and not str(doc["_id"]).startswith("_design/")
    ]
    ids = {doc["_id"] for doc in listed}
    top = [
        doc
        for doc in listed
        if not (isinstance(doc.get("parent"), str) and doc["parent"] in ids)
        and (collection is None or doc.get("collection") == collection)
    ]
    return [str(doc["_id"]) for doc in sorted(top, key=order_key)]


def depth(path: str) -> int:
    """Number of ancestors of the document whose derived ``path`` this is."""
    return path.count(PATH_SEPARATOR)


class TreeTable(Mapping[str, dict[str, Any]]):
    """:func:`derive_tree`'s answer, kept in a private temporary SQLite database: what a whole-
    project export needs of every document without holding it in memory (issue 28: memory flat
    at any size). ``docs`` is read once, one at a time; memory keeps only the paths of the
    documents that have children (folders, mostly), and ``get`` answers a document's node
    (children ordered as :func:`derive_tree` orders them, a fresh list) from the table.

    ``label(doc)`` (optional) is kept with each document, read back with :meth:`label`: what
    else the caller needs per document (an export: its collection). Close it when done."""

    def __init__(self, docs: Iterable[Mapping[str, Any]],
                 label: Callable[[Mapping[str, Any]], str | None] | None = None) -> None:
        import sqlite3

        # "": a private temporary database on disk, deleted when closed (SQLite's own).
        self._db = db = sqlite3.connect("", check_same_thread=False)
        db.execute("PRAGMA cache_size = -4096")  # KiB: a bounded cache
        db.execute("CREATE TABLE node (id TEXT PRIMARY KEY, parent TEXT, position TEXT NOT NULL, label TEXT) "
                   "WITHOUT ROWID")
        rows = (
            (doc_id, parent if isinstance(parent := doc.get("parent"), str) else None,
             sort_position(doc.get("sortKey")), label(doc) if label is not None else None)
            for doc in docs
            if isinstance(doc_id := doc.get("_id"), str) and not doc.get("_deleted")
            and not doc_id.startswith("_design/")
        )
        db.executemany("INSERT OR REPLACE INTO node VALUES (?, ?, ?, ?)", rows)
        # A parent that is not a document of the tree: a root (as derive_tree treats it).
        db.execute("UPDATE node SET parent = NULL WHERE parent IS NOT NULL "
                   "AND NOT EXISTS (SELECT 1 FROM node p WHERE p.id = node.parent)")
        db.execute("CREATE INDEX node_parent ON node (parent, position, id)")
        # The documents with children, and their own parents: each one's path is built once, in
        # the order derive_tree meets them (a document's parent is met when the document is).
        inner_parent: dict[str, str | None] = dict(db.execute(
            "SELECT n.id, n.parent FROM node n WHERE EXISTS (SELECT 1 FROM node c WHERE c.parent = n.id "
            "AND c.id != n.id)"))
        self._paths = paths = _inner_paths(db, inner_parent)
        self._count = int(db.execute("SELECT count(*) FROM node").fetchone()[0])
        del paths

    def get(self, doc_id: str, default: Any = None) -> Any:  # a fresh node, or default
        row = self._db.execute("SELECT parent FROM node WHERE id = ?", (doc_id,)).fetchone()
        if row is None:
            return default
        return {"children": self._children(doc_id), "path": self._path(doc_id, row[0])}

    def __getitem__(self, doc_id: str) -> dict[str, Any]:
        node = self.get(doc_id)
        if node is None:
            raise KeyError(doc_id)
        return node  # type: ignore[no-any-return]

    def _children(self, doc_id: str) -> list[str]:
        if doc_id not in self._paths:
            return []
        return [kid for (kid,) in self._db.execute(
            "SELECT id FROM node WHERE parent = ? AND id != ? ORDER BY position, id", (doc_id, doc_id))]

    def _path(self, doc_id: str, parent: str | None) -> str:
        path = self._paths.get(doc_id)
        if path is not None:
            return path
        if parent is None or parent == doc_id:
            return doc_id
        return f"{self._paths[parent]}{PATH_SEPARATOR}{doc_id}"

    def label(self, doc_id: str) -> str | None:
        """The ``label`` kept for ``doc_id`` (``None`` too for a document the table lacks)."""
        row = self._db.execute("SELECT label FROM node WHERE id = ?", (doc_id,)).fetchone()
        return row[0] if row is not None else None

    def labels(self) -> Iterator[tuple[str, str | None]]:
        """``(id, label)`` of every document, in ``_id`` order (a page at a time)."""
        after = ""
        while True:
            page = self._db.execute("SELECT id, label FROM node WHERE id > ? ORDER BY id LIMIT 1000",
                                    (after,)).fetchall()
            if not page:
                return
            after = page[-1][0]
            yield from page

    def __contains__(self, doc_id: object) -> bool:
        return isinstance(doc_id, str) and self._db.execute(
            "SELECT 1 FROM node WHERE id = ?", (doc_id,)).fetchone() is not None

    def __iter__(self) -> Iterator[str]:
        return (doc_id for doc_id, _ in self.labels())

    def __len__(self) -> int:
        return self._count

    def close(self) -> None:
        self._db.close()
        self._paths = {}


def _inner_paths(db: Any, parents: dict[str, str | None]) -> dict[str, str]:
    """The paths of the documents with children (``parents``: each one's parent), built as
    :func:`derive_tree` builds them: walking the table in ``_id`` order, a document starts the
    walk up from its parent (from itself when it has children), a cycle cut where it closes."""
    paths: dict[str, str] = {}
    after = ""
    while True:
        page = db.execute("SELECT id, parent FROM node WHERE id > ? ORDER BY id LIMIT 1000", (after,)).fetchall()
        if not page:
            return paths
        after = page[-1][0]
        for doc_id, parent in page:
            start = doc_id if doc_id in parents else parent if parent != doc_id else None
            if start is None or start in paths:
                continue
            _add_path(start, parents, paths, set() if start == doc_id else {doc_id})


def _add_path(start: str, parents: Mapping[str, str | None], paths: dict[str, str], seen: set[str]) -> None:
    """Give ``start`` and its ancestors without a path in ``paths`` theirs: the ancestors' ids
    joined by :data:`PATH_SEPARATOR`, from the first one with a path (or the root). A cycle is cut
    where the walk meets a document it has seen (``seen``: those already met)."""
    chain: list[str] = []
    current: str | None = start
    while current is not None and current not in paths:
        if current in seen:  # a cycle: cut it here
            break
        seen.add(current)
        chain.append(current)
        current = parents[current]
    prefix = paths[current] if current is not None and current in paths else ""
    for node in reversed(chain):
        prefix = f"{prefix}{PATH_SEPARATOR}{node}" if prefix else node
        paths[node] = prefix
