"""The rule that settles lock writes a cluster accepted on the same revision (pure)."""

from __future__ import annotations

from storyloom.project.lock_contest import branch_revs, child_of, contest_winner, lost_contest, rev_key, winning_leaf

PARENT = "3-" + "c" * 32
A = "4-" + "a" * 32
B = "4-" + "b" * 32


def leaf(rev: str, *history: str, deleted: bool = False) -> dict:
    """A leaf as ``open_revs=all&revs=true`` returns it: ``history`` are the digests below it."""
    number, _, digest = rev.partition("-")
    doc = {"_id": "doc", "_rev": rev, "_revisions": {"start": int(number), "ids": [digest, *history]}}
    if deleted:
        doc["_deleted"] = True
    return doc


def test_rev_key_orders_by_generation_then_id() -> None:
    assert sorted(["10-a", "9-z", "10-b"], key=rev_key) == ["9-z", "10-a", "10-b"]


def test_child_of_finds_the_write_on_the_parent_in_a_branch() -> None:
    assert child_of(PARENT, leaf(A, "c" * 32, "d" * 32)) == A
    later = leaf("5-" + "e" * 32, "a" * 32, "c" * 32)  # a revision written on top of A
    assert child_of(PARENT, later) == A
    assert child_of(PARENT, leaf("4-" + "f" * 32, "9" * 32)) is None  # another parent
    assert child_of(PARENT, {"_rev": A}) is None  # no history: nothing to tell


def test_the_larger_revision_id_wins_and_both_writers_agree() -> None:
    leaves = [leaf(A, "c" * 32), leaf(B, "c" * 32)]
    assert contest_winner(PARENT, A, leaves) == B
    assert contest_winner(PARENT, B, list(reversed(leaves))) == B


def test_own_write_counts_before_the_replicas_show_it() -> None:
    assert contest_winner(PARENT, B, [leaf(A, "c" * 32)]) == B
    assert contest_winner(PARENT, A, []) == A


def test_a_deleted_branch_is_out_and_a_later_revision_keeps_its_branch_in() -> None:
    removed = leaf("5-" + "0" * 32, "b" * 32, "c" * 32, deleted=True)  # B's writer lost and removed it
    assert contest_winner(PARENT, A, [leaf(A, "c" * 32), removed]) == A
    unlocked = leaf("5-" + "1" * 32, "b" * 32, "c" * 32)  # B's writer holds it and went on writing
    assert contest_winner(PARENT, A, [leaf(A, "c" * 32), unlocked]) == B
    assert winning_leaf(PARENT, B, [leaf(A, "c" * 32), unlocked]) == unlocked
    assert winning_leaf(PARENT, B, [leaf(A, "c" * 32)]) is None


def locked(doc: dict, holder: str) -> dict:
    return {**doc, "locked": True, "lockedBy": holder, "lockedAt": "2026-11-27T14:00:00Z"}


def test_a_lock_that_lost_on_the_shared_parent_is_found_by_its_holder_only() -> None:
    ours, theirs = locked(leaf(A, "c" * 32), "ana"), locked(leaf(B, "c" * 32), "bob")
    found = lost_contest([ours, theirs], "ana")
    assert found == (ours, theirs, A)
    assert lost_contest([ours, theirs], "bob") is None  # bob's write is the larger: he keeps it
    edited = locked(leaf("5-" + "e" * 32, "a" * 32, "c" * 32), "ana")  # ana edited on top of her lock
    assert lost_contest([edited, theirs], "ana") == (edited, theirs, A)
    assert lost_contest([{**theirs, "_deleted": True}, ours], "ana") is None  # the rival gave up
    free = {k: v for k, v in theirs.items() if k != "locked"}
    assert lost_contest([ours, free], "ana") is None  # a free rival leaf is a plain conflict
    unrelated = locked(leaf("4-" + "f" * 32, "9" * 32), "bob")
    assert lost_contest([ours, unrelated], "ana") is None  # no shared revision to settle on
    assert branch_revs(ours) == [A, PARENT] and branch_revs({"_rev": A}) == [A]
