"""Lock writes on a server that answers ``202 Accepted`` (a CouchDB cluster short of its write
quorum), made for real by :class:`~tests.support.cluster_proxy.ClusterProxy` in front of
pouchdb-server: the proxy itself, a lone accepted lock, and the two-client race."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from storyloom.project.locks import LockRefused, lock_info
from tests.support.cluster_proxy import ClusterProxy
from tests.support.couch import ADMIN_NAME, ADMIN_PASSWORD, CouchServer
from tests.team.lock_clients import PASSWORD, LockClient, TeamCouch, race_lock, seed, team_database

ROUNDS = 20


@pytest.fixture(scope="module")
def couch(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CouchServer]:
    with TeamCouch(tmp_path_factory.mktemp("cluster-couch")) as server:
        yield server


@pytest.fixture
def clients(tmp_path: Path) -> Iterator[Callable[..., LockClient]]:
    made: list[LockClient] = []

    def make(server: object, db_name: str, user: str) -> LockClient:
        directory = tmp_path / user
        directory.mkdir(exist_ok=True)
        client = LockClient(server, db_name, user, directory)  # type: ignore[arg-type]
        made.append(client)
        return client

    yield make
    for client in made:
        client.close()


def _leaves(server: CouchServer, db: str, doc_id: str) -> list[dict]:
    response = server.get_doc(db, doc_id, open_revs="all", revs="true")
    assert response.status_code == 200, response.text
    return [entry["ok"] for entry in response.json() if "ok" in entry]


def _live(leaves: list[dict]) -> list[dict]:
    return [leaf for leaf in leaves if not leaf.get("_deleted")]


def test_the_proxy_accepts_two_writes_on_one_revision_as_a_cluster_does(couch: CouchServer) -> None:
    db = couch.create_db()
    first = couch.put_doc(db, {"_id": "doc", "n": 0})
    with ClusterProxy(couch, window=0.5) as proxy:
        answers: dict[str, httpx.Response] = {}

        def put(name: str) -> None:
            answers[name] = httpx.put(f"{proxy.db_url(db)}/doc", json={"_id": "doc", "_rev": first["rev"], "by": name},
                                      auth=(ADMIN_NAME, ADMIN_PASSWORD), timeout=30)

        threads = [threading.Thread(target=put, args=(name,)) for name in ("a", "b")]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
        lone = httpx.get(f"{proxy.db_url(db)}/doc", auth=(ADMIN_NAME, ADMIN_PASSWORD), timeout=30)
    assert [answers[name].status_code for name in ("a", "b")] == [202, 202]
    bodies = [answers[name].json() for name in ("a", "b")]
    assert all(body["ok"] is True and body["id"] == "doc" for body in bodies)
    assert lone.status_code == 200  # reads pass through
    live = _live(_leaves(couch, db, "doc"))
    assert sorted(leaf["_rev"] for leaf in live) == sorted(body["rev"] for body in bodies)
    assert {leaf["by"] for leaf in live} == {"a", "b"}
    assert all(leaf["_revisions"]["ids"][1] == first["rev"].split("-")[1] for leaf in live)  # one parent
    assert proxy.contested == 1 and proxy.accepted == 2


def test_a_lone_accepted_lock_is_read_back_and_held(couch: CouchServer, clients: Callable[..., LockClient]) -> None:
    db = team_database(couch, ["alice", "bob"])
    with ClusterProxy(couch, window=0.05, always_accepted=True) as proxy:
        alice, bob = clients(proxy, db, "alice"), clients(proxy, db, "bob")
        doc_id = seed(alice, [bob])
        info = alice.locks.lock(doc_id)
        assert proxy.accepted == 1 and proxy.contested == 0
        with pytest.raises(LockRefused, match="alice"):
            bob.locks.lock(doc_id)
    assert info.holder == "alice" and not info.provisional
    [leaf] = _live(_leaves(couch, db, doc_id))
    assert lock_info(leaf).holder == "alice"
    assert alice.store.get(doc_id)["_rev"] == leaf["_rev"]


def test_lock_race_through_a_cluster_one_holder_each_round(couch: CouchServer,
                                                           clients: Callable[..., LockClient]) -> None:
    """Two clients lock the same document at once, each round, through a server that accepts
    both writes (202): exactly one holds it, both agree who, and the server keeps one leaf."""
    db = team_database(couch, ["alice", "bob"])
    with ClusterProxy(couch, window=0.3) as proxy:
        alice, bob = clients(proxy, db, "alice"), clients(proxy, db, "bob")
        doc_id = seed(alice, [bob])
        barrier = threading.Barrier(2)
        wins = {"alice": 0, "bob": 0}
        for round_no in range(ROUNDS):
            outcome = race_lock([alice, bob], doc_id, barrier)
            holders = [user for user, result in outcome.items() if not isinstance(result, Exception)]
            refused = [result for result in outcome.values() if isinstance(result, LockRefused)]
            assert len(holders) == 1 and len(refused) == 1, f"round {round_no}: {outcome}"
            winner = holders[0]
            assert refused[0].holder == winner, f"round {round_no}: {outcome}"
            [leaf] = _live(_leaves(couch, db, doc_id))  # the loser's write is removed
            assert lock_info(leaf).holder == winner
            winner_client = alice if winner == "alice" else bob
            assert lock_info(winner_client.store.get(doc_id)).holder == winner
            wins[winner] += 1
            winner_client.locks.unlock(doc_id)
            [leaf] = _live(_leaves(couch, db, doc_id))
            assert lock_info(leaf) is None
        contested = proxy.contested
    assert wins["alice"] + wins["bob"] == ROUNDS
    assert contested >= ROUNDS // 2, f"only {contested} of {ROUNDS} rounds had two writes accepted"


def test_a_201_lock_that_lost_to_an_accepted_rival_is_given_up_after_the_pull(
        couch: CouchServer, clients: Callable[..., LockClient]) -> None:
    """The first write of a round reached the quorum (201, no read-back), the rival was accepted
    (202). When the rival's write is the larger one both were told they hold the lock; the 201
    writer's next pull shows the rival's leaf, and it gives its own up and is told."""
    db = team_database(couch, ["alice", "bob"])
    double, clean = 0, 0
    with ClusterProxy(couch, window=0.3, created_first=True) as proxy:
        alice, bob = clients(proxy, db, "alice"), clients(proxy, db, "bob")
        doc_id = seed(alice, [bob])
        barrier = threading.Barrier(2)
        for round_no in range(ROUNDS):
            outcome = race_lock([alice, bob], doc_id, barrier)
            believers = [user for user, result in outcome.items() if not isinstance(result, Exception)]
            assert believers and all(isinstance(r, LockRefused) for r in outcome.values()
                                     if isinstance(r, Exception)), f"round {round_no}: {outcome}"
            notices = {}
            for client in (alice, bob):
                assert client.pull().ok
                notices[client.user] = client.locks.settle_contested_locks([doc_id])
            [leaf] = _live(_leaves(couch, db, doc_id))
            holder = lock_info(leaf).holder
            told = [user for user, found in notices.items() if found]
            if len(believers) == 2:
                double += 1
                [loser] = [user for user in believers if user != holder]
                assert told == [loser], f"round {round_no}: {notices}"
                [notice] = notices[loser]
                assert notice.outcome == "lost" and notice.holder == holder
                assert "same revision at the same time" in notice.message
            else:
                clean += 1
                assert believers == [holder] and told == []
            for client in (alice, bob):
                assert client.pull().ok
                assert lock_info(client.store.get(doc_id)).holder == holder
            (alice if holder == "alice" else bob).locks.unlock(doc_id)
            if double and clean and round_no >= 5:
                break
    assert double, "no round had both writers told they hold the lock: the case was not made"


def test_on_a_single_node_a_lock_forked_beside_mine_is_not_a_lost_contest(
        couch: CouchServer, clients: Callable[..., LockClient]) -> None:
    """A single node never accepts two writes on one revision: a rival lock forked from the
    revision mine replaced (an offline lock replicated later) does not make me give mine up,
    even when its revision is the larger one; confirm_provisional settles it on the rival's side."""
    db = team_database(couch, ["alice", "bob"])
    alice, bob = clients(couch, db, "alice"), clients(couch, db, "bob")
    doc_id = seed(alice, [bob])
    parent = couch.get_doc(db, doc_id).json()
    assert not bob.locks.lock(doc_id).provisional  # bob's lock, on the server by its compare-and-swap
    rival = {k: v for k, v in parent.items() if not k.startswith("_")} | {
        "_id": doc_id, "_rev": "2-" + "f" * 32, "locked": True, "lockedBy": "alice",
        "lockedAt": "2026-11-27T12:00:00.000Z",
        "_revisions": {"start": 2, "ids": ["f" * 32, parent["_rev"].split("-", 1)[1]]}}
    answer = httpx.post(f"{couch.db_url(db)}/_bulk_docs", json={"docs": [rival], "new_edits": False},
                        auth=("alice", PASSWORD), timeout=30)
    assert answer.status_code == 201 and answer.json() == [], answer.text
    assert bob.pull().ok
    assert bob.locks.settle_contested_locks([doc_id]) == []
    leaves = _live(_leaves(couch, db, doc_id))
    assert {lock_info(leaf).holder for leaf in leaves} == {"alice", "bob"}  # bob's leaf is still there
