"""Property tests (hypothesis) for revision-tree merging, idempotence and stemming.

A strategy draws one document's true history (several roots, branches, tombstones, some of them
with children) and a list of revision paths taken from it (root-to-node, some truncated as a
sender with a small revs limit would send them, some repeated). Properties:

* Merge order does not matter (``revtree.merge`` without stemming, and ``Database`` with
  ``bulk_docs(new_edits=False)``): same normalised tree, winner, ``_conflicts``,
  ``_deleted_conflicts`` and leaves for any permutation and batching of the paths.
* Inserting a path again (without stemming) is a complete no-op exactly when ``revtree.merge``
  leaves the tree as it is: the tree stays the same, ``update_seq`` does not move, no changes row
  appears, the result is ``[]``. Its leaf being in the tree is not enough: a path sent again also
  merges into a stale copy of its history that stemming's merge-back kept, as ``pouchdb-merge``
  does. Sent again, no path changes a stored body. With and without stemming, the ``Database``
  does after every write exactly what ``revtree.merge`` does, and moves ``update_seq`` exactly
  when the tree changes.
* Stemming keeps at most ``revs_limit`` revisions on every root-to-leaf path, never drops or
  changes a leaf, keeps only ancestry that was there, and reports exactly what it dropped.

Why "without stemming" for order independence: with stemming, order can legitimately matter
(``test_stemming_makes_order_matter``): CouchDB and PouchDB behave the same way, and a path sent
again can join a stale copy of a stemmed history and stem it away. A path whose leaf the database
already has still merges, so the ancestry a truncated path carried is never lost
(``test_a_known_leaf_still_brings_its_ancestry``).
"""

from __future__ import annotations

import hashlib
import itertools
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from storyloom.store import Database, revtree

pytestmark = pytest.mark.slow  # hypothesis, hundreds of examples a test

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
NO_STEMMING = 1000  # far above any generated depth

# -- strategy ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Path:
    pos: int
    chain: tuple[str, ...]  # root first
    deleted: bool

    @property
    def leaf_rev(self) -> str:
        return f"{self.pos + len(self.chain) - 1}-{self.chain[-1]}"

    def branch(self) -> dict[str, Any]:
        opts: dict[str, Any] = {"status": "available"}
        if self.deleted:
            opts["deleted"] = True
        return revtree.path_to_branch(self.pos, list(reversed(self.chain)), opts)

    def doc(self, doc_id: str, with_revisions: bool = True) -> dict[str, Any]:
        doc: dict[str, Any] = {"_id": doc_id, "_rev": self.leaf_rev, "leaf": self.leaf_rev}
        if with_revisions or len(self.chain) > 1:
            doc["_revisions"] = {"start": self.pos + len(self.chain) - 1, "ids": list(reversed(self.chain))}
        if self.deleted:
            doc["_deleted"] = True
        return doc


@st.composite
def histories(draw: st.DrawFn, truncate: bool = True, max_nodes: int = 14) -> list[Path]:
    """Paths of one random document history (consistent: each (pos, hash) has one parent)."""
    hex_style = draw(st.booleans())
    salt = draw(st.integers(0, 2**32))
    nodes: list[tuple[int, str, int, bool]] = []  # (pos, hash, parent index, deleted)
    used: set[tuple[int, str]] = set()

    def add(parent: int) -> None:
        pos = 1 if parent < 0 else nodes[parent][0] + 1
        i = len(nodes)
        if hex_style:
            h = hashlib.md5(f"{salt}-{i}".encode()).hexdigest()
        else:
            h = draw(st.text("abcXYZ019", min_size=1, max_size=2))
            if (pos, h) in used:
                h += str(i)  # keep (pos, hash) unique: one revision, one parent
        used.add((pos, h))
        nodes.append((pos, h, parent, draw(st.integers(0, 4)) == 0))

    for _ in range(draw(st.integers(1, 3))):
        add(-1)
    for _ in range(draw(st.integers(0, max_nodes))):
        add(draw(st.integers(0, len(nodes) - 1)))

    def ancestry(i: int) -> list[int]:
        out = []
        while i >= 0:
            out.append(i)
            i = nodes[i][2]
        return out[::-1]

    paths = []
    for _ in range(draw(st.integers(1, 8))):
        target = draw(st.integers(0, len(nodes) - 1))
        chain = ancestry(target)
        if truncate and draw(st.booleans()):
            chain = chain[-draw(st.integers(1, len(chain))):]
        paths.append(Path(nodes[chain[0]][0], tuple(nodes[i][1] for i in chain), nodes[target][3]))
    return paths


# -- normalisation ------------------------------------------------------------------------------


def normalise(tree: list) -> dict[str, Any]:
    """The knowledge a tree holds, independent of how its branches happen to be laid out.

    Nodes as (pos, hash); parent links (child -> parent) from every copy of a node that has one;
    leaves (rev, deleted) sorted. Stemming and grafting can keep one revision in two branches (one
    copy under its parent, one as a root); the knowledge is the same, so this compares knowledge.
    """
    nodes: set[tuple[int, str]] = set()
    parents: dict[tuple[int, str], tuple[int, str]] = {}
    stack = [(b["pos"], b["ids"], None) for b in tree]
    while stack:
        pos, node, parent = stack.pop()
        key = (pos, node[0])
        nodes.add(key)
        if parent is not None:
            assert parents.setdefault(key, parent) == parent, f"{key} has two parents"
        stack.extend((pos + 1, child, key) for child in node[2])
    leaves = sorted((leaf.rev, leaf.deleted) for leaf in revtree.leaves(tree))
    return {"nodes": nodes, "parents": parents, "leaves": leaves}


def summary(tree: list) -> dict[str, Any]:
    live, dead = revtree.conflicts(tree)
    return {**normalise(tree), "winner": revtree.winning_rev(tree), "conflicts": live, "deleted_conflicts": dead}


def merge_all(paths: list[Path], limit: int = NO_STEMMING) -> list:
    tree: list = []
    for path in paths:
        tree, _, _ = revtree.merge(tree, path.branch(), limit)
    return tree


def root_to_leaf_lengths(tree: list) -> list[int]:
    lengths = []
    stack = [(b["ids"], 1) for b in tree]
    while stack:
        node, depth = stack.pop()
        if not node[2]:
            lengths.append(depth)
        stack.extend((child, depth + 1) for child in node[2])
    return lengths


# -- revtree properties ---------------------------------------------------------------------------


@SETTINGS
@given(data=st.data(), paths=histories())
def test_merge_order_does_not_matter(data: st.DataObject, paths: list[Path]) -> None:
    expected = summary(merge_all(paths))
    for order in (data.draw(st.permutations(paths)), list(reversed(paths))):
        assert summary(merge_all(order)) == expected
    # Conflicts are sorted by the winner key, so even their order is the same.
    assert expected["conflicts"] == sorted(expected["conflicts"], key=_rev_key, reverse=True)


def _rev_key(rev: str) -> tuple[int, bytes]:
    pos, h = revtree.parse_rev(rev)
    return pos, revtree.hash_key(pos, h)


@SETTINGS
@given(data=st.data(), paths=histories())
def test_merging_a_path_again_changes_nothing(data: st.DataObject, paths: list[Path]) -> None:
    tree = merge_all(paths)
    before = summary(tree)
    again = data.draw(st.sampled_from(paths))
    tree2, outcome, stemmed = revtree.merge(tree, again.branch(), NO_STEMMING)
    assert outcome == "internal_node"
    assert stemmed == []
    assert summary(tree2) == before
    assert summary(tree) == before  # merge never mutates its input


@SETTINGS
@given(paths=histories(), limit=st.integers(1, 6))
def test_stemming_bounds_every_path_and_keeps_leaves(paths: list[Path], limit: int) -> None:
    full = merge_all(paths)
    stemmed_tree, dropped = revtree.stem(full, limit)
    assert max(root_to_leaf_lengths(stemmed_tree)) <= limit
    assert revtree.max_depth(stemmed_tree) <= limit
    before, after = summary(full), summary(stemmed_tree)
    # Leaves, winner and conflicts are untouched by stemming.
    for key in ("leaves", "winner", "conflicts", "deleted_conflicts"):
        assert after[key] == before[key]
    # Only known revisions and known parent links survive; the dropped ones are reported exactly.
    assert after["nodes"] <= before["nodes"]
    assert all(before["parents"].get(child) == parent for child, parent in after["parents"].items())
    assert {f"{p}-{h}" for p, h in before["nodes"] - after["nodes"]} == set(dropped)
    # Each leaf keeps exactly the newest ``limit`` revisions of its history: stemming cuts only
    # from the root end.
    for rev, _ in after["leaves"]:
        full_history = [f"{p}-{n[0]}" for p, n in revtree.ancestry(full, rev)]
        kept = [f"{p}-{n[0]}" for p, n in revtree.ancestry(stemmed_tree, rev)]
        assert kept == full_history[:limit]


@SETTINGS
@given(paths=histories(), limit=st.integers(1, 6))
def test_merge_with_stemming_bounds_paths_after_every_step(paths: list[Path], limit: int) -> None:
    tree: list = []
    for path in paths:
        tree, _, _ = revtree.merge(tree, path.branch(), limit)
        assert max(root_to_leaf_lengths(tree)) <= limit
        # The revision just merged is always in the tree afterwards (leaves are never stemmed).
        assert revtree.has_rev(tree, path.leaf_rev)


def test_stemming_makes_order_matter() -> None:
    """With revs_limit 2, 1-a arriving after 1-a→2-b→3-c was stemmed becomes a separate leaf.

    Merged the other way round it is absorbed as an ancestor. CouchDB and PouchDB do the same,
    which is why the order property above runs without stemming.
    """
    long_path = Path(1, ("a", "b", "c"), False)
    root_only = Path(1, ("a",), False)
    first = merge_all([long_path, root_only], limit=2)
    second = merge_all([root_only, long_path], limit=2)
    assert normalise(first)["leaves"] == [("1-a", False), ("3-c", False)]
    assert normalise(second)["leaves"] == [("3-c", False)]
    assert revtree.winning_rev(first) == revtree.winning_rev(second) == "3-c"


# -- Database properties --------------------------------------------------------------------------


def _db_state(db: Database, doc_id: str) -> dict[str, Any]:
    row = db.all_docs(keys=[doc_id])["rows"][0]
    winner = row["value"]["rev"]
    doc = db.get(doc_id, rev=winner, conflicts=True, deleted_conflicts=True)
    leaves = db.get(doc_id, open_revs="all", revs=True)
    assert all("ok" in entry for entry in leaves)
    return {
        "winner": winner,
        "deleted": bool(row["value"].get("deleted")),
        "conflicts": doc.get("_conflicts", []),
        "deleted_conflicts": doc.get("_deleted_conflicts", []),
        # each leaf with its deletion flag and full known ancestry
        "leaves": sorted(
            (e["ok"]["_rev"], bool(e["ok"].get("_deleted")), tuple(e["ok"]["_revisions"]["ids"])) for e in leaves
        ),
        "count": db.info()["doc_count"],
    }


def _write(db: Database, paths: list[Path], cuts: list[int], flags: list[bool]) -> None:
    """Send ``paths`` in batches split at ``cuts``; each result must be [] (full success)."""
    bounds = sorted({c % (len(paths) + 1) for c in cuts} | {0, len(paths)})
    for start, end in itertools.pairwise(bounds):
        batch = [p.doc("doc", flags[i % len(flags)]) for i, p in enumerate(paths[start:end], start)]
        assert db.bulk_docs(batch, new_edits=False) == []


@SETTINGS
@given(
    data=st.data(),
    paths=histories(truncate=True),
    cuts=st.lists(st.integers(0, 8), max_size=3),
    flags=st.lists(st.booleans(), min_size=1, max_size=4),
)
def test_database_merge_order_does_not_matter(data, paths: list[Path], cuts, flags) -> None:
    with Database(":memory:") as db:
        _write(db, paths, cuts, flags)
        expected = _db_state(db, "doc")
    # The same as the pure functions say.
    tree = merge_all(paths)
    assert expected["winner"] == revtree.winning_rev(tree)
    assert expected["conflicts"] == revtree.conflicts(tree)[0]
    assert expected["deleted_conflicts"] == revtree.conflicts(tree)[1]
    assert [(rev, d) for rev, d, _ in expected["leaves"]] == normalise(tree)["leaves"]
    assert expected["count"] == (0 if expected["deleted"] else 1)
    order = data.draw(st.permutations(paths))
    other_cuts = data.draw(st.lists(st.integers(0, 8), max_size=3))
    with Database(":memory:") as db:
        _write(db, order, other_cuts, flags)
        assert _db_state(db, "doc") == expected


@SETTINGS
@given(data=st.data(), paths=histories(truncate=True))
def test_database_inserting_again_changes_nothing(data, paths: list[Path]) -> None:
    """A path sent again is a complete no-op exactly when ``revtree.merge`` leaves the tree as it is.

    That its leaf is in the tree is not enough. Stemming merges its cut paths back without
    grafting, even at a limit no path reaches, so a history can be kept twice: under its first
    root, and as a second branch rooted lower down (a stale copy, with a bodiless root). A path
    sent again merges into every copy it reaches, exactly as in ``pouchdb-merge`` 9: it can merge
    the copy away, or extend it so that an inner revision becomes a leaf of the copy. Then the tree
    changes, with one new seq. Every other path, the last one merged among them, is a no-op: no
    seq, no changes row, result ``[]``, the same tree. Sent again with other content, no path
    changes a stored body (``test_rule_1_5_a_revision_kept_twice_keeps_its_body``).
    """
    limit = NO_STEMMING
    pure = merge_all(paths)
    noops = [p for p in paths if revtree.same_tree(revtree.merge(pure, p.branch(), limit)[0], pure)]
    assert paths[-1] in noops, "merging the same path twice in a row changes nothing"
    with Database(":memory:", revs_limit=limit) as db:
        for path in paths:
            assert db.bulk_docs([path.doc("doc")], new_edits=False) == []
        state = _db_state(db, "doc")
        seq = db.info()["update_seq"]
        changes = db.changes()
        tree = db.get("doc", open_revs="all")
        # The no-ops, alone or in a batch.
        again = data.draw(st.lists(st.sampled_from(noops), min_size=1, max_size=6))
        for path in again:
            assert db.bulk_docs([_other_content(path)], new_edits=False) == []
        assert db.bulk_docs([_other_content(p) for p in again], new_edits=False) == []
        assert db.info()["update_seq"] == seq
        assert db.changes(since=seq)["results"] == []
        assert db.changes() == changes
        assert _db_state(db, "doc") == state
        assert db.get("doc", open_revs="all") == tree
        _assert_bodies_kept(db, paths)
        # Every path again, in order: the database does what revtree.merge does, one new seq
        # exactly when it changes the tree, and keeps every stored body.
        for path in paths:
            seq = db.info()["update_seq"]
            assert db.bulk_docs([_other_content(path)], new_edits=False) == []
            merged, _, _ = revtree.merge(pure, path.branch(), limit)
            changed = not revtree.same_tree(merged, pure)
            pure = merged
            assert db.info()["update_seq"] == seq + changed
            state = _db_state(db, "doc")
            expected = summary(pure)
            for key in ("winner", "conflicts", "deleted_conflicts"):
                assert state[key] == expected[key]
            assert [(rev, d) for rev, d, _ in state["leaves"]] == expected["leaves"]
        _assert_bodies_kept(db, paths)


def _other_content(path: Path) -> dict[str, Any]:
    """The path's document with a field its first sending did not have."""
    return {**path.doc("doc"), "again": True}


def _assert_bodies_kept(db: Database, paths: list[Path]) -> None:
    """Every path's leaf still has the body it was first stored with (nothing is stemmed here)."""
    for path in paths:
        body = db.get("doc", rev=path.leaf_rev)
        assert "again" not in body
        assert body.get("leaf", path.leaf_rev) == path.leaf_rev


@SETTINGS
@given(data=st.data(), paths=histories(truncate=True), limit=st.sampled_from([1, 2, 3, 5]))
def test_database_merges_as_the_pure_functions_with_stemming(data, paths: list[Path], limit: int) -> None:
    """Every write (the paths, then some of them again) leaves what ``revtree.merge`` gives.

    Sent again, a path can join a stale copy of a stemmed history and stem it away (as
    ``pouchdb-merge`` does), so a replay is not always a no-op here; it is one exactly when the
    merge changes nothing.
    """
    again = data.draw(st.lists(st.sampled_from(paths), min_size=1, max_size=6))
    tree: list = []
    with Database(":memory:", revs_limit=limit) as db:
        for path in paths + again:
            seq = db.info()["update_seq"]
            assert db.bulk_docs([path.doc("doc")], new_edits=False) == []
            merged, _, _ = revtree.merge(tree, path.branch(), limit)
            changed = not revtree.same_tree(merged, tree)
            tree = merged
            assert db.info()["update_seq"] == seq + changed
            state = _db_state(db, "doc")
            expected = summary(tree)
            for key in ("winner", "conflicts", "deleted_conflicts"):
                assert state[key] == expected[key]
            assert [(rev, d) for rev, d, _ in state["leaves"]] == expected["leaves"]
            assert all(len(ids) <= limit for _, _, ids in state["leaves"])


def test_a_known_leaf_still_brings_its_ancestry() -> None:
    """1-a, then 2-b (a stemmed path), then 1-a→2-b: the last path's leaf exists, and its merge
    links 1-a to 2-b, so 1-a stops being a conflict, as in any other order."""
    a, b, ab = Path(1, ("a",), False), Path(2, ("b",), False), Path(1, ("a", "b"), False)
    for order in ([a, b, ab], [ab, a, b], [b, ab, a]):
        with Database(":memory:") as db:
            assert db.bulk_docs([p.doc("doc") for p in order], new_edits=False) == []
            doc = db.get("doc", conflicts=True, revs=True)
            assert "_conflicts" not in doc
            assert doc["_revisions"] == {"start": 2, "ids": ["b", "a"]}
