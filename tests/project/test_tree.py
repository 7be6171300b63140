from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from storyloom.project.tree import (
    SortKeyError,
    derive_tree,
    is_valid_key,
    key_between,
    keys_after,
    order_key,
    roots,
    spread_keys,
)


def test_first_key_and_ends() -> None:
    first = key_between(None, None, jitter=False)
    assert is_valid_key(first)
    assert key_between(first, None, jitter=False) > first
    assert key_between(None, first, jitter=False) < first


def test_between_is_strict_and_valid() -> None:
    assert key_between("A", "B", jitter=False) not in ("A", "B")
    for low, high in [("A", "B"), ("1", "2"), ("V", "V1"), ("z", "zz"), ("0V", "1"), ("01", "02")]:
        for jitter in (False, True):
            key = key_between(low, high, jitter=jitter)
            assert low < key < high, (low, key, high)
            assert is_valid_key(key)


def test_bad_bounds_are_refused() -> None:
    with pytest.raises(SortKeyError, match="before"):
        key_between("B", "A")
    with pytest.raises(SortKeyError):
        key_between("A", "A")
    with pytest.raises(SortKeyError, match="sort key"):
        key_between("A0", None)  # trailing zero: no room before it
    with pytest.raises(SortKeyError):
        key_between("a-b", None)


def test_validity() -> None:
    assert is_valid_key("V")
    assert is_valid_key("0V")
    assert not is_valid_key("")
    assert not is_valid_key("V0")
    assert not is_valid_key("a.b")
    assert not is_valid_key(None)
    assert not is_valid_key(3)


def test_concurrent_inserts_between_the_same_siblings_rarely_collide() -> None:
    keys = {key_between("A", "B") for _ in range(500)}
    assert len(keys) >= 499
    assert all("A" < k < "B" for k in keys)
    # Without jitter the result is deterministic (and would collide).
    assert len({key_between("A", "B", jitter=False) for _ in range(10)}) == 1


def test_appending_and_prepending_stay_short() -> None:
    key = None
    for _ in range(300):
        key = key_between(key, None, jitter=False)
    assert key is not None and len(key) <= 12
    key = None
    for _ in range(300):
        key = key_between(None, key, jitter=False)
    assert key is not None and len(key) <= 12


def test_spread_and_after() -> None:
    for count in (0, 1, 2, 8, 61, 62, 500, 5000):
        keys = spread_keys(count)
        assert len(keys) == count
        assert keys == sorted(keys)
        assert len(set(keys)) == count
        assert all(is_valid_key(k) for k in keys)
    assert spread_keys(3) == sorted(spread_keys(3))
    assert len(spread_keys(61)[0]) == 1
    after = keys_after("V", 5)
    assert after == sorted(after) and after[0] > "V"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(min_value=0, max_value=10_000), st.booleans()), min_size=1, max_size=120))
def test_random_inserts_keep_order(ops: list[tuple[int, bool]]) -> None:
    keys: list[str] = []
    for position, jitter in ops:
        index = position % (len(keys) + 1)
        low = keys[index - 1] if index > 0 else None
        high = keys[index] if index < len(keys) else None
        key = key_between(low, high, jitter=jitter)
        assert is_valid_key(key)
        keys.insert(index, key)
    assert keys == sorted(keys)
    assert len(set(keys)) == len(keys)


def _doc(doc_id: str, parent: str | None = None, key: str | None = None, **extra: object) -> dict:
    doc: dict = {"_id": doc_id, "parent": parent, "type": extra.pop("type", "Script"), **extra}
    if key is not None:
        doc["sortKey"] = key
    return doc


def test_derive_tree_children_and_paths() -> None:
    docs = [
        _doc("root", type="Folder"),
        _doc("sub", "root", "V", type="Folder"),
        _doc("b", "root", "k"),
        _doc("a", "root", "C"),
        _doc("leaf", "sub", "V"),
        _doc("top", None, "a"),
    ]
    tree = derive_tree(docs)
    assert tree["root"]["children"] == ["a", "sub", "b"]
    assert tree["sub"]["children"] == ["leaf"]
    assert tree["leaf"]["children"] == []
    assert tree["leaf"]["path"] == "root.sub.leaf"
    assert tree["root"]["path"] == "root"
    assert tree["top"]["path"] == "top"
    assert set(tree) == {"root", "sub", "b", "a", "leaf", "top"}


def test_equal_keys_and_missing_keys_order_deterministically() -> None:
    docs = [_doc("z", "f", "V"), _doc("y", "f", "V"), _doc("x", "f"), _doc("w", "f", "bad0"), _doc("f", type="Folder")]
    assert derive_tree(docs)["f"]["children"] == ["y", "z", "w", "x"]
    assert order_key({"_id": "a"}) > order_key({"_id": "b", "sortKey": "zzzz"})


def test_dangling_parents_cycles_deleted_and_design_docs() -> None:
    docs = [
        _doc("orphan", "gone", "V"),
        _doc("c1", "c2", "V", type="Folder"),
        _doc("c2", "c1", "V", type="Folder"),
        _doc("dead", "c1", "a", _deleted=True),
        {"_id": "_design/idx", "language": "query"},
    ]
    tree = derive_tree(docs)
    assert tree["orphan"]["path"] == "orphan"
    assert set(tree) == {"orphan", "c1", "c2"}
    # A cycle is cut: both ids appear, each path is finite and ends with the document itself.
    assert tree["c1"]["path"].endswith("c1") and tree["c2"]["path"].endswith("c2")
    assert tree["c1"]["children"] == ["c2"] and tree["c2"]["children"] == ["c1"]


def test_roots_by_collection() -> None:
    docs = [
        _doc("s2", None, "k", collection="Script"),
        _doc("s1", None, "C", collection="Script"),
        _doc("d1", None, "C", type="Dialogue", collection="Dialogue"),
        _doc("inner", "s1", "V", collection="Script"),
        _doc("lost", "nowhere", "A", collection="Script"),
    ]
    assert roots(docs, "Script") == ["lost", "s1", "s2"]
    assert roots(docs, "Dialogue") == ["d1"]
    assert len(roots(docs)) == 4


def _plain_tree(docs: list[dict]) -> dict[str, dict]:
    """What derive_tree gives, derived the plain way: each document's children found among all
    and sorted by order_key, each path walked up from its document (a cycle is cut at the first
    document met again; paths found earlier, in the documents' order, are reused)."""
    by_id = {d["_id"]: d for d in docs
             if isinstance(d.get("_id"), str) and not d.get("_deleted") and not d["_id"].startswith("_design/")}

    def parent_of(doc_id: str) -> str | None:
        parent = by_id[doc_id].get("parent")
        return parent if isinstance(parent, str) and parent in by_id else None

    paths: dict[str, str] = {}

    def path_of(doc_id: str) -> str:
        chain: list[str] = []
        current = doc_id
        while current is not None and current not in paths and current not in chain:
            chain.append(current)
            current = parent_of(current)
        prefix = paths[current] if current is not None and current in paths else ""
        for node in reversed(chain):
            prefix = f"{prefix}.{node}" if prefix else node
            paths[node] = prefix
        return paths[doc_id]

    return {
        doc_id: {
            "children": [c["_id"] for c in sorted(
                (by_id[i] for i in by_id if parent_of(i) == doc_id and i != doc_id), key=order_key)],
            "path": path_of(doc_id),
        }
        for doc_id in by_id
    }


def test_derive_tree_equals_the_plain_derivation_on_random_trees() -> None:
    # Dangling and non-text parents, self-parents, cycles, deleted documents, invalid sort keys.
    for seed in range(500):
        rng = random.Random(seed)
        ids = [f"d{i}" for i in range(rng.randint(0, 25))]
        rows = []
        for doc_id in ids:
            parent = rng.choice([None, 5, "missing", doc_id, *ids])
            sort_key = rng.choice([None, "a", "b", "V", "a0", 3, "ab", "", "é", "Z1"])
            rows.append({"_id": doc_id, "_deleted": rng.random() < 0.05, "parent": parent, "sortKey": sort_key})
        assert derive_tree(rows) == _plain_tree(rows), seed
