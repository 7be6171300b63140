"""Checkpoint rules (3.2: T8 and the start-seq steps), the replication id, and fetching with
``_bulk_get`` / ``open_revs`` against mock servers that answer like pouchdb-server (T41, T42)."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from storyloom.sync import RemoteDatabase, RemotePeer, replication_id
from storyloom.sync.checkpoint import Checkpointer, compare_histories
from storyloom.sync.errors import RemoteError, RemoteForbidden, RemoteServerError
from storyloom.sync.peers import Peer, match_fetched

# -- replication id ---------------------------------------------------------------------------


def test_replication_id_formula() -> None:
    rep = replication_id("uuid1db", "local-uuid")
    assert rep.startswith("_local/") and "/" not in rep[7:] and "+" not in rep[7:]
    assert rep == replication_id("uuid1db", "local-uuid")
    assert rep != replication_id("local-uuid", "uuid1db")  # direction matters
    # doc_ids are part of it, sorted
    assert replication_id("a", "b", doc_ids=["y", "x"]) == replication_id("a", "b", doc_ids=["x", "y"])
    assert replication_id("a", "b", doc_ids=["x"]) != replication_id("a", "b")


# -- start seq ----------------------------------------------------------------------------------


def doc(session: str, seq: Any, history: list[tuple[str, Any]], version: int = 1) -> dict[str, Any]:
    return {
        "session_id": session,
        "last_seq": seq,
        "history": [{"session_id": s, "last_seq": q} for s, q in history],
        "version": version,
    }


def test_same_session_uses_the_source_seq() -> None:
    src = doc("s1", 40, [("s1", 40)])
    tgt = doc("s1", 50, [("s1", 50)])
    assert compare_histories(src, tgt) == 40


def test_t8_session_mismatch_resumes_at_the_shared_history_entry() -> None:
    # The target got a newer checkpoint (s3) the source never saw; both share s2.
    src = doc("s2", 20, [("s2", 20), ("s1", 10)])
    tgt = doc("s3", 30, [("s3", 30), ("s2", 20), ("s1", 10)])
    assert compare_histories(src, tgt) == 20
    # Mirror case: the source is ahead.
    src = doc("s3", 30, [("s3", 30), ("s2", 20)])
    tgt = doc("s2", 20, [("s2", 20), ("s1", 10)])
    assert compare_histories(src, tgt) == 20


def test_no_shared_history_or_other_version_starts_over() -> None:
    assert compare_histories(doc("a", 5, [("a", 5)]), doc("b", 7, [("b", 7)])) == 0
    assert compare_histories(doc("a", 5, [("a", 5)], version=2), doc("a", 5, [("a", 5)])) == 0


class FakePeer(Peer):
    """Holds checkpoint docs in memory; can refuse writes."""

    def __init__(self, refuse_status: int | None = None) -> None:
        self.docs: dict[str, dict[str, Any]] = {}
        self.refuse_status = refuse_status
        self.writes = 0
        self.conflict_once = False

    def get_checkpoint(self, rep_id: str) -> dict[str, Any] | None:
        return json.loads(json.dumps(self.docs[rep_id])) if rep_id in self.docs else None

    def put_checkpoint(self, doc: dict[str, Any]) -> str:
        if self.refuse_status:
            raise RemoteForbidden(self.refuse_status, "forbidden", "read only")
        current = self.docs.get(doc["_id"])
        if self.conflict_once or (current and current.get("_rev") != doc.get("_rev")):
            self.conflict_once = False
            raise RemoteError(409, "conflict", "Document update conflict")
        n = int((current or {}).get("_rev", "0-0").split("-")[1]) + 1
        self.docs[doc["_id"]] = {**doc, "_rev": f"0-{n}"}
        self.writes += 1
        return f"0-{n}"


def test_checkpointer_rules_1_2_and_writes() -> None:
    src, tgt = FakePeer(), FakePeer()
    cp = Checkpointer(src, tgt, "_local/r", session_id="s1")
    assert cp.start_seq() == 0  # rule 1: no target checkpoint
    assert cp.write(0) is False  # unchanged seq: nothing written
    assert cp.write(10) is True
    assert src.docs["_local/r"]["last_seq"] == tgt.docs["_local/r"]["last_seq"] == 10
    assert tgt.docs["_local/r"]["history"] == [{"session_id": "s1", "last_seq": 10}]
    assert cp.write(20)
    assert tgt.docs["_local/r"]["history"] == [{"session_id": "s1", "last_seq": 20}]
    assert tgt.docs["_local/r"]["version"] == 1 and tgt.docs["_local/r"]["replicator"] == "storyloom"
    # A new session resumes from the shared session and keeps at most 5 history entries.
    seq = 20
    for i in range(2, 9):
        cp = Checkpointer(src, tgt, "_local/r", session_id=f"s{i}")
        assert cp.start_seq() == seq
        seq += 10
        cp.write(seq)
    assert len(tgt.docs["_local/r"]["history"]) == 5
    assert tgt.docs["_local/r"]["history"][0] == {"session_id": "s8", "last_seq": seq}
    # Rule 2: the source lost its checkpoint (recreated db): record 0 there, start at 0.
    del src.docs["_local/r"]
    cp = Checkpointer(src, tgt, "_local/r", session_id="s9")
    assert cp.start_seq() == 0
    assert src.docs["_local/r"]["last_seq"] == 0


def test_source_refusing_checkpoints_falls_back_to_the_target() -> None:
    src, tgt = FakePeer(refuse_status=403), FakePeer()
    tgt.docs["_local/r"] = {**doc("s1", 33, [("s1", 33)]), "_id": "_local/r", "_rev": "0-1"}
    warnings: list[str] = []
    cp = Checkpointer(src, tgt, "_local/r", session_id="s2", on_warning=warnings.append)
    assert cp.start_seq() == 33
    assert cp.write(40)
    assert tgt.docs["_local/r"]["last_seq"] == 40 and not src.docs
    assert warnings and "source" in warnings[0]


def test_checkpoint_conflict_rereads_and_retries() -> None:
    src, tgt = FakePeer(), FakePeer()
    cp = Checkpointer(src, tgt, "_local/r", session_id="s1")
    cp.start_seq()
    tgt.conflict_once = True
    assert cp.write(5)
    assert tgt.docs["_local/r"]["last_seq"] == 5


# -- fetch: matching by id and rev (T41) and the open_revs fallback (T42) ------------------


def rev_doc(doc_id: str, rev: str, history: list[str]) -> dict[str, Any]:
    start = int(rev.split("-")[0])
    return {"_id": doc_id, "_rev": rev, "_revisions": {"start": start, "ids": [h.split("-")[1] for h in history]}}


def test_match_by_id_and_rev_not_position() -> None:
    requested = {"a": ["1-x", "2-y"], "b": ["1-z"], "c": ["1-w"]}
    found = [("a", rev_doc("a", "2-y", ["2-y", "1-x"])), ("b", rev_doc("b", "1-z", ["1-z"]))]
    result = match_fetched(requested, found, {})
    # 1-x is proven by 2-y's history (latest=true); c is unresolved.
    assert [(u[0], u[1]) for u in result.unresolved] == [("c", "1-w")]
    assert len(result.docs) == 2


def mock_remote(handler: Any, name: str) -> RemoteDatabase:
    return RemoteDatabase(f"http://{name}.test:5984/db", transport=httpx.MockTransport(handler))


def test_t41_pouchdb_server_bulk_get_shapes() -> None:
    """pouchdb-server merges items sharing an id, answers ``{}`` for a missing doc and
    ``{"missing": rev}`` for a missing rev; results are matched by id + rev."""
    d_new = rev_doc("d", "3-c", ["3-c", "2-b", "1-a"])

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.url.path == "/db/_bulk_get"
        assert request.url.params["revs"] == "true" and request.url.params["latest"] == "true"
        assert request.headers["accept"] == "application/json"
        return httpx.Response(
            200,
            json={
                "results": [
                    {"id": "d", "docs": [{"ok": d_new}]},  # one merged item for 2-b and 3-c
                    {"id": "nope", "docs": [{}]},
                    {"id": "e", "docs": [{"missing": "2-q"}]},
                ]
            },
        )

    peer = RemotePeer(mock_remote(handler, "t41"), first_generation_fast_path=False)
    result = peer.fetch({"d": ["2-b", "3-c"], "nope": ["1-n"], "e": ["2-q"]})
    assert [d["_rev"] for d in result.docs] == ["3-c"]
    assert sorted((u[0], u[1]) for u in result.unresolved) == [("e", "2-q"), ("nope", "1-n")]


def test_t42_bulk_get_404_falls_back_to_open_revs() -> None:
    calls: list[str] = []
    docs = {"a/b": rev_doc("a/b", "2-y", ["2-y", "1-x"]), "c": rev_doc("c", "1-z", ["1-z"])}

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request.url.raw_path.decode())
        assert request.headers["accept"] == "application/json"
        if request.url.path == "/db/_bulk_get":
            return httpx.Response(404, json={"error": "not_found", "reason": "missing"})
        doc_id = request.url.path.split("/db/", 1)[1]
        revs = json.loads(request.url.params["open_revs"])
        assert request.url.params["latest"] == "true" and request.url.params["revs"] == "true"
        out = []
        for rev in revs:
            d = docs.get(doc_id)
            out.append({"ok": d} if d and rev in (d["_rev"], "1-x") else {"missing": rev})
        return httpx.Response(200, json=out)

    peer = RemotePeer(mock_remote(handler, "t42"), first_generation_fast_path=False)
    result = peer.fetch({"a/b": ["2-y"], "c": ["1-z"], "gone": ["1-g"]})
    assert sorted(d["_id"] for d in result.docs) == ["a/b", "c"]
    assert [(u[0], u[1]) for u in result.unresolved] == [("gone", "1-g")]
    assert "/db/a%2Fb?" in " ".join(calls)
    # The server is remembered as lacking _bulk_get: no second try.
    calls.clear()
    peer.fetch({"c": ["1-z"]})
    assert not any("_bulk_get" in c for c in calls)


def test_bulk_get_auth_errors_do_not_fall_back() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(403, json={"error": "forbidden", "reason": "no"})

    peer = RemotePeer(mock_remote(handler, "t42b"), first_generation_fast_path=False)
    with pytest.raises(RemoteForbidden):
        peer.fetch({"c": ["1-z"]})


def bulk_get_server(bulk_get_status: int, calls: list[str]) -> Any:
    """A mock server whose ``_bulk_get`` answers ``bulk_get_status`` (200 = works) and whose
    ``open_revs`` always works; records ``bulk_get`` / ``open_revs`` per request."""
    doc = rev_doc("c", "2-z", ["2-z", "1-y"])

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/db/_bulk_get":
            calls.append("bulk_get")
            if bulk_get_status == 200:
                return httpx.Response(200, json={"results": [{"id": "c", "docs": [{"ok": doc}]}]})
            return httpx.Response(bulk_get_status, json={"error": "some_error", "reason": "some reason"})
        calls.append("open_revs")
        return httpx.Response(200, json=[{"ok": doc}])

    return handler


@pytest.mark.parametrize("status", [404, 405, 501])
def test_bulk_get_missing_endpoint_downgrades_only_that_client(status: int) -> None:
    calls: list[str] = []
    first = RemotePeer(mock_remote(bulk_get_server(status, calls), "same-server"), first_generation_fast_path=False)
    assert [d["_rev"] for d in first.fetch({"c": ["2-z"]}).docs] == ["2-z"]
    assert calls == ["bulk_get", "open_revs"]
    assert first.remote.bulk_get_supported is False
    calls.clear()
    first.fetch({"c": ["2-z"]})
    assert calls == ["open_revs"]  # remembered by this client
    # Another client for the same server URL knows nothing of it: it tries _bulk_get.
    calls.clear()
    other = RemotePeer(mock_remote(bulk_get_server(200, calls), "same-server"), first_generation_fast_path=False)
    assert other.remote.bulk_get_supported is None
    assert [d["_rev"] for d in other.fetch({"c": ["2-z"]}).docs] == ["2-z"]
    assert calls == ["bulk_get"]
    assert other.remote.bulk_get_supported is True


@pytest.mark.parametrize(("status", "error"), [(400, RemoteError), (415, RemoteError), (500, RemoteServerError)])
def test_bulk_get_other_errors_are_raised_without_downgrade(status: int, error: type[RemoteError]) -> None:
    calls: list[str] = []
    peer = RemotePeer(mock_remote(bulk_get_server(status, calls), "errs"), first_generation_fast_path=False)
    for _ in range(2):
        with pytest.raises(error) as info:
            peer.fetch({"c": ["2-z"]})
        assert info.value.status == status
    assert calls == ["bulk_get", "bulk_get"]  # tried again, never the open_revs fallback
    assert peer.remote.bulk_get_supported is None
