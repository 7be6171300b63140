"""Differential testing against npm ``pouchdb-merge`` 9.0.0: corpora, the Node runner, oracles.

Two corpora of random revision histories, each generated from a fixed seed
(``STORYLOOM_DIFF_SEED`` replays another one):

* ``generate_corpus``: the broad corpus. Several roots, branches, tombstones with and without
  children, paths stemmed by the sender, repeated paths, revs limits from 2 to 1000, a few
  histories deeper than 1000, 32-hex, short and mixed hashes.
* ``generate_graft_corpus``: grafting and stemming. Small true trees (up to 20 revisions,
  sometimes two roots) sent as ancestor-truncated paths in random order with repeats: each path
  is a revision with a random number of its ancestors, so a later path often reaches further back
  than an earlier one and must be grafted onto the stored, shorter history (which CouchDB's
  ``couch_key_tree:merge`` and ``pouchdb-merge`` do), with revs limits 2, 3, 4, 6 and 1000.

``run_pouchdb`` sends a whole corpus to ONE Node process (``node_merge_runner.js``). The helpers
below turn its answers into what our side must produce.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import subprocess
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from storyloom.store import revtree
from tests.support.node import ensure_node_packages, node_binary

RUNNER = Path(__file__).with_name("node_merge_runner.js")
SEED = int(os.environ.get("STORYLOOM_DIFF_SEED", "20260817"))
N_HISTORIES = 2400
LIMITS = [2, 3, 4, 5, 6, 8, 10, 16, 50, 100, 1000]
N_GRAFT_HISTORIES = 5200
GRAFT_LIMITS = [2, 3, 4, 6, 1000]
SHORT_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
HEX = set("0123456789abcdef")


# -- corpus ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PathSpec:
    pos: int  # generation of the path's root
    chain: tuple[str, ...]  # hashes, root first
    deleted: bool  # the leaf is a tombstone

    @property
    def leaf_pos(self) -> int:
        return self.pos + len(self.chain) - 1

    @property
    def leaf_rev(self) -> str:
        return f"{self.leaf_pos}-{self.chain[-1]}"

    def branch(self) -> dict[str, Any]:
        opts: dict[str, Any] = {"status": "available"}
        if self.deleted:
            opts["deleted"] = True
        return revtree.path_to_branch(self.pos, list(reversed(self.chain)), opts)

    def replicated_doc(self, doc_id: str, n: int, with_revisions: bool) -> dict[str, Any]:
        doc: dict[str, Any] = {"_id": doc_id, "_rev": self.leaf_rev, "n": n}
        if with_revisions:
            doc["_revisions"] = {"start": self.leaf_pos, "ids": list(reversed(self.chain))}
        if self.deleted:
            doc["_deleted"] = True
        return doc

    def to_json(self) -> dict[str, Any]:
        return {"pos": self.pos, "chain": list(self.chain), "deleted": self.deleted}


@dataclass
class History:
    index: int
    limit: int
    style: str  # "hex", "short" or "mixed"
    roots: int
    depth: int  # generations of the deepest revision
    paths: list[PathSpec] = field(default_factory=list)
    one_call: bool = False  # all paths in a single bulk_docs call (same id repeated)
    detail: bool = False  # PouchDB reports every root-to-leaf path after every step

    @property
    def doc_id(self) -> str:
        return f"h{self.index:05d}"

    def to_json(self) -> dict[str, Any]:
        return {"limit": self.limit, "paths": [p.to_json() for p in self.paths], "detail": self.detail}


def _is_hex32(h: str) -> bool:
    return len(h) == 32 and set(h) <= HEX


def _hash(rng: random.Random, kind: str) -> str:
    if kind == "hex":
        return f"{rng.getrandbits(128):032x}"
    while True:
        length = rng.randint(1, 4) if rng.random() < 0.85 else rng.randint(5, 40)
        h = "".join(rng.choice(SHORT_ALPHABET) for _ in range(length))
        if not _is_hex32(h):  # "short" means: never a 32-hex hash
            return h


def make_history(rng: random.Random, index: int) -> History:
    """A true revision tree for one document, then a sequence of (possibly stemmed) paths of it."""
    style = rng.choices(["hex", "short", "mixed"], weights=[45, 45, 10])[0]
    limit = rng.choice(LIMITS)
    long_chain = rng.random() < 0.015
    used: set[tuple[int, str]] = set()

    def new_hash(pos: int) -> str:
        # A (pos, hash) pair names one revision; hashes may repeat across generations.
        while True:
            h = _hash(rng, style if style != "mixed" else rng.choice(["hex", "short"]))
            if (pos, h) not in used:
                used.add((pos, h))
                return h

    # nodes: (pos, hash, parent index or -1, deleted)
    nodes: list[tuple[int, str, int, bool]] = []
    children: dict[int, list[int]] = defaultdict(list)

    def add(parent: int, deleted: bool) -> int:
        pos = 1 if parent < 0 else nodes[parent][0] + 1
        nodes.append((pos, new_hash(pos), parent, deleted))
        if parent >= 0:
            children[parent].append(len(nodes) - 1)
        return len(nodes) - 1

    roots = rng.choices([1, 2, 3, 4], weights=[55, 25, 12, 8])[0]
    for _ in range(roots):
        add(-1, rng.random() < 0.08)
    if long_chain:
        tip = 0
        for _ in range(rng.randint(1000, 1150)):
            tip = add(tip, False)
    for _ in range(rng.randint(0, 24)):
        leaves = [i for i in range(len(nodes)) if not children[i]]
        parent = rng.choice(leaves) if rng.random() < 0.65 else rng.randrange(len(nodes))
        add(parent, rng.random() < 0.15)

    def ancestry(i: int) -> list[int]:
        out = []
        while i >= 0:
            out.append(i)
            i = nodes[i][2]
        return out[::-1]  # root first

    history = History(index, limit, style, roots, max(n[0] for n in nodes), one_call=rng.random() < 0.25)
    leaves = [i for i in range(len(nodes)) if not children[i]]
    for _ in range(rng.randint(1, 10)):
        if history.paths and rng.random() < 0.1:
            history.paths.append(rng.choice(history.paths))  # replayed path
            continue
        target = rng.choice(leaves) if rng.random() < 0.7 else rng.randrange(len(nodes))
        chain = ancestry(target)
        if rng.random() < 0.4:  # a path stemmed by the sender
            chain = chain[-rng.randint(1, len(chain)):]
        history.paths.append(
            PathSpec(nodes[chain[0]][0], tuple(nodes[i][1] for i in chain), nodes[target][3])
        )
    return history


def generate_corpus(seed: int, count: int) -> list[History]:
    rng = random.Random(seed)
    return [make_history(rng, i) for i in range(count)]


def make_graft_history(rng: random.Random, index: int) -> History:
    """A small true tree sent as ancestor-truncated paths, in random order, with repeats.

    Each path is one revision with a random number of its nearest ancestors (0 to all), so a
    later path often holds an earlier path's root further down: the store must graft.
    """
    style = rng.choice(["hex", "short"])
    used: set[tuple[int, str]] = set()

    def new_hash(pos: int) -> str:
        while True:
            if style == "hex":
                h = f"{rng.getrandbits(128):032x}"
            else:  # few letters, so the same hash recurs at other generations
                h = rng.choice("abcdefgh") + rng.choice(["", "", "1", "2", "Z"])
            if (pos, h) not in used:
                used.add((pos, h))
                return h

    nodes: list[tuple[int, str, int, bool]] = []  # (pos, hash, parent index or -1, deleted)
    has_child: set[int] = set()
    roots = 2 if rng.random() < 0.3 else 1
    for i in range(rng.randint(roots, 20)):
        if i < roots:
            parent = -1
        else:
            leaves = [n for n in range(i) if n not in has_child]
            parent = rng.choice(leaves) if rng.random() < 0.6 else rng.randrange(i)
            has_child.add(parent)
        pos = 1 if parent < 0 else nodes[parent][0] + 1
        nodes.append((pos, new_hash(pos), parent, rng.random() < 0.12))

    history = History(
        index, rng.choice(GRAFT_LIMITS), style, roots, max(n[0] for n in nodes),
        one_call=rng.random() < 0.2, detail=True,
    )
    for _ in range(rng.randint(2, 12)):
        if history.paths and rng.random() < 0.15:
            history.paths.append(rng.choice(history.paths))  # a repeat
            continue
        target = rng.randrange(len(nodes))
        chain = [target]
        while nodes[chain[-1]][2] >= 0:
            chain.append(nodes[chain[-1]][2])
        chain = chain[: rng.randint(1, len(chain))][::-1]  # the target and some ancestors, root first
        history.paths.append(PathSpec(nodes[chain[0]][0], tuple(nodes[i][1] for i in chain), nodes[target][3]))
    return history


def generate_graft_corpus(seed: int, count: int) -> list[History]:
    rng = random.Random(seed ^ 0x6A7F)
    return [make_graft_history(rng, i) for i in range(count)]


# -- PouchDB side ------------------------------------------------------------------------------------


def run_pouchdb(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Run every case in one Node process; return the per-case results."""
    modules = ensure_node_packages()
    proc = subprocess.run(
        [node_binary(), str(RUNNER), str(modules)],
        input=json.dumps({"cases": cases}),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, f"node runner failed:\n{proc.stderr[-4000:]}"
    out = json.loads(proc.stdout)
    assert out["version"] == "9.0.0", f"expected pouchdb-merge 9.0.0, got {out['version']}"
    assert len(out["cases"]) == len(cases)
    return out["cases"]


@dataclass
class Corpus:
    name: str
    histories: list[History]
    pouch: list[dict[str, Any]]
    node_seconds: float


def load_corpus(name: str) -> Corpus:
    """Generate the ``"broad"`` or ``"graft"`` corpus and PouchDB's answers for it."""
    if name == "broad":
        histories = generate_corpus(SEED, N_HISTORIES)
    else:
        histories = generate_graft_corpus(SEED, N_GRAFT_HISTORIES)
    started = time.perf_counter()
    pouch = run_pouchdb([h.to_json() for h in histories])
    return Corpus(name, histories, pouch, time.perf_counter() - started)


# -- comparison helpers -------------------------------------------------------------------------


def _couch_key(pos: int, h: str) -> bytes:
    """Rule 1.4's hash key, written out here independently of revtree.hash_key."""
    return bytes.fromhex(h) if _is_hex32(h) and pos != 0 else h.encode()


def _split(rev: str) -> tuple[int, str]:
    pos, _, h = rev.partition("-")
    return int(pos), h


def expected_winner(leaves: list[list[Any]], pouch_winner: str) -> tuple[str, bool]:
    """CouchDB's winner given PouchDB's leaves; True when the 32-hex/other-length tie-break applied.

    Only then may PouchDB's winner differ; the test checks PouchDB's choice is the JS-string
    maximum and returns CouchDB's choice.
    """
    live = [(rev, d) for rev, d in leaves if not d] or leaves
    top_pos = max(_split(rev)[0] for rev, _ in live)
    top = [_split(rev) for rev, _ in live if _split(rev)[0] == top_pos]
    kinds = {_is_hex32(h) for _, h in top}
    if len(kinds) < 2:
        return pouch_winner, False
    assert pouch_winner == f"{top_pos}-{max(h for _, h in top)}", "PouchDB's winner is not the string max"
    pos, h = max(top, key=lambda ph: _couch_key(*ph))
    return f"{pos}-{h}", True


def our_nodes(tree: list) -> Counter:
    """The tree as a multiset of (pos, hash, parent (pos, hash) | None, is_leaf, status, leaf deleted)."""
    out: Counter = Counter()
    stack = [(b["pos"], b["ids"], None) for b in tree]
    while stack:
        pos, node, parent = stack.pop()
        leaf = not node[2]
        out[(pos, node[0], parent, leaf, node[1].get("status"), leaf and bool(node[1].get("deleted")))] += 1
        stack.extend((pos + 1, child, (pos, node[0])) for child in node[2])
    return out


def our_signature(tree: list) -> str:
    """The runner's ``signature()`` of a tree: sha1 of its sorted node lines."""
    lines = []
    stack = [(b["pos"], b["ids"], None) for b in tree]
    while stack:
        pos, node, parent = stack.pop()
        ppos, phash = parent if parent else ("-", "-")
        opts = node[1]
        leaf = 0 if node[2] else 1
        deleted = 1 if leaf and opts.get("deleted") else 0  # see the runner's signature()
        lines.append(f"{pos}|{node[0]}|{ppos}|{phash}|{leaf}|{opts.get('status')}|{deleted}")
        stack.extend((pos + 1, child, (pos, node[0])) for child in node[2])
    return hashlib.sha1("\n".join(sorted(lines)).encode()).hexdigest()


def expected_outcome(before: list, spec: PathSpec) -> str:
    """The outcome, in couch_key_tree:merge/2's terms, of merging ``spec`` into ``before``.

    'internal_node' when the path's leaf is already in the tree; 'new_leaf' when the tree was
    empty or the deepest path node the tree already has is one of its leaves (the path extends a
    leaf); 'new_branch' otherwise (a new sibling, or a new root when no node is shared).
    """
    if not before:
        return "new_leaf"
    present: dict[tuple[int, str], bool] = {}  # (pos, hash) -> is a leaf everywhere it occurs
    for (pos, h, _parent, leaf, _status, _deleted), _n in our_nodes(before).items():
        present[(pos, h)] = present.get((pos, h), True) and leaf
    shared = [i for i, h in enumerate(spec.chain) if (spec.pos + i, h) in present]
    if not shared:
        return "new_branch"
    deepest = shared[-1]
    if deepest == len(spec.chain) - 1:
        return "internal_node"
    return "new_leaf" if present[(spec.pos + deepest, spec.chain[deepest])] else "new_branch"


def outcome_difference(before: list, spec: PathSpec, ours: str, pouch: str) -> str | None:
    """Why PouchDB's merge outcome may differ from CouchDB's (ours); None if no documented reason.

    * "new root": the path shares no node with the tree. CouchDB says 'new_branch', PouchDB
      'internal_node'.
    * "path before root": the path starts before a branch root it contains. PouchDB then merges
      that branch into the path and reports the outcome from the path's side.
    * "stemmed copies": the path runs through revisions the tree holds twice (stemming keeps a
      shared ancestor once per surviving path). PouchDB merges into every copy and reports the
      first one's outcome, which can be a 'new_branch' for a leaf that already exists.
    """
    on_path = {(spec.pos + i, h) for i, h in enumerate(spec.chain)}
    if ours == "new_branch" and pouch == "internal_node" and not on_path & {k[:2] for k in our_nodes(before)}:
        return "new root"
    if any(b["pos"] > spec.pos and (b["pos"], b["ids"][0]) in on_path for b in before):
        return "path before root"
    copies = Counter()
    for key, n in our_nodes(before).items():
        copies[key[:2]] += n
    if any(copies[k] > 1 for k in on_path):
        return "stemmed copies"
    return None


def pouch_nodes(flat: list[list[Any]]) -> Counter:
    is_parent = {row[2] for row in flat}
    out: Counter = Counter()
    for index, (pos, h, parent, opts) in enumerate(flat):
        leaf = index not in is_parent
        parent_key = None if parent < 0 else (flat[parent][0], flat[parent][1])
        out[(pos, h, parent_key, leaf, opts.get("status"), leaf and bool(opts.get("deleted")))] += 1
    return out


@dataclass
class Expected:
    winner: str
    winner_deleted: bool
    conflicts: set[str]
    deleted_conflicts: set[str]
    leaves: set[tuple[str, bool]]
    ambiguous: bool


def expected_from(step: dict[str, Any]) -> Expected:
    leaves = {(rev, bool(d)) for rev, d in step["leaves"]}
    winner, ambiguous = expected_winner(step["leaves"], step["winner"])
    deleted_by_rev = dict(leaves)
    conflicts = {rev for rev, d in leaves if not d and rev != winner}
    if not ambiguous:
        assert conflicts == set(step["conflicts"]), "inconsistent PouchDB output"
    return Expected(
        winner=winner,
        winner_deleted=deleted_by_rev[winner],
        conflicts=conflicts,
        deleted_conflicts={rev for rev, d in leaves if d and rev != winner},
        leaves=leaves,
        ambiguous=ambiguous,
    )


# -- root-to-leaf paths -----------------------------------------------------------------------------


def our_paths(tree: list, statuses: bool = True) -> Counter:
    """Every root-to-leaf path of our tree, as the runner's ``paths()`` writes them (a multiset)."""
    out: Counter = Counter()
    for pos, nodes in revtree.root_to_leaf_paths(tree):
        key: tuple = (pos, tuple(n[0] for n in nodes), bool(nodes[-1][1].get("deleted")))
        if statuses:
            key += ("".join("a" if n[1].get("status") == "available" else "m" for n in nodes),)
        out[key] += 1
    return out


def pouch_paths(paths: list[list[Any]], statuses: bool = True) -> Counter:
    """PouchDB's ``rootToLeaf`` paths (from the runner) as a multiset comparable with ``our_paths``."""
    out: Counter = Counter()
    for pos, ids, deleted, status in paths:
        key: tuple = (pos, tuple(ids), bool(deleted))
        out[key + ((status,) if statuses else ())] += 1
    return out
