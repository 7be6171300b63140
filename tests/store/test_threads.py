"""Threads: one writer and several readers at once (the API thread reads while the app writes).

Every document the writer stores is self-checking: generation ``g`` of a document has ``n == g``,
``a == b == g`` and a payload made from ``g``, so a reader that ever saw half of one write and half
of another (a torn document) would notice. Readers also check that what only grows (doc count,
update_seq, last_seq, each doc's generation) never goes back, and that each call answers from one
snapshot (``total_rows`` equals the rows it lists).
"""

from __future__ import annotations

import json
import queue
import threading
import time
from typing import Any

import pytest

from storyloom.store import Database, NotFound

DOCS = 30
ROUNDS = 40
READERS = 4


def body(doc_id: str, generation: int) -> dict[str, Any]:
    return {"_id": doc_id, "n": generation, "a": generation, "b": generation, "payload": f"{doc_id}:{generation};" * 40}


def check_doc(doc: dict[str, Any]) -> int:
    """Raise AssertionError on a torn document; return its generation."""
    generation = int(doc["_rev"].split("-", 1)[0])
    assert doc["n"] == doc["a"] == doc["b"] == generation, doc
    assert doc["payload"] == f"{doc['_id']}:{generation};" * 40, doc["_id"]
    return generation


class Run:
    """The shared state of one writer/readers run."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.done = threading.Event()
        self.errors: list[BaseException] = []
        self.reads = [0] * READERS
        self.lock = threading.Lock()

    def guard(self, fn: Any) -> Any:
        def run() -> None:
            try:
                fn()
            except BaseException as exc:  # reported by the test
                with self.lock:
                    self.errors.append(exc)
                self.done.set()

        return run

    def writer(self) -> None:
        revs: dict[str, str] = {}
        ids = [f"doc{i:03d}" for i in range(DOCS)]
        for round_no in range(ROUNDS):
            if round_no % 2 == 0:
                # A batch: every doc created, or moved one generation on, in one transaction.
                docs = []
                for doc_id in ids:
                    doc = body(doc_id, int(revs[doc_id].split("-")[0]) + 1 if doc_id in revs else 1)
                    if doc_id in revs:
                        doc["_rev"] = revs[doc_id]
                    docs.append(doc)
                for result in self.db.bulk_docs(docs):
                    assert result["ok"], result
                    revs[result["id"]] = result["rev"]
            else:
                # Single puts, and a few new documents.
                for doc_id in ids[round_no % 3::3]:
                    doc = body(doc_id, int(revs[doc_id].split("-")[0]) + 1)
                    doc["_rev"] = revs[doc_id]
                    revs[doc_id] = self.db.put(doc)["rev"]
                new_id = f"new{round_no:03d}"
                revs[new_id] = self.db.put(body(new_id, 1))["rev"]
                ids.append(new_id)
        self.done.set()

    def reader(self, kind: int) -> None:
        last_count = last_seq = last_changes_seq = 0
        seen_generation: dict[str, int] = {}
        while not self.done.is_set():
            info = self.db.info()
            assert info["doc_count"] >= last_count and info["update_seq"] >= last_seq, (info, last_count)
            last_count, last_seq = info["doc_count"], info["update_seq"]
            if kind == 0:
                result = self.db.all_docs(include_docs=True, update_seq=True)
                assert result["total_rows"] == len(result["rows"])
                assert result["update_seq"] >= last_seq
                for row in result["rows"]:
                    assert row["doc"]["_rev"] == row["value"]["rev"]
                    generation = check_doc(row["doc"])
                    assert generation >= seen_generation.get(row["id"], 0)
                    seen_generation[row["id"]] = generation
            elif kind == 1:
                feed = self.db.changes(include_docs=True)
                assert feed["last_seq"] >= last_changes_seq
                last_changes_seq = feed["last_seq"]
                seqs = [row["seq"] for row in feed["results"]]
                assert seqs == sorted(seqs) and len(set(row["id"] for row in feed["results"])) == len(seqs)
                for row in feed["results"]:
                    assert row["doc"]["_rev"] == row["changes"][0]["rev"]
                    check_doc(row["doc"])
            elif kind == 2:
                for i in range(DOCS):
                    doc_id = f"doc{i:03d}"
                    try:
                        doc = self.db.get(doc_id, revs=True, conflicts=True)
                    except NotFound:
                        continue  # not written yet
                    generation = check_doc(doc)
                    assert doc["_revisions"]["start"] == generation
                    assert "_conflicts" not in doc
                    assert generation >= seen_generation.get(doc_id, 0)
                    seen_generation[doc_id] = generation
            else:
                since = 0
                while True:
                    page = self.db.changes(since=since, limit=7)
                    if not page["results"]:
                        break
                    assert all(row["seq"] > since for row in page["results"])
                    since = page["last_seq"]
                result = json.loads("".join(self.db.all_docs_stream(include_docs=True)))
                assert result["total_rows"] == len(result["rows"])
                for row in result["rows"]:
                    check_doc(row["doc"])
            with self.lock:
                self.reads[kind] += 1


@pytest.fixture(params=["file", "memory"])
def db(request: pytest.FixtureRequest, tmp_path):
    database = Database(tmp_path / "threads.sqlite" if request.param == "file" else ":memory:")
    yield database
    database.close()


@pytest.mark.slow
def test_one_writer_and_several_readers_at_once(db: Database) -> None:
    run = Run(db)
    threads = [threading.Thread(target=run.guard(run.writer), name="writer")]
    threads += [
        threading.Thread(target=run.guard(lambda kind=kind: run.reader(kind)), name=f"reader{kind}")
        for kind in range(READERS)
    ]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not any(thread.is_alive() for thread in threads)
    assert run.errors == []
    # The readers really ran while the writer wrote.
    assert all(count >= 1 for count in run.reads), run.reads  # every kind of reader ran during the writes
    final = db.all_docs(include_docs=True)
    assert final["total_rows"] == DOCS + ROUNDS // 2
    for row in final["rows"]:
        check_doc(row["doc"])
    # doc000 moved on in every batch round and in the single-put rounds whose number is a multiple of 3.
    assert db.get("doc000")["n"] == ROUNDS // 2 + len([r for r in range(1, ROUNDS, 2) if r % 3 == 0])
    assert time.monotonic() - started < 120


def test_all_docs_stream_consumed_across_threads(tmp_path) -> None:
    db = Database(tmp_path / "stream.sqlite")
    try:
        db.bulk_docs([body(f"doc{i:03d}", 1) for i in range(200)])
        expected = db.all_docs(include_docs=True)
        # Opened on this thread, consumed on another, while a third keeps writing.
        stream = db.all_docs_stream(include_docs=True)
        chunks: queue.Queue[str | None] = queue.Queue()
        errors: list[BaseException] = []
        stop = threading.Event()

        def consume() -> None:
            try:
                for chunk in stream:
                    chunks.put(chunk)
            except BaseException as exc:
                errors.append(exc)
            finally:
                chunks.put(None)

        def keep_writing() -> None:
            n = 0
            try:
                while not stop.is_set():
                    db.put(body(f"late{n:04d}", 1))
                    n += 1
            except BaseException as exc:
                errors.append(exc)

        writer = threading.Thread(target=keep_writing)
        consumer = threading.Thread(target=consume)
        writer.start()
        time.sleep(0.05)
        consumer.start()
        parts = []
        while (chunk := chunks.get(timeout=60)) is not None:
            parts.append(chunk)
        consumer.join(60)
        stop.set()
        writer.join(60)
        assert errors == []
        # The stream is the snapshot of when it was opened, whatever was written meanwhile.
        assert json.loads("".join(parts)) == expected
        assert db.info()["doc_count"] > 200

        # Several streams read by several threads at once agree with each other.
        results: list[Any] = [None] * 4
        snapshot = db.all_docs(include_docs=True)
        streams = [db.all_docs_stream(include_docs=True) for _ in results]

        def read(index: int) -> None:
            try:
                results[index] = json.loads("".join(streams[index]))
            except BaseException as exc:
                errors.append(exc)

        readers = [threading.Thread(target=read, args=(i,)) for i in range(len(results))]
        for thread in readers:
            thread.start()
        for thread in readers:
            thread.join(60)
        assert errors == []
        assert all(result == snapshot for result in results)
    finally:
        db.close()
