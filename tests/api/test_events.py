"""``GET /events``: Server-Sent Events for committed changes, protections, clean end on stop."""

from __future__ import annotations

import functools
import json
import logging
import queue
import threading
import time
from typing import Any

import httpx
import pytest

from tests.api.support import KEY, running_server, writer_process
from tests.support.couch import couch, couch_server, unique_db_name  # noqa: F401

DEADLINE = 20.0  # seconds; generous for a loaded CI machine (the tests assert behaviour, not speed)


class SseListener:
    """Reads an SSE stream in a thread; ``events`` receives ``(event, id, data)`` tuples."""

    def __init__(self, url: str, headers: dict[str, str] | None = None) -> None:
        self.url = url
        self.headers = {"x-api-key": KEY, **(headers or {})}
        self.events: queue.Queue[tuple[str, str | None, Any]] = queue.Queue()
        self.comments: list[str] = []
        self.status: int | None = None
        self.content_type: str | None = None
        self.connected = threading.Event()
        self.finished = threading.Event()
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        assert self.connected.wait(DEADLINE), "no answer from /events"

    def _run(self) -> None:
        try:
            with httpx.stream("GET", self.url + "/events", headers=self.headers, timeout=DEADLINE) as response:
                self.status = response.status_code
                self.content_type = response.headers.get("content-type")
                self.connected.set()
                event, event_id, data = "message", None, []
                for line in response.iter_lines():
                    if line == "":
                        if data:
                            self.events.put((event, event_id, json.loads("\n".join(data))))
                        event, event_id, data = "message", None, []
                    elif line.startswith(":"):
                        self.comments.append(line)
                    elif line.startswith("event: "):
                        event = line[7:]
                    elif line.startswith("id: "):
                        event_id = line[4:]
                    elif line.startswith("data: "):
                        data.append(line[6:])
        except BaseException as exc:  # reported by the test
            self.error = exc
            self.connected.set()
        finally:
            self.finished.set()

    def next(self, timeout: float = DEADLINE) -> tuple[str, str | None, Any]:
        return self.events.get(timeout=timeout)


def _wait_streams(api, count: int = 1) -> None:
    deadline = time.monotonic() + DEADLINE
    while api.server.open_event_streams < count:
        assert time.monotonic() < deadline, "the stream never subscribed"
        time.sleep(0.01)


def test_a_change_is_an_event_with_id_collection_rev_deleted(api):
    listener = SseListener(api.url)
    assert listener.status == 200
    assert listener.content_type.startswith("text/event-stream")
    _wait_streams(api)
    db = api.project.store
    result = db.put({"_id": "new-script", "type": "Script", "collection": "Script", "name": "n"})
    event, event_id, data = listener.next()
    assert event == "change"
    assert data == {"id": "new-script", "collection": "Script", "rev": result["rev"], "deleted": False}
    assert int(event_id) == db.info()["update_seq"]
    removed = db.remove("new-script", result["rev"])
    event, _, data = listener.next()
    assert data == {"id": "new-script", "collection": "Script", "rev": removed["rev"], "deleted": True}


def test_every_document_of_a_bulk_write_gets_an_event_and_local_docs_none(api):
    listener = SseListener(api.url)
    _wait_streams(api)
    db = api.project.store
    db.put_local({"_id": "_local/checkpoint", "seq": 1})
    db.bulk_docs([{"_id": f"bulk-{i}", "type": "Item", "collection": "Item"} for i in range(5)])
    db.put({"_id": "_design/idx", "views": {}})
    seen = [listener.next() for _ in range(6)]
    assert [data["id"] for _, _, data in seen] == [f"bulk-{i}" for i in range(5)] + ["_design/idx"]
    assert seen[-1][2]["collection"] is None
    assert all(data["collection"] == "Item" for _, _, data in seen[:5])
    assert listener.events.empty()


def test_last_event_id_replays_what_was_missed(api):
    db = api.project.store
    since = db.info()["update_seq"]
    db.put({"_id": "missed-1", "type": "Gdd", "collection": "Gdd"})
    db.put({"_id": "missed-2", "type": "Quest", "collection": "Quest"})
    listener = SseListener(api.url, headers={"last-event-id": str(since)})
    _wait_streams(api)
    first, second = listener.next(), listener.next()
    assert (first[2]["id"], first[2]["collection"]) == ("missed-1", "Gdd")
    assert (second[2]["id"], second[2]["collection"]) == ("missed-2", "Quest")
    db.put({"_id": "live", "type": "Misc", "collection": "Misc"})
    assert listener.next()[2]["id"] == "live"
    assert listener.events.empty()


def test_idle_streams_get_keep_alive_comments(api):
    listener = SseListener(api.url)  # the api fixture's heartbeat is 0.5 s
    deadline = time.monotonic() + DEADLINE
    while ": keep-alive" not in listener.comments:
        assert time.monotonic() < deadline, "no keep-alive comment on an idle stream"
        assert not listener.finished.is_set(), f"the stream ended: {listener.error!r}"
        time.sleep(0.05)
    assert listener.events.empty()  # comments only: nothing happened


def test_events_need_the_key_and_pass_the_host_and_origin_checks(api):
    get = functools.partial(httpx.get, timeout=DEADLINE)
    assert get(api.url + "/events").status_code == 401
    assert get(api.url + "/events", headers={"x-api-key": "nope"}).json()["error"] == "unauthorized"
    forbidden_host = get(api.url + "/events", headers={"x-api-key": KEY, "host": "evil.example"})
    assert forbidden_host.status_code == 403 and forbidden_host.json()["error"] == "forbidden_host"
    forbidden_origin = get(api.url + "/events", headers={"x-api-key": KEY, "origin": "https://x.example"})
    assert forbidden_origin.status_code == 403 and forbidden_origin.json()["error"] == "forbidden_origin"


def test_head_gives_the_stream_headers_without_opening_a_stream(api):
    get = api.client.get("/events?x=1")
    head = api.client.head("/events?x=1")
    assert (head.status_code, head.content) == (400, b"")
    assert head.headers["content-type"] == get.headers["content-type"]
    response = api.client.head("/events")  # returns at once: the stream is not opened
    assert response.status_code == 200 and response.content == b""
    assert response.headers["content-type"].startswith("text/event-stream")
    assert api.server.open_event_streams == 0


def test_server_stop_ends_the_streams_instead_of_waiting_on_them(garden, caplog):
    """Stopping sends `event: end` to open streams, which end; uvicorn then has nothing to cancel.

    Without the end, uvicorn would wait for the streams until its graceful timeout and cancel them
    (logging "timeout graceful shutdown exceeded"), or stop() would force it. The timeouts are
    generous, so the assertions are about what happened, not how fast.
    """
    caplog.set_level(logging.ERROR, logger="uvicorn.error")
    with running_server(garden, graceful_timeout=DEADLINE) as api:
        listeners = [SseListener(api.url) for _ in range(3)]
        _wait_streams(api, 3)
        runner = api.server._runner
        api.server.stop(timeout=2 * DEADLINE)
        assert not api.server.running and not runner.alive
        assert not runner.forced, "stop() had to force uvicorn to exit"
        assert not [r for r in caplog.records if "graceful shutdown exceeded" in r.getMessage()]
        for listener in listeners:
            assert listener.finished.wait(DEADLINE), "the stream never ended"
            assert listener.error is None, listener.error
            event, _, data = listener.next()
            assert (event, data) == ("end", {"reason": "server stopping"})
        assert api.server.open_event_streams == 0


def test_the_stream_ends_when_the_client_goes_away(api):
    with httpx.stream("GET", api.url + "/events", headers={"x-api-key": KEY}, timeout=DEADLINE) as response:
        assert response.status_code == 200
        _wait_streams(api)
    deadline = time.monotonic() + DEADLINE
    while api.server.open_event_streams:
        assert time.monotonic() < deadline, "the stream (and its store subscription) was never released"
        time.sleep(0.05)


# ---------------------------------------------------------------- the changes feed, whoever writes

def _events_until(listener: SseListener, seq: int) -> list[tuple[str, str | None, Any]]:
    """Every event up to the one whose id is ``seq``."""
    seen = []
    deadline = time.monotonic() + DEADLINE
    while not seen or seen[-1][1] is None or int(seen[-1][1]) < seq:
        left = deadline - time.monotonic()
        assert left > 0, f"no event with id {seq}; the last was {seen[-1] if seen else None}"
        try:
            seen.append(listener.next(timeout=left))
        except queue.Empty:
            raise AssertionError(f"no event with id {seq}; the last was {seen[-1] if seen else None}") from None
    return seen


def _assert_follows_the_feed(seen: list[tuple[str, str | None, Any]], db: Any, since: int) -> None:
    """Seqs strictly increasing, and every row of the changes feed after ``since`` among them."""
    assert all(event == "change" for event, _, _ in seen), seen
    seqs = [int(event_id) for _, event_id, _ in seen]
    assert seqs == sorted(set(seqs)), f"events out of order or repeated: {seqs}"
    received = {int(event_id): (data["id"], data["rev"], data["deleted"]) for _, event_id, data in seen}
    for row in db.changes(since=since)["results"]:
        expected = (row["id"], row["changes"][0]["rev"], bool(row.get("deleted")))
        assert received.get(row["seq"]) == expected, f"seq {row['seq']}: {expected} was not sent"


def test_writes_from_another_process_and_this_one_are_events_in_seq_order_without_gaps(api):
    db = api.project.store
    since = db.info()["update_seq"]
    listener = SseListener(api.url)
    _wait_streams(api)
    writer = writer_process(api.project.id, "changes", "60")
    for i in range(40):  # this process writes at the same time
        db.put({"_id": f"here-{i}", "type": "Actor", "collection": "Actor"})
    out, err = writer.communicate(timeout=60)
    assert writer.returncode == 0, err
    final = db.info()["update_seq"]
    assert final >= int(out) > since + 60
    seen = _events_until(listener, final)
    _assert_follows_the_feed(seen, db, since)
    ids = {data["id"] for _, _, data in seen}
    assert {"other-hot", "ProjectSettings", "here-39", "other-0"} <= ids
    gone = [data for _, _, data in seen if data["id"] == "other-gone-4"]
    assert gone == [{"id": "other-gone-4", "collection": "Gdd", "rev": gone[0]["rev"], "deleted": True}]


def test_last_event_id_resumes_exactly_after_that_seq(api):
    db = api.project.store
    writer = writer_process(api.project.id, "changes", "20")
    out, err = writer.communicate(timeout=60)
    assert writer.returncode == 0, err
    rows = db.changes(since=0)["results"]
    middle = rows[len(rows) // 2]["seq"]
    listener = SseListener(api.url, headers={"last-event-id": str(middle)})
    seen = _events_until(listener, int(out))
    expected = db.changes(since=middle)["results"]
    assert [(int(i), data["id"]) for _, i, data in seen] == [(row["seq"], row["id"]) for row in expected]
    assert listener.events.empty()


@pytest.mark.parametrize("value", ["abc", "-1", "1.5", "46-g1AAAA", "9" * 19, "0x10", "1 2"])
def test_a_malformed_last_event_id_is_a_400(api, value):
    for method in ("GET", "HEAD"):
        with api.client.stream(method, "/events", headers={"last-event-id": value}) as response:
            assert response.status_code == 400, method  # not a stream, which would never end
            assert response.headers["content-type"] == "application/json"
            if method == "GET":
                body = json.loads(response.read())
                assert body["error"] == "bad_request"
                assert body["reason"].startswith("invalid Last-Event-ID header")
    assert api.server.open_event_streams == 0


def test_a_last_event_id_beyond_the_latest_seq_resets_then_follows_from_now(api):
    db = api.project.store
    current = db.info()["update_seq"]
    listener = SseListener(api.url, headers={"last-event-id": str(current + 1000)})
    event, event_id, data = listener.next()
    assert (event, int(event_id), data["seq"]) == ("reset", current, current)
    assert "reload everything" in data["reason"]
    result = db.put({"_id": "after-reset", "type": "Item", "collection": "Item"})
    event, event_id, data = listener.next()
    assert (event, data["id"], data["rev"]) == ("change", "after-reset", result["rev"])
    assert int(event_id) == current + 1


def test_a_replication_pull_and_edits_at_once_stay_in_seq_order_without_gaps(api, couch, tmp_path):  # noqa: F811
    """Two writers in this process: a pull from a CouchDB server and the editor."""
    from storyloom.project.documents import new_document
    from storyloom.store import Database
    from storyloom.sync import RemoteDatabase, pull, push

    name = unique_db_name()
    couch.create_db(name)
    remote = RemoteDatabase(couch.db_url(name), username=couch.admin[0], password=couch.admin[1])
    teammate = Database(tmp_path / "teammate.sqlite")
    try:
        teammate.bulk_docs([new_document("Item", f"Pulled {n}", doc_id=f"pulled-{n:03d}", sortKey=f"p{n + 1}")
                            for n in range(200)])
        assert push(teammate, remote).ok
        db = api.project.store
        since = db.info()["update_seq"]
        listener = SseListener(api.url)
        _wait_streams(api)
        edits = threading.Thread(target=lambda: [api.project.editor.create("Actor", f"Local {n}") for n in range(50)])
        edits.start()
        status = pull(remote, db, batch_size=10)
        edits.join()
        assert status.ok and status.docs_written == 200
    finally:
        remote.close()
        teammate.close()
    final = db.info()["update_seq"]
    seen = _events_until(listener, final)
    _assert_follows_the_feed(seen, db, since)
    ids = {data["id"] for _, _, data in seen}
    assert {f"pulled-{n:03d}" for n in range(200)} <= ids
