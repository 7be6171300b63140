"""The folder tree kept on disk (TreeTable) answers as derive_tree does, for every document."""

from __future__ import annotations

import random
from typing import Any

import pytest

from storyloom.project.tree import TreeTable, derive_tree


def _random_docs(seed: int, count: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    ids = [f"d{rng.randrange(10**6):06d}" for _ in range(count)]
    docs = []
    for doc_id in ids:  # repeated ids too: the later one wins, as in a dict
        parent = rng.choice([None, "", "missing", 7, doc_id, *rng.sample(ids, 3)])
        key = rng.choice([None, "V", "a", "a1", "b", 3, "0", "zz"])
        docs.append({"_id": doc_id, "parent": parent, "sortKey": key, "type": rng.choice(["Folder", "Script"]),
                     "_deleted": rng.random() < 0.05})
    docs.append({"_id": "_design/x", "parent": None})
    return docs


@pytest.mark.parametrize("seed", range(40))
def test_a_tree_table_answers_as_derive_tree(seed: int) -> None:
    docs = _random_docs(seed, 5 + seed * 3)  # parents cycles, dangling parents, self parents
    expected = derive_tree(docs)
    table = TreeTable(docs, label=lambda d: str(d.get("type")))
    try:
        assert len(table) == len(expected) and sorted(table) == sorted(expected)
        for doc_id, node in expected.items():
            assert table.get(doc_id) == node, doc_id
        assert table.get("nope") is None and "nope" not in table and "_design/x" not in table
        labels = dict(table.labels())
        assert list(labels) == sorted(expected)
        last = {d["_id"]: d for d in docs}
        assert all(labels[i] == str(last[i]["type"]) for i in expected)
    finally:
        table.close()
