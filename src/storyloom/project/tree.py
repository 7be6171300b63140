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
from collections.abc import Iterable, Mapping
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
        chain: list[str] = []
        seen: set[str] = set()
        current: str | None = doc_id
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
