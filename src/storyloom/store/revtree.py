"""Revision trees with CouchDB semantics (docs/protocol.md section 1).

A tree is a list of branches ``{"pos": int, "ids": node}``; a node is
``[hash, {"status": "available"|"missing", "deleted"?: True}, [children]]``. ``pos`` is the
generation of the branch's root. The shape is plain JSON so it is stored as-is in SQLite and can
be compared with PouchDB's trees in differential tests.

``merge`` and ``stem`` follow ``pouchdb-merge`` 9 (``doMerge`` with expansion, then ``stem``:
every root-to-leaf path cut to the limit and merged back without expansion), so grafting a
longer history onto a shorter stored one, and what stemming then keeps, agree with PouchDB and
``couch_key_tree`` (docs/store.md, "Replicated merges"; ``tests/store/test_differential_pouchdb.py``).

Functions here never mutate their inputs' callers can still see: ``merge`` works on a deep copy.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, TypeAlias, TypedDict

# A node is ``[hash: str, opts: dict, children: list[Node]]``: a fixed-length list of mixed
# element types, which Python's type system cannot spell for a mutable list (nodes are updated in
# place: ``node[1] = ...``, ``node[2].append(...)``), so its elements are Any and the functions
# here are the ones that know the shape. It stays a list because it is stored and compared as
# PouchDB's JSON.
Node: TypeAlias = list[Any]


class Branch(TypedDict):
    pos: int  # the generation of ``ids``
    ids: Node  # the branch's root


Tree: TypeAlias = list[Branch]

# ``(pos, hash, parent (pos, hash) or None, status, deleted)``: see ``node_census``.
CensusKey: TypeAlias = tuple[int, str, tuple[int, str] | None, str | None, bool]

AVAILABLE = "available"
MISSING = "missing"


@dataclass(frozen=True, order=False)
class Leaf:
    pos: int
    hash: str
    deleted: bool

    @property
    def rev(self) -> str:
        return f"{self.pos}-{self.hash}"


def parse_rev(rev: object) -> tuple[int, str]:
    """Split ``N-hash`` into ``(N, hash)``; raise ValueError on a malformed rev.

    Any value is taken (a ``_rev`` read from a request or a document may be any JSON): one that
    is not a string is malformed too."""
    if not isinstance(rev, str):
        raise ValueError(f"Invalid rev format: {rev!r}")
    pos_text, sep, rev_hash = rev.partition("-")
    # ASCII digits only: str.isdigit() also accepts other scripts' digits, which CouchDB refuses
    if not sep or not (pos_text.isascii() and pos_text.isdigit()) or not rev_hash:
        raise ValueError(f"Invalid rev format: {rev!r}")
    return int(pos_text), rev_hash


def _is_hex32(h: str) -> bool:
    if len(h) != 32:
        return False
    try:
        bytes.fromhex(h)
    except ValueError:
        return False
    return True


def hash_key(pos: int, h: str) -> bytes:
    """CouchDB's ordering key for a rev hash: decoded bytes for 32-hex hashes, else the raw text."""
    if pos != 0 and _is_hex32(h):
        return bytes.fromhex(h)
    return h.encode()


def leaf_sort_key(leaf: Leaf) -> tuple[bool, int, bytes]:
    """Winner ordering: live beats deleted, then higher generation, then higher hash."""
    return (not leaf.deleted, leaf.pos, hash_key(leaf.pos, leaf.hash))


def path_to_branch(pos: int, ids_newest_first: list[str], leaf_opts: dict[str, Any]) -> Branch:
    """A one-path branch from ``_revisions``-style ids (newest first). Only the leaf has a body."""
    ids = list(reversed(ids_newest_first))
    node: Node = [ids[-1], dict(leaf_opts), []]
    for h in reversed(ids[:-1]):
        node = [h, {"status": MISSING}, [node]]
    return {"pos": pos, "ids": node}


def iter_nodes(tree: Tree) -> Iterator[tuple[int, Node, bool]]:
    """Every node as ``(pos, node, is_leaf)``, depth first."""
    stack: list[tuple[int, Node]] = [(b["pos"], b["ids"]) for b in tree]
    while stack:
        pos, node = stack.pop()
        children = node[2]
        yield pos, node, not children
        for child in children:
            stack.append((pos + 1, child))


def leaves(tree: Tree) -> list[Leaf]:
    """All leaves, deduplicated, sorted winner first."""
    seen: dict[str, Leaf] = {}
    for pos, node, is_leaf in iter_nodes(tree):
        if is_leaf:
            leaf = Leaf(pos, node[0], bool(node[1].get("deleted")))
            seen.setdefault(leaf.rev, leaf)
    return sorted(seen.values(), key=leaf_sort_key, reverse=True)


def winning_leaf(tree: Tree) -> Leaf:
    return leaves(tree)[0]


def winning_rev(tree: Tree) -> str:
    return winning_leaf(tree).rev


def conflicts(tree: Tree) -> tuple[list[str], list[str]]:
    """``(_conflicts, _deleted_conflicts)``: the non-winning live and deleted leaves."""
    all_leaves = leaves(tree)
    live = [leaf.rev for leaf in all_leaves[1:] if not leaf.deleted]
    dead = [leaf.rev for leaf in all_leaves[1:] if leaf.deleted]
    return live, dead


def find_node(tree: Tree, rev: str) -> tuple[Node, bool] | None:
    """The node for ``rev`` and whether it is a leaf, or None."""
    pos, h = parse_rev(rev)
    for node_pos, node, is_leaf in iter_nodes(tree):
        if node_pos == pos and node[0] == h:
            return node, is_leaf
    return None


def has_rev(tree: Tree, rev: str) -> bool:
    try:
        return find_node(tree, rev) is not None
    except ValueError:
        return False


def ancestry(tree: Tree, rev: str) -> list[tuple[int, Node]]:
    """The path from ``rev`` up to its root, newest first, as ``(pos, node)``; empty if absent."""
    target_pos, target_hash = parse_rev(rev)
    for branch in tree:
        found = _ancestry_in(branch["pos"], branch["ids"], target_pos, target_hash)
        if found:
            return list(reversed(found))
    return []


def _ancestry_in(pos: int, root: Node, target_pos: int, target_hash: str) -> list[tuple[int, Node]]:
    # Iterative DFS that keeps the current path (trees can be 1000 deep: no recursion).
    stack: list[tuple[int, Node, int]] = [(pos, root, 0)]
    path: list[tuple[int, Node]] = []
    while stack:
        node_pos, node, depth = stack.pop()
        del path[depth:]
        path.append((node_pos, node))
        if node_pos == target_pos and node[0] == target_hash:
            return path
        if node_pos < target_pos:
            for child in node[2]:
                stack.append((node_pos + 1, child, depth + 1))
    return []


def leaves_descending_from(tree: Tree, rev: str) -> list[Leaf]:
    """The leaves below (or equal to) ``rev``, winner first; empty if ``rev`` is absent."""
    pos, h = parse_rev(rev)
    for node_pos, node, _ in iter_nodes(tree):
        if node_pos == pos and node[0] == h:
            found: list[Leaf] = []
            stack = [(node_pos, node)]
            while stack:
                p, n = stack.pop()
                if not n[2]:
                    found.append(Leaf(p, n[0], bool(n[1].get("deleted"))))
                stack.extend((p + 1, c) for c in n[2])
            return sorted(set(found), key=leaf_sort_key, reverse=True)
    return []


def _merge_nodes(into: Node, other: Node) -> str | None:
    """Merge ``other`` (same hash) into ``into`` in place. Returns 'new_leaf', 'new_branch' or None."""
    outcome: str | None = None
    stack = [(into, other)]
    while stack:
        a, b = stack.pop()
        if b[1].get("status") == AVAILABLE and a[1].get("status") != AVAILABLE:
            a[1] = dict(b[1])
        for b_child in b[2]:
            match = next((c for c in a[2] if c[0] == b_child[0]), None)
            if match is not None:
                stack.append((match, b_child))
            else:
                outcome = "new_branch" if a[2] else (outcome or "new_leaf")
                a[2].append(b_child)
                a[2].sort(key=lambda n: n[0])
    return outcome


def _graft(tree_branch: Branch, path: Branch, expand: bool) -> tuple[Branch | None, str | None]:
    """Try to merge ``path`` and ``tree_branch``; returns (the branch holding both, or None; outcome).

    Nodes are shared by reference between the two afterwards; ``stem`` rebuilds a clean tree.
    """
    if tree_branch["pos"] == path["pos"] and tree_branch["ids"][0] == path["ids"][0]:
        return tree_branch, _merge_nodes(tree_branch["ids"], path["ids"])
    if not expand:
        return None, None
    # Different start positions: descend from the earlier root to find the later root's hash.
    early, late = (tree_branch, path) if tree_branch["pos"] < path["pos"] else (path, tree_branch)
    frontier = [early["ids"]]
    for _ in range(late["pos"] - early["pos"]):
        frontier = [child for node in frontier for child in node[2]]
    target = next((n for n in frontier if n[0] == late["ids"][0]), None)
    if target is None or late["pos"] == early["pos"]:
        return None, None
    return early, _merge_nodes(target, late["ids"])


def _merge_into(tree: Tree, path: Branch, expand: bool) -> tuple[Tree, str]:
    result: Tree = []
    merged = False
    outcome: str | None = None
    for branch in tree:
        holder, branch_outcome = _graft(branch, path, expand)
        if holder is None:
            result.append(branch)
            continue
        # The path may join several branches (it can reconnect stemmed histories): keep trying.
        result.append(holder)
        merged = True
        outcome = outcome or branch_outcome
    if not merged:
        result.append(path)
        outcome = "new_leaf" if not tree else "new_branch"
    result.sort(key=lambda b: (b["pos"], b["ids"][0]))
    return result, outcome or "internal_node"


def root_to_leaf_paths(tree: Tree) -> list[tuple[int, list[Node]]]:
    """Each root-to-leaf path as ``(root pos, [nodes root..leaf])`` (nodes not copied)."""
    paths: list[tuple[int, list[Node]]] = []
    for branch in tree:
        stack: list[tuple[Node, list[Node]]] = [(branch["ids"], [])]
        while stack:
            node, prefix = stack.pop()
            here = [*prefix, node]
            if not node[2]:
                paths.append((branch["pos"], here))
            for child in node[2]:
                stack.append((child, here))
    return paths


def stem(tree: Tree, limit: int) -> tuple[Tree, list[str]]:
    """Keep the last ``limit`` revisions of each root-to-leaf path; return (tree, dropped revs)."""
    dropped: set[str] = set()
    result: Tree = []
    for root_pos, nodes in root_to_leaf_paths(tree):
        cut = max(0, len(nodes) - limit)
        for offset in range(cut):
            dropped.add(f"{root_pos + offset}-{nodes[offset][0]}")
        kept = nodes[cut:]
        node: Node = [kept[-1][0], dict(kept[-1][1]), []]
        for ancestor in reversed(kept[:-1]):
            node = [ancestor[0], dict(ancestor[1]), [node]]
        branch: Branch = {"pos": root_pos + cut, "ids": node}
        result, _ = _merge_into(result, branch, expand=False)
    # A revision dropped from one path may survive on another.
    for pos, node, _ in iter_nodes(result):
        dropped.discard(f"{pos}-{node[0]}")
    return result, sorted(dropped)


def prune_bodies(tree: Tree, keep: int) -> list[str]:
    """Mark ``missing``, in place, every revision with a body that is not among the newest
    ``keep`` revisions of any root-to-leaf path; return those revisions (their bodies go).

    Leaves always keep theirs (``keep`` >= 1). A revision kept twice by stemming is judged by
    its nearest leaf over every copy, so all its copies agree and the tree never says
    ``available`` for a body the store dropped.
    """
    if len(tree) == 1:
        # Performance: most documents have one unbranched history; a chain is judged by index.
        chain: list[Node] = []
        node = tree[0]["ids"]
        while True:
            chain.append(node)
            if len(node[2]) != 1:
                break
            node = node[2][0]
        if not node[2]:
            root_pos = tree[0]["pos"]
            gone = []
            for offset in range(len(chain) - keep):
                opts = chain[offset][1]
                if opts.get("status") == AVAILABLE:
                    chain[offset][1] = {**opts, "status": MISSING}
                    gone.append(f"{root_pos + offset}-{chain[offset][0]}")
            return sorted(gone)
    # Pre-order (a parent before its children), then backwards: each node's distance to its
    # nearest leaf, in one linear pass without recursion (histories are up to 1000 deep).
    order: list[tuple[int, Node, int]] = []
    stack: list[tuple[int, Node, int]] = [(b["pos"], b["ids"], -1) for b in tree]
    while stack:
        pos, node, parent = stack.pop()
        here = len(order)
        order.append((pos, node, parent))
        stack.extend((pos + 1, child, here) for child in node[2])
    if len(order) <= keep:
        return []
    far = len(order)
    distance = [far if node[2] else 0 for _, node, _ in order]
    for here in range(len(order) - 1, -1, -1):
        parent = order[here][2]
        if parent >= 0 and distance[here] + 1 < distance[parent]:
            distance[parent] = distance[here] + 1
    nearest: dict[tuple[int, str], int] = {}
    for (pos, node, _), dist in zip(order, distance, strict=True):
        key = (pos, node[0])
        if dist < nearest.get(key, far):
            nearest[key] = dist
    dropped: set[str] = set()
    for pos, node, _ in order:
        if nearest[(pos, node[0])] >= keep and node[1].get("status") == AVAILABLE:
            node[1] = {**node[1], "status": MISSING}
            dropped.add(f"{pos}-{node[0]}")
    return sorted(dropped)


def _copy_node(root: Node) -> Node:
    """A deep copy of a node and its descendants without recursion (trees can be 1000+ deep)."""
    top: Node = [root[0], dict(root[1]), []]
    stack: list[tuple[Node, Node]] = [(root, top)]
    while stack:
        src, dst = stack.pop()
        for child in src[2]:
            copied: Node = [child[0], dict(child[1]), []]
            dst[2].append(copied)
            stack.append((child, copied))
    return top


def _copy_branch(branch: Branch) -> Branch:
    return {"pos": branch["pos"], "ids": _copy_node(branch["ids"])}


def _copy_tree(tree: Tree) -> Tree:
    return [_copy_branch(b) for b in tree]


def merge(tree: Tree, path: Branch, revs_limit: int) -> tuple[Tree, str, list[str]]:
    """Merge a one-path branch into a tree, then stem. Returns (tree, outcome, stemmed revs).

    ``outcome`` is 'new_leaf', 'new_branch' or 'internal_node' (nothing new); see _merge_outcome.
    """
    # The outcome is judged from the tree before the merge, not taken from _merge_into: when the
    # path starts before a branch root it contains, that branch is grafted into the path, and the
    # outcome seen from the path's side would be 'new_branch' for a path that only adds an older
    # ancestor above an existing revision, where CouchDB says 'internal_node'.
    outcome = _merge_outcome(tree, path)
    # Iterative copies: ``copy.deepcopy`` recurses once per nesting level, and a history of about
    # 250 revisions (two list levels per generation) would exceed Python's recursion limit.
    merged, _ = _merge_into(_copy_tree(tree), _copy_branch(path), expand=True)
    stemmed, dropped = stem(merged, revs_limit)
    return stemmed, outcome, dropped


def _merge_outcome(tree: Tree, path: Branch) -> str:
    """What merging ``path`` adds, judged from the tree before the merge (couch_key_tree:merge/2).

    'internal_node': the path's leaf is already in the tree. 'new_leaf': the tree is empty, or the
    deepest path node the tree already has is a leaf there (the path extends it). 'new_branch':
    anything else (a new sibling, or a new root when the path shares no node with the tree).
    """
    if not tree:
        return "new_leaf"
    chain: list[tuple[int, str]] = []
    pos, node = path["pos"], path["ids"]
    while True:
        chain.append((pos, node[0]))
        if not node[2]:
            break
        pos, node = pos + 1, node[2][0]
    on_path = set(chain)
    leaf_pos = chain[-1][0]
    is_leaf: dict[tuple[int, str], bool] = {}  # the path's revisions found in the tree
    stack = [(b["pos"], b["ids"]) for b in tree]
    while stack:
        pos, node = stack.pop()
        key = (pos, node[0])
        if key in on_path:
            # A revision kept twice by stemming is a leaf only if it is a leaf in every copy.
            is_leaf[key] = is_leaf.get(key, True) and not node[2]
        if pos < leaf_pos:  # nothing deeper can be on the path
            stack.extend((pos + 1, child) for child in node[2])
    shared = [i for i, key in enumerate(chain) if key in is_leaf]
    if not shared:
        return "new_branch"
    if shared[-1] == len(chain) - 1:
        return "internal_node"
    return "new_leaf" if is_leaf[chain[shared[-1]]] else "new_branch"


def node_census(tree: Tree) -> Counter[CensusKey]:
    """The tree as a multiset of ``(pos, hash, parent (pos, hash) or None, status, deleted)``.

    Two trees with the same census hold the same revisions, links, copies and bodies, whatever the
    order of their branches and children: this is how a merge that changed nothing is recognised.
    """
    census: Counter[CensusKey] = Counter()
    stack: list[tuple[int, Node, tuple[int, str] | None]] = [(b["pos"], b["ids"], None) for b in tree]
    while stack:
        pos, node, parent = stack.pop()
        opts = node[1]
        census[(pos, node[0], parent, opts.get("status"), bool(opts.get("deleted")))] += 1
        key = (pos, node[0])
        stack.extend((pos + 1, child, key) for child in node[2])
    return census


def same_tree(a: Tree, b: Tree) -> bool:
    """Whether two trees are the same (see ``node_census``)."""
    return node_census(a) == node_census(b)


def max_depth(tree: Tree) -> int:
    return max((len(nodes) for _, nodes in root_to_leaf_paths(tree)), default=0)
