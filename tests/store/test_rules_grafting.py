"""Rule 1.5 when a replicated path holds a revision the store already has (docs/store.md).

The store merges such a path as ``couch_key_tree:merge`` and ``pouchdb-merge`` do: the ancestors
it brings graft onto the shorter stored history, which can turn stale leaves into inner revisions
(so conflicts and even the winner change) and, at a small ``revs_limit``, stem revisions that
still had bodies and attachments. A path that adds nothing stays a complete no-op
(``test_rule_1_5_already_present_is_a_complete_no_op``). Each test runs against a file database and
``":memory:"``; hashes are ``h("a")`` == ``"aaaa…a"``.
"""

from __future__ import annotations

import base64
from typing import Any

import pytest

from storyloom.store import Database, NotFound, attachment_digest, revtree
from tests.store.revs import h, leaf_revs, r, replicate, sql


def test_rule_1_5_a_known_revision_with_its_ancestors_grafts_them_on(db: Database) -> None:
    """The store holds 3-c alone; 3-c arriving with 2-b and 1-a gives one path and one leaf."""
    replicate(db, "doc", 3, "c", v=3)
    seq = db.info()["update_seq"]
    replicate(db, "doc", 3, "cba", v=99)
    doc = db.get("doc", revs=True, conflicts=True, revs_info=True)
    assert doc["_revisions"] == {"start": 3, "ids": [h("c"), h("b"), h("a")]}
    assert "_conflicts" not in doc
    assert doc["v"] == 3  # the stored body stays: a revision's content never changes
    assert [i["status"] for i in doc["_revs_info"]] == ["available", "missing", "missing"]
    assert leaf_revs(db, "doc") == {r(3, "c")}
    assert db.info()["update_seq"] == seq + 1  # the tree changed: one new seq
    # 2-b is now an ancestor: alone, it no longer becomes a second root and a conflict.
    replicate(db, "doc", 2, "b", v=2)
    assert leaf_revs(db, "doc") == {r(3, "c")}
    assert "_conflicts" not in db.get("doc", conflicts=True)


def test_rule_1_5_a_graft_can_turn_a_stale_leaf_into_an_ancestor_and_change_the_winner(db: Database) -> None:
    replicate(db, "doc", 3, "c", deleted=True)  # a tombstone whose history the store never saw
    replicate(db, "doc", 2, "b", v=2)  # a live revision, stored as a separate root
    assert db.get("doc")["_rev"] == r(2, "b")
    assert db.info()["doc_count"] == 1
    seen: list[dict[str, Any]] = []
    unsubscribe = db.subscribe(seen.append)
    try:
        replicate(db, "doc", 3, "cba", deleted=True)  # 2-b turns out to be 3-c's parent
    finally:
        unsubscribe()
    assert leaf_revs(db, "doc") == {r(3, "c")}
    with pytest.raises(NotFound):
        db.get("doc")  # the winner is the tombstone now
    assert db.info()["doc_count"] == 0 and db.info()["doc_del_count"] == 1
    assert [(c["rev"], c["deleted"]) for c in seen] == [(r(3, "c"), True)]
    assert db.changes()["results"][-1]["deleted"] is True
    assert db.get("doc", rev=r(2, "b"))["v"] == 2  # an inner revision keeps its body until stemmed


def test_rule_1_5_a_revision_known_only_as_an_ancestor_gets_its_body(db: Database) -> None:
    replicate(db, "doc", 3, "cba", v=3)
    seq = db.info()["update_seq"]
    replicate(db, "doc", 2, "ba", v=2)  # 2-b's content, until now only a name in 3-c's history
    assert db.get("doc", rev=r(2, "b"))["v"] == 2
    assert db.get("doc")["_rev"] == r(3, "c")
    assert leaf_revs(db, "doc") == {r(3, "c")}
    assert db.info()["update_seq"] == seq + 1
    replicate(db, "doc", 2, "ba", v=2)  # now it is a no-op
    assert db.info()["update_seq"] == seq + 1


def test_rule_1_5_a_revision_kept_twice_keeps_its_body(db: Database) -> None:
    """Found by ``test_database_inserting_again_changes_nothing``: a revision with a body can also
    sit, bodiless, at the root of a second copy of its history (stemming merges its cut paths back
    without grafting), and re-sending it must not be taken for a new revision.

    4-d (with 3-c), then 2-b (with 1-a), then 3-c (with 2-b): the last path grafts onto both
    branches, and the tree keeps 1-a → 2-b → 3-c → 4-d plus a copy 2-b (missing) → 3-c → 4-d, as
    ``pouchdb-merge`` 9 keeps them. 2-b sent again merges the copy away (``pouchdb-merge`` too: one
    new seq), but its stored body stays and the validator does not see it again.
    """
    replicate(db, "doc", 4, "dc", deleted=True)
    replicate(db, "doc", 2, "ba", v=2)
    replicate(db, "doc", 3, "cb", v=3)
    copies = sql(db, "SELECT rev_tree FROM docs WHERE id = 'doc'")[0][0]
    assert copies.count(h("b")) == 2  # 2-b under 1-a with its body, and as the copy's bodiless root
    seen: list[dict[str, Any]] = []
    db.validator = lambda new, old: seen.append(new)
    seq = db.info()["update_seq"]
    replicate(db, "doc", 2, "ba", v=99)  # other content under the same rev
    assert db.get("doc", rev=r(2, "b"))["v"] == 2  # a revision's content never changes
    assert seen == []  # a stored revision is not validated again
    assert sql(db, "SELECT rev_tree FROM docs WHERE id = 'doc'")[0][0].count(h("b")) == 1
    assert db.info()["update_seq"] == seq + 1  # the copy merged away: the tree changed
    doc = db.get("doc", rev=r(4, "d"), revs=True)
    assert doc["_revisions"] == {"start": 4, "ids": [h("d"), h("c"), h("b"), h("a")]}
    replicate(db, "doc", 2, "ba", v=99)  # now it is a complete no-op
    assert db.info()["update_seq"] == seq + 1
    assert db.get("doc", rev=r(2, "b"))["v"] == 2 and seen == []


def _with_attachment(doc_id: str, start: int, chars: str, data: bytes) -> dict[str, Any]:
    ids = [h(c) for c in chars]
    return {
        "_id": doc_id,
        "_rev": f"{start}-{ids[0]}",
        "_revisions": {"start": start, "ids": ids},
        "_attachments": {"a.txt": {"content_type": "text/plain", "data": base64.b64encode(data).decode()}},
    }


def test_rule_1_6_a_graft_that_stems_drops_bodies_and_attachment_data(make_db) -> None:
    db = make_db(revs_limit=2)
    only_b = b"only 2-b has this"
    assert db.bulk_docs([_with_attachment("doc", 2, "ba", only_b)], new_edits=False) == []
    replicate(db, "doc", 3, "cb", v=3)  # 1-a is stemmed; 2-b keeps its body as an inner revision
    replicate(db, "doc", 4, "d", v=4)  # a stemmed path: a second root, 4-d conflicts with 3-c
    assert leaf_revs(db, "doc") == {r(3, "c"), r(4, "d")}
    assert db.get("doc", rev=r(2, "b"))["_attachments"]["a.txt"]["digest"] == attachment_digest(only_b)
    # 4-d again, with its history: 3-c becomes its parent, and the limit of 2 cuts 2-b away.
    replicate(db, "doc", 4, "dcb")
    assert leaf_revs(db, "doc") == {r(4, "d")}
    doc = db.get("doc", revs=True, conflicts=True)
    assert doc["_revisions"] == {"start": 4, "ids": [h("d"), h("c")]}
    assert "_conflicts" not in doc
    with pytest.raises(NotFound):
        db.get("doc", rev=r(2, "b"))
    assert db.revs_diff({"doc": [r(2, "b")]}) == {"doc": {"missing": [r(2, "b")]}}
    assert sql(db, "SELECT rev FROM revs WHERE doc_id = 'doc' ORDER BY rev") == [(r(3, "c"),), (r(4, "d"),)]
    assert sql(db, "SELECT COUNT(*) FROM att_refs") == [(0,)]
    assert sql(db, "SELECT COUNT(*) FROM attachments") == [(0,)]  # no revision references the data now


@pytest.mark.parametrize("rev", ["\u0661-abc", "\uff11-abc", "1\u00b2-abc", "-abc", "1-", "abc", "1abc"])
def test_a_rev_generation_is_ascii_digits_only(rev: str) -> None:
    with pytest.raises(ValueError, match="Invalid rev format"):
        revtree.parse_rev(rev)
    assert revtree.parse_rev("12-abc") == (12, "abc")
