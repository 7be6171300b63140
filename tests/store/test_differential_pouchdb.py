"""Differential tests: our revision trees and ``Database`` against npm ``pouchdb-merge`` 9.0.0.

Two corpora of random histories (``pouch_merge.py`` describes them: a broad one, and one built to
make the store graft a longer history onto a shorter stored one and stem it at small limits) go,
each in ONE Node process (``node_merge_runner.js``), through ``merge``, ``winningRev``,
``collectConflicts``, ``collectLeaves`` and ``rootToLeaf``, and through our code:

* the pure functions (``revtree.merge`` etc.), compared after every single merge with PouchDB's
  ``merge``: winner, conflicts, deleted conflicts, leaves, stemmed revs, outcome, the whole tree
  as a multiset of ``(pos, hash, parent, leaf, status)`` nodes and, for the graft corpus, every
  root-to-leaf path with its statuses;
* a file ``Database`` per revs limit (``bulk_docs(new_edits=False)`` with ``_revisions``, some
  revisions with attachments), which merges as ``pouchdb-merge`` and ``couch_key_tree:merge`` do,
  including the path of a revision it already has (that is how a shorter stored history gets its
  ancestors): the winner after every round; at the end ``_conflicts``, ``_deleted_conflicts``,
  ``open_revs="all"``, ``changes(style="all_docs")``, ``all_docs(keys=...)``, the doc counts, every
  stored root-to-leaf path, and that bodies and attachment data are kept exactly for the revisions
  the trees still hold. For the graft corpus, the documents a round changed (new seq) are exactly
  those whose PouchDB tree changed: a merge that adds nothing is a complete no-op.

A PouchDB *database* differs on purpose: ``pouchdb-adapter-utils`` skips a replicated revision it
already has, so it never learns the ancestors such a path brings (docs/store.md).

Hash styles (docs/protocol.md 1.4): CouchDB ranks a 32-hex hash by its decoded bytes and any other
hash by its raw text, while PouchDB compares JS strings. They can only disagree when, among the
leaves that tie on (deleted, generation), a 32-hex hash meets a hash of another length. Most
histories use a single hash style (all 32-hex, or all short/opaque: never 32-hex), where both
orders coincide and everything must equal PouchDB exactly. A tenth of the broad histories
deliberately mix the two styles; for those, where that tie-break applies, the test checks that
PouchDB picked the larger JS string, that we picked CouchDB's winner (computed here independently
from rule 1.4), and that conflicts are the other live leaves; everything else is still compared
exactly.

Set ``STORYLOOM_DIFF_SEED`` to replay other corpora; a failure message names the seed, the corpus
and the history index.
"""

from __future__ import annotations

import base64
import random
import sqlite3
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest

from storyloom.store import Database, revtree
from storyloom.store.codec import decode_tree as _decode_tree
from tests.store.pouch_merge import (
    GRAFT_LIMITS,
    LIMITS,
    N_GRAFT_HISTORIES,
    SEED,
    Corpus,
    History,
    PathSpec,
    expected_from,
    expected_outcome,
    load_corpus,
    our_nodes,
    our_paths,
    our_signature,
    outcome_difference,
    pouch_nodes,
    pouch_paths,
    run_pouchdb,
)

pytestmark = pytest.mark.integration  # PouchDB's merge in Node processes


@pytest.fixture(scope="module")
def broad() -> Corpus:
    return load_corpus("broad")


@pytest.fixture(scope="module")
def grafts() -> Corpus:
    return load_corpus("graft")


@pytest.fixture(scope="module", params=["broad", "graft"])
def corpus(request: pytest.FixtureRequest) -> Corpus:
    return request.getfixturevalue("grafts" if request.param == "graft" else "broad")


# -- the corpora --------------------------------------------------------------------------------


def test_corpus_covers_what_it_claims(broad: Corpus) -> None:
    """The broad generator really produces the features the differential tests are meant to cover."""
    hs = broad.histories
    assert len(hs) >= 2000
    assert {h.limit for h in hs} == set(LIMITS)
    assert min(LIMITS) == 2 and max(LIMITS) == 1000
    assert Counter(h.style for h in hs).keys() == {"hex", "short", "mixed"}
    assert sum(h.roots > 1 for h in hs) > 500
    assert sum(h.depth > 1000 for h in hs) >= 10  # long histories that stem at 1000
    assert sum(any(p.deleted for p in h.paths) for h in hs) > 500
    assert sum(h.one_call for h in hs) > 300
    final_raw = [c["raw"]["steps"][-1] for c in broad.pouch]
    # Branching and conflicts, stemming, tombstone conflicts, fully deleted documents.
    assert sum(len(s["conflicts"]) >= 2 for s in final_raw) > 200
    assert sum(any(step["stemmed"] for step in c["raw"]["steps"]) for c in broad.pouch) > 500
    assert sum(any(d for _, d in s["leaves"]) and bool(s["conflicts"]) for s in final_raw) > 100
    assert sum(all(d for _, d in s["leaves"]) for s in final_raw) > 20
    # Disjoint roots in the final tree (several roots, or stemmed paths that did not reconnect).
    assert sum(sum(1 for row in c["raw"]["tree"] if row[2] < 0) > 1 for c in broad.pouch) > 800


def _revs_in(paths: list[list[Any]]) -> set[str]:
    return {f"{pos + i}-{h}" for pos, ids, _, _ in paths for i, h in enumerate(ids)}


def test_graft_corpus_covers_what_it_claims(grafts: Corpus) -> None:
    """The graft corpus makes the store graft, join branches and stem at small limits, often."""
    hs = grafts.histories
    assert len(hs) >= N_GRAFT_HISTORIES >= 5000
    assert {h.limit for h in hs} == set(GRAFT_LIMITS)
    assert Counter(h.style for h in hs).keys() == {"hex", "short"}
    assert sum(h.roots == 2 for h in hs) > 1000
    assert sum(any(spec in h.paths[:i] for i, spec in enumerate(h.paths)) for h in hs) > 1500  # repeats
    counts: Counter = Counter()
    for history, result in zip(hs, grafts.pouch, strict=True):
        before: list[list[Any]] = []
        for spec, step in zip(history.paths, result["raw"]["steps"], strict=True):
            present = spec.leaf_rev in _revs_in(before)
            changed = pouch_paths(before, statuses=False) != pouch_paths(step["paths"], statuses=False)
            leaves_before = {(p[0] + len(p[1]) - 1, p[1][-1]) for p in before}
            leaves_after = {(p[0] + len(p[1]) - 1, p[1][-1]) for p in step["paths"]}
            counts["graft"] += present and changed  # a known revision brought ancestors or links
            counts["graft removed a leaf"] += present and bool(leaves_before - leaves_after)
            counts["no-op"] += present and not changed
            counts["stemmed"] += bool(step["stemmed"])
            counts["reaches before a stored root"] += any(
                p[0] > spec.pos and (p[0], p[1][0]) in {(spec.pos + i, h) for i, h in enumerate(spec.chain)}
                for p in before
            )
            before = step["paths"]
        counts["conflicts at the end"] += bool(result["raw"]["steps"][-1]["conflicts"])
    print(f"\ngraft corpus: {dict(counts)}")
    assert counts["graft"] > 2000
    assert counts["graft removed a leaf"] > 300
    assert counts["no-op"] > 3000
    assert counts["stemmed"] > 4000
    assert counts["reaches before a stored root"] > 3000
    assert counts["conflicts at the end"] > 1000


# -- the pure functions -------------------------------------------------------------------------


def test_revtree_matches_pouchdb_merge_after_every_step(corpus: Corpus) -> None:
    steps = ambiguous = paths_compared = 0
    outcome_differs: Counter = Counter()
    started = time.perf_counter()
    for history, result in zip(corpus.histories, corpus.pouch, strict=True):
        where = f"seed {SEED}, {corpus.name} history {history.index} ({history.style}, limit {history.limit})"
        tree: list = []
        for n, (spec, step) in enumerate(zip(history.paths, result["raw"]["steps"], strict=True)):
            at = f"{where}, step {n} path {spec}"
            before = tree
            tree, outcome, stemmed = revtree.merge(tree, spec.branch(), history.limit)
            assert our_signature(tree) == step["signature"], f"{at}: trees differ"
            if history.detail:
                assert our_paths(tree) == pouch_paths(step["paths"]), f"{at}: root-to-leaf paths differ"
                paths_compared += 1
            exp = expected_from(step)
            ambiguous += exp.ambiguous
            assert revtree.winning_rev(tree) == exp.winner, at
            assert revtree.winning_leaf(tree).deleted == exp.winner_deleted, at
            live, dead = revtree.conflicts(tree)
            assert set(live) == exp.conflicts and len(live) == len(exp.conflicts), at
            assert set(dead) == exp.deleted_conflicts and len(dead) == len(exp.deleted_conflicts), at
            ours_leaves = {(leaf.rev, leaf.deleted) for leaf in revtree.leaves(tree)}
            assert ours_leaves == exp.leaves, at
            assert set(stemmed) == set(step["stemmed"]), at
            # merge's outcome follows CouchDB's meaning (see expected_outcome); PouchDB's may
            # differ only for the reasons outcome_difference() lists.
            assert outcome == expected_outcome(before, spec), at
            if outcome != step["outcome"]:
                reason = outcome_difference(before, spec, outcome, step["outcome"])
                assert reason is not None, f"{at}: outcome {outcome}, PouchDB {step['outcome']}"
                outcome_differs[reason] += 1
            assert revtree.max_depth(tree) <= history.limit, at
            steps += 1
        assert our_nodes(tree) == pouch_nodes(result["raw"]["tree"]), f"{where}: final trees differ"
        assert our_paths(tree) == pouch_paths(result["raw"]["finalPaths"]), f"{where}: final paths differ"
    elapsed = time.perf_counter() - started
    print(
        f"\nrevtree vs pouchdb-merge ({corpus.name}): {len(corpus.histories)} histories, {steps} merges "
        f"compared ({paths_compared} with every root-to-leaf path), {ambiguous} steps used the "
        f"hex/other-length tie-break, outcomes differing from PouchDB's for documented reasons: "
        f"{dict(outcome_differs)}; node {corpus.node_seconds:.1f}s, python {elapsed:.1f}s"
    )
    if corpus.name == "broad":
        assert steps > 10_000
        assert ambiguous > 20  # the mixed-style histories really exercise the hex/other tie-break
    else:
        assert paths_compared == steps > 30_000


# -- the Database ---------------------------------------------------------------------------------


def _database_state(db: Database, histories: list[History]) -> dict[str, dict[str, Any]]:
    ids = [h.doc_id for h in histories]
    rows = {row["id"]: row for row in db.all_docs(keys=ids)["rows"]}
    changes = {row["id"]: row for row in db.changes(style="all_docs")["results"]}
    state: dict[str, dict[str, Any]] = {}
    for doc_id in ids:
        row = rows[doc_id]
        winner = row["value"]["rev"]
        doc = db.get(doc_id, rev=winner, conflicts=True, deleted_conflicts=True)
        leaves = db.get(doc_id, open_revs="all")
        state[doc_id] = {
            "winner": winner,
            "deleted": bool(row["value"].get("deleted")),
            "conflicts": doc.get("_conflicts", []),
            "deleted_conflicts": doc.get("_deleted_conflicts", []),
            "leaves": leaves,
            "change": changes[doc_id],
        }
    return state


def _stored(path: Path) -> tuple[dict[str, list], set[tuple[str, str]], set[tuple[str, str]], dict[str, set[str]]]:
    """What the file holds: trees by id, (doc, rev) of bodies and of attachment references, data by digest."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        trees = {doc_id: _decode_tree(text) for doc_id, text in conn.execute("SELECT id, rev_tree FROM docs")}
        bodies = set(conn.execute("SELECT doc_id, rev FROM revs"))
        refs: dict[str, set[str]] = defaultdict(set)
        ref_revs: set[tuple[str, str]] = set()
        for digest, doc_id, rev in conn.execute("SELECT digest, doc_id, rev FROM att_refs"):
            refs[digest].add(doc_id)
            ref_revs.add((doc_id, rev))
        data = {digest for (digest,) in conn.execute("SELECT digest FROM attachments")}
    finally:
        conn.close()
    return trees, bodies, ref_revs, {d: refs.get(d, set()) for d in data | set(refs)}


def _check_storage(path: Path, at: str) -> dict[str, list]:
    """Bodies are kept exactly for the revisions a tree marks available; no attachment data leaks."""
    trees, bodies, ref_revs, refs = _stored(path)
    available = {
        (doc_id, f"{pos}-{node[0]}")
        for doc_id, tree in trees.items()
        for pos, node, _ in revtree.iter_nodes(tree)
        if node[1]["status"] == revtree.AVAILABLE
    }
    assert bodies == available, f"{at}: bodies {sorted(bodies ^ available)[:5]} disagree with the trees"
    assert ref_revs <= bodies, f"{at}: attachment references of dropped revisions {sorted(ref_revs - bodies)[:5]}"
    assert all(refs.values()), f"{at}: attachment data no revision references"
    return trees


def _replicated(spec: PathSpec, history: History, n: int, rng: random.Random) -> dict[str, Any]:
    doc = spec.replicated_doc(history.doc_id, n, with_revisions=len(spec.chain) > 1 or rng.random() < 0.5)
    if rng.random() < 0.3:  # an attachment: shared content across revisions, or the revision's own
        data = b"shared" if rng.random() < 0.5 else spec.leaf_rev.encode()
        doc["_attachments"] = {"a.txt": {"content_type": "text/plain", "data": base64.b64encode(data).decode()}}
    return doc


def test_database_merges_as_pouchdb_merge(corpus: Corpus, tmp_path: Path) -> None:
    started = time.perf_counter()
    compared = rounds_checked = 0
    by_limit: dict[int, list[tuple[History, dict[str, Any]]]] = defaultdict(list)
    for history, result in zip(corpus.histories, corpus.pouch, strict=True):
        by_limit[history.limit].append((history, result))
    rng = random.Random(SEED + 1)
    for limit, group in sorted(by_limit.items()):
        db_path = tmp_path / f"{corpus.name}-limit-{limit}.db"
        db = Database(db_path, revs_limit=limit)
        # PouchDB's merge keeps every body it is given: compared without the store's bounded
        # bodies first; _check_compaction then applies them.
        db.set_kept_bodies(MERGE_ONLY)
        try:
            # Round k sends the k-th path of every history; "one_call" histories send all their
            # paths (the same id repeated) in round 0.
            rounds: list[list[dict[str, Any]]] = [[] for _ in range(max(len(h.paths) for h, _ in group))]
            for history, _ in group:
                for n, spec in enumerate(history.paths):
                    rounds[0 if history.one_call else n].append(_replicated(spec, history, n, rng))
            for n, docs in enumerate(rounds):
                if not docs:
                    continue
                seq = db.info()["update_seq"]
                assert db.bulk_docs(docs, new_edits=False) == []
                # After each round, every history that just took its n-th step has PouchDB's
                # winner for that step (one all_docs call per round).
                stepped = [(h, r) for h, r in group if not h.one_call and n < len(h.paths)]
                rows = db.all_docs(keys=[h.doc_id for h, _ in stepped])["rows"]
                for (history, result), row in zip(stepped, rows, strict=True):
                    exp = expected_from(result["raw"]["steps"][n])
                    at = f"seed {SEED}, {corpus.name} history {history.index}, step {n}"
                    assert row["value"]["rev"] == exp.winner, at
                    assert bool(row["value"].get("deleted")) == exp.winner_deleted, at
                if corpus.name == "graft":
                    # A new seq exactly where PouchDB's tree changed.
                    changed = {row["id"] for row in db.changes(since=seq)["results"]}
                    for history, result in stepped:
                        steps = result["raw"]["steps"]
                        prev = steps[n - 1]["paths"] if n else []
                        expect = pouch_paths(prev) != pouch_paths(steps[n]["paths"])
                        at = f"seed {SEED}, graft history {history.index}, step {n}"
                        assert (history.doc_id in changed) == expect, at
                    rounds_checked += 1
            histories = [h for h, _ in group]
            state = _database_state(db, histories)
            trees = _check_storage(db_path, f"{corpus.name}, limit {limit}")
            live = 0
            for history, result in group:
                at = f"seed {SEED}, {corpus.name} history {history.index} ({history.style}, limit {limit})"
                exp = expected_from(result["raw"]["steps"][-1])
                got = state[history.doc_id]
                assert got["winner"] == exp.winner, at
                assert got["deleted"] == exp.winner_deleted, at
                assert set(got["conflicts"]) == exp.conflicts and len(got["conflicts"]) == len(exp.conflicts), at
                assert set(got["deleted_conflicts"]) == exp.deleted_conflicts, at
                assert all("ok" in entry for entry in got["leaves"]), at
                leaves = {(e["ok"]["_rev"], bool(e["ok"].get("_deleted"))) for e in got["leaves"]}
                assert leaves == exp.leaves and len(got["leaves"]) == len(exp.leaves), at
                change = got["change"]
                assert change["changes"][0]["rev"] == exp.winner, at
                assert {c["rev"] for c in change["changes"]} == {rev for rev, _ in exp.leaves}, at
                assert bool(change.get("deleted")) == exp.winner_deleted, at
                if not exp.winner_deleted:
                    assert db.get(history.doc_id)["_rev"] == exp.winner, at
                assert our_paths(trees[history.doc_id]) == pouch_paths(result["raw"]["finalPaths"]), at
                live += not exp.winner_deleted
                compared += 1
            info = db.info()
            assert info["doc_count"] == live
            assert info["doc_del_count"] == len(group) - live
            assert len(db.changes()["results"]) == len(group)
            _check_replay(db, db_path, group, trees, limit)
            _check_compaction(db, db_path, limit)
        finally:
            db.close()
    print(
        f"\nDatabase vs pouchdb-merge ({corpus.name}): {compared} histories in {len(by_limit)} databases, "
        f"{rounds_checked} rounds checked for exact no-ops, {time.perf_counter() - started:.1f}s"
    )
    assert compared == len(corpus.histories)


def _check_replay(db: Database, db_path: Path, group: list, trees: dict[str, list], limit: int) -> None:
    """Sending every path again whose leaf is still stored moves exactly the trees a merge changes.

    The expectation comes from ``revtree.merge`` (checked against PouchDB above). A revision whose
    body is stored keeps its node's opts (its body is never replaced); one known only as an
    ancestor gets its body, as in ``pouchdb-merge``. A replayed path can also join a stale copy
    of a stemmed history and stem it away.
    """
    replay = []
    expected = {doc_id: tree for doc_id, tree in trees.items()}
    changed = 0
    for history, _ in group:
        if history.depth > 200:
            continue  # each 1000-deep merge costs milliseconds; one deep replay is tested below
        for n, spec in enumerate(history.paths):
            tree = expected[history.doc_id]
            known = revtree.find_node(tree, spec.leaf_rev)
            if known is None:
                continue
            replay.append(spec.replicated_doc(history.doc_id, 99 + n, True))
            branch = spec.branch()
            if known[0][1]["status"] == revtree.AVAILABLE:
                branch = revtree.path_to_branch(spec.pos, list(reversed(spec.chain)), dict(known[0][1]))
            merged, _, _ = revtree.merge(tree, branch, limit)
            if not revtree.same_tree(merged, tree):
                changed += 1
                expected[history.doc_id] = merged
    assert replay
    seq = db.info()["update_seq"]
    assert db.bulk_docs(replay, new_edits=False) == []
    assert db.info()["update_seq"] == seq + changed
    after = _check_storage(db_path, f"replay at limit {limit}")
    for doc_id, tree in expected.items():
        assert our_paths(after[doc_id]) == our_paths(tree), f"replay of {doc_id} at limit {limit}"


MERGE_ONLY = 10**9  # kept_bodies that keeps every body a merge keeps
KEPT_AFTER = 3  # kept_bodies for the compaction check


def compacted(paths: Counter, keep: int) -> Counter:
    """``our_paths`` after keeping the bodies of the newest ``keep`` revisions of every path:
    a revision keeps its body if some path (any copy) has it among its last ``keep``."""
    nearest: dict[tuple[int, str], int] = {}
    for pos, ids, _, _ in paths:
        for offset, rev_hash in enumerate(ids):
            key = (pos + offset, rev_hash)
            nearest[key] = min(nearest.get(key, len(ids)), len(ids) - 1 - offset)
    out: Counter = Counter()
    for (pos, ids, deleted, status), count in paths.items():
        kept = "".join(
            "a" if flag == "a" and nearest[(pos + offset, rev_hash)] < keep else "m"
            for offset, (rev_hash, flag) in enumerate(zip(ids, status, strict=True))
        )
        out[(pos, ids, deleted, kept)] += count
    return out


def _check_compaction(db: Database, db_path: Path, limit: int) -> None:
    """``compact`` keeps exactly the bodies of the newest KEPT_AFTER revisions of every path,
    changes no seq, winner or leaf, and leaves bodies and trees in agreement."""
    before = _check_storage(db_path, f"before compaction at limit {limit}")
    seq = db.info()["update_seq"]
    winners = {row["id"]: row["value"]["rev"] for row in db.all_docs()["rows"]}
    db.set_kept_bodies(KEPT_AFTER)
    dropped = db.compact()
    after = _check_storage(db_path, f"compaction at limit {limit}")
    flips = 0
    for doc_id, tree in before.items():
        expected = compacted(our_paths(tree), KEPT_AFTER)
        assert our_paths(after[doc_id]) == expected, f"compaction of {doc_id} at limit {limit}"
        was = {f"{p}-{n[0]}" for p, n, _ in revtree.iter_nodes(tree) if n[1]["status"] == revtree.AVAILABLE}
        now = {f"{p}-{n[0]}" for p, n, _ in revtree.iter_nodes(after[doc_id]) if n[1]["status"] == revtree.AVAILABLE}
        assert now <= was
        flips += len(was - now)
    assert dropped == flips and db.info()["update_seq"] == seq
    assert {row["id"]: row["value"]["rev"] for row in db.all_docs()["rows"]} == winners
    assert db.compact() == 0  # nothing left to drop


# -- pouchdb test.conflicts.js "Conflict resolution 1-5" (docs/protocol.md T16) ----------------------


def _p(start: int, *ids: str, deleted: bool = False) -> PathSpec:
    """A path written the way those cases write ``_revisions``: start, ids newest first."""
    return PathSpec(start - len(ids) + 1, tuple(reversed(ids)), deleted)


A3 = _p(3, "a3", "a2", "a1", deleted=True)
A2 = _p(2, "a2", "a1")
A1 = _p(1, "a1")
B1 = _p(1, "b1")
# (name, batches of paths (each batch is one bulk_docs call), winner after each batch, doc_count)
T16_CASES = [
    ("1", [[_p(1, "a"), _p(1, "b"), _p(1, "1")], [_p(2, "2", "1")]], ["1-b", "2-2"], 1),
    ("2", [[_p(2, "a"), _p(1, "b")]], ["2-a"], 1),
    ("3", [[_p(10, "a"), _p(2, "b")]], ["10-a"], 1),
    ("4-a", [[A1, A2, A3, B1]], ["1-b1"], 1),
    ("4-b", [[A3, A2, A1, B1]], ["1-b1"], 1),
    ("4-c", [[A1, B1, A2, A3]], ["1-b1"], 1),
    ("4-d", [[A1, B1, A2, A3]], ["1-b1"], 1),
    ("4-e", [[A3, A2, B1, A1]], ["1-b1"], 1),
    ("5-a", [[A2, _p(1, "b1", deleted=True), _p(1, "c1", deleted=True)]], ["2-a2"], 1),
    ("5-b", [[_p(1, "b1", deleted=True), A2, _p(1, "c1", deleted=True)]], ["2-a2"], 1),
    ("5-c", [[_p(1, "b1", deleted=True), _p(1, "c1", deleted=True), A2]], ["2-a2"], 1),
]


@pytest.fixture(scope="module")
def t16_pouch() -> dict[str, list[dict[str, Any]]]:
    """PouchDB's own answers for the T16 cases: one Node process for all of them."""
    cases = [
        {"limit": 1000, "paths": [p.to_json() for batch in batches for p in batch], "adapter": True}
        for _, batches, _, _ in T16_CASES
    ]
    results = run_pouchdb(cases)
    return {name: result["adapter"]["steps"] for (name, *_), result in zip(T16_CASES, results, strict=True)}


@pytest.mark.parametrize(("name", "batches", "winners", "doc_count"), T16_CASES, ids=[c[0] for c in T16_CASES])
def test_conflict_resolution_cases(
    name: str, batches: list[list[PathSpec]], winners: list[str], doc_count: int, t16_pouch, tmp_path: Path
) -> None:
    db = Database(tmp_path / "t16.db")
    tree: list = []
    done = 0
    for batch, winner in zip(batches, winners, strict=True):
        assert db.bulk_docs([p.replicated_doc("fubar", i, True) for i, p in enumerate(batch)], new_edits=False) == []
        for spec in batch:
            if not revtree.has_rev(tree, spec.leaf_rev):
                tree, _, _ = revtree.merge(tree, spec.branch(), 1000)
        done += len(batch)
        assert db.get("fubar")["_rev"] == winner
        assert revtree.winning_rev(tree) == winner
        assert t16_pouch[name][done - 1]["winner"] == winner  # PouchDB agrees
    assert db.info()["doc_count"] == doc_count
    # Conflicts and leaves agree with PouchDB too.
    final = expected_from(t16_pouch[name][-1])
    assert set(db.get("fubar", conflicts=True).get("_conflicts", [])) == final.conflicts
    leaves = {(e["ok"]["_rev"], bool(e["ok"].get("_deleted"))) for e in db.get("fubar", open_revs="all")}
    assert leaves == final.leaves
    db.close()


def test_conflict_resolution_1_in_detail(tmp_path: Path) -> None:
    """`1-b` beats `1-a` and `1-1` (string order at equal generation); `2-2` then wins on generation."""
    with Database(tmp_path / "c1.db") as db:
        db.bulk_docs([_p(1, h).replicated_doc("fubar", 0, True) for h in ("a", "b", "1")], new_edits=False)
        doc = db.get("fubar", conflicts=True)
        assert doc["_rev"] == "1-b"
        assert doc["_conflicts"] == ["1-a", "1-1"]  # sorted descending by the winner key
        db.bulk_docs([_p(2, "2", "1").replicated_doc("fubar", 1, True)], new_edits=False)
        doc = db.get("fubar", conflicts=True, revs=True)
        assert doc["_rev"] == "2-2"
        assert doc["_revisions"] == {"start": 2, "ids": ["2", "1"]}
        assert doc["_conflicts"] == ["1-b", "1-a"]


def test_conflict_resolution_3_generation_beats_hash(tmp_path: Path) -> None:
    """`10-a` beats `2-b`: two disjoint stemmed paths, the higher generation wins."""
    with Database(tmp_path / "c3.db") as db:
        db.bulk_docs([_p(10, "a").replicated_doc("fubar", 0, True), _p(2, "b").replicated_doc("fubar", 1, True)],
                     new_edits=False)
        doc = db.get("fubar", conflicts=True)
        assert doc["_rev"] == "10-a"
        assert doc["_conflicts"] == ["2-b"]
        assert db.info()["doc_count"] == 1


# -- deep histories in the Database ---------------------------------------------------------------


def test_revtree_merges_a_history_deeper_than_the_recursion_limit() -> None:
    """revtree.merge once deep-copied recursively and failed past ~250 generations."""
    ids = [f"{i:032x}" for i in range(1500, 0, -1)]  # newest first
    tree, outcome, stemmed = revtree.merge([], revtree.path_to_branch(1, ids, {"status": "available"}), 1000)
    assert outcome == "new_leaf"
    assert revtree.max_depth(tree) == 1000
    assert len(stemmed) == 500 and f"500-{ids[1000]}" in stemmed
    assert revtree.winning_rev(tree) == f"1500-{ids[0]}"
    tree, outcome, _ = revtree.merge(tree, revtree.path_to_branch(1500, ids[:1], {"status": "available"}), 1000)
    assert outcome == "internal_node"


def test_database_holds_histories_deeper_than_the_recursion_limit() -> None:
    """600 interactive edits, then a replicated 1,200-revision path stemmed at the default 1000.

    Both once raised RecursionError: revtree.merge deep-copied recursively (~250 generations), and
    the Database stored the tree as nested JSON (~490 generations).
    """
    # In memory: the tree's encoding is the same, and hundreds of fsynced commits would be slow.
    with Database(":memory:") as db:
        rev = db.put({"_id": "d", "n": 0})["rev"]
        for n in range(1, 600):
            rev = db.put({"_id": "d", "_rev": rev, "n": n})["rev"]
        doc = db.get("d", revs=True)
        assert doc["_rev"] == rev and doc["n"] == 599
        assert doc["_revisions"]["start"] == 600 and len(doc["_revisions"]["ids"]) == 600
        ids = [f"{i:032x}" for i in range(1200, 0, -1)]
        replicated = {"_id": "r", "_rev": f"1200-{ids[0]}", "_revisions": {"start": 1200, "ids": ids}}
        assert db.bulk_docs([replicated], new_edits=False) == []
        doc = db.get("r", revs=True)
        assert doc["_revisions"] == {"start": 1200, "ids": ids[:1000]}
        # ids[999] is generation 201, the oldest one kept; ids[-1] (generation 1) was stemmed.
        assert db.revs_diff({"r": [f"1-{ids[-1]}", f"201-{ids[999]}", f"200-{ids[1000]}"]}) == {
            "r": {"missing": [f"1-{ids[-1]}", f"200-{ids[1000]}"]}
        }
        seq = db.info()["update_seq"]
        assert db.bulk_docs([replicated], new_edits=False) == []  # re-sending it is a no-op
        assert db.info()["update_seq"] == seq
        # An interactive edit on top of the 1000-deep tree stems one more generation.
        rev = db.put({"_id": "r", "_rev": f"1200-{ids[0]}", "n": 1})["rev"]
        doc = db.get("r", revs=True)
        assert doc["_rev"] == rev and doc["_revisions"]["start"] == 1201
        assert doc["_revisions"]["ids"][1:] == ids[:999]


# -- merge outcome ------------------------------------------------------------------------------------


def _tree(*paths: PathSpec) -> list:
    tree: list = []
    for spec in paths:
        tree, _, _ = revtree.merge(tree, spec.branch(), 1000)
    return tree


@pytest.mark.parametrize(
    ("existing", "path", "outcome"),
    [
        ([], PathSpec(1, ("a",), False), "new_leaf"),
        ([PathSpec(1, ("a",), False)], PathSpec(1, ("a", "b", "c"), False), "new_leaf"),  # extends the leaf
        ([PathSpec(1, ("a", "b"), False)], PathSpec(1, ("a", "x"), False), "new_branch"),  # a sibling
        ([PathSpec(1, ("a", "b"), False)], PathSpec(1, ("z",), False), "new_branch"),  # a new root
        ([PathSpec(1, ("a", "b"), False)], PathSpec(1, ("a",), False), "internal_node"),
        # The path starts before the tree's (stemmed) root and ends at a revision inside it: it only
        # adds an older ancestor. Before the fix this said 'new_branch' (PouchDB says 'new_leaf').
        ([PathSpec(2, ("b", "c", "d"), False), PathSpec(2, ("b", "x"), False)], PathSpec(1, ("a", "b", "c"), False),
         "internal_node"),
        # An older ancestor and a new leaf on top of a stemmed root's leaf.
        ([PathSpec(2, ("b", "c"), False)], PathSpec(1, ("a", "b", "c", "d"), False), "new_leaf"),
    ],
)
def test_merge_outcome_is_judged_from_the_tree_before_the_merge(existing, path, outcome) -> None:
    tree = _tree(*existing)
    merged, got, _ = revtree.merge(tree, path.branch(), 1000)
    assert got == outcome
    assert revtree.has_rev(merged, path.leaf_rev)
