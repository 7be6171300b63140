"""Resume after the process is killed mid-pull (T6), and the 10,000-document initial push and
pull (T25, T26)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from storyloom.store import Database
from storyloom.sync import ReplicationOptions, pull, push, replication_id
from storyloom.sync.replicator import DEFAULT_BATCH_SIZE, DEFAULT_PAGE_BYTES, MAX_PAGE_ROWS
from tests.support.couch import CouchServer, stop_process_group
from tests.sync.helpers import admin_client, local_ids, remote_ids

StoreFactory = Callable[..., Database]
ROOT = Path(__file__).resolve().parents[2]


def test_t6_resume_after_sigkill_mid_pull(tmp_path: Path, couch: CouchServer) -> None:
    name = couch.create_db()
    for start in range(0, 1000, 250):
        couch.bulk_docs(name, [{"_id": f"doc-{i:04d}", "n": i} for i in range(start, start + 250)])
    store_path = tmp_path / "a.sqlite"
    env = dict(os.environ, PYTHONPATH=f"{ROOT}{os.pathsep}{ROOT / 'src'}")
    # The child blocks on its stdin after its 3rd checkpoint, so the kill lands mid-pull.
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.sync.resume_child", couch.db_url(name), *couch.admin, str(store_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        env=env,
        start_new_session=True,
    )
    checkpoints: list[str] = []
    try:
        assert child.stdout is not None
        while len(checkpoints) < 3:
            line = child.stdout.readline().decode()
            assert line, child.stderr.read().decode() if child.stderr else "child died"  # type: ignore[union-attr]
            assert not line.startswith("done"), line
            if line.startswith("checkpoint"):
                checkpoints.append(line.split()[1])
        os.killpg(child.pid, signal.SIGKILL)
        child.wait(10)
        assert child.returncode == -signal.SIGKILL
    finally:
        stop_process_group(child)
        for stream in (child.stdin, child.stdout, child.stderr):
            if stream:
                stream.close()

    a = Database(store_path)
    try:
        remote = admin_client(couch, name)
        before = a.info()["doc_count"]
        assert before == 300  # exactly three batches of 100, then killed
        rep_id = replication_id(couch.uuid + name, a.info()["instance_uuid"])
        source_cp = couch.get_doc(name, rep_id).json()
        target_cp = a.get_local(rep_id)
        assert source_cp["session_id"] == target_cp["session_id"]
        assert source_cp["last_seq"] == target_cp["last_seq"]
        assert str(source_cp["last_seq"]) == checkpoints[-1]
        status = pull(remote, a, ReplicationOptions(batch_size=100))
        assert status.state == "complete" and status.replication_id == rep_id
        # The rerun's first since is the checkpoint the killed run wrote (the source's, as
        # both share the session), not 0.
        assert status.start_seq == source_cp["last_seq"]
        assert status.docs_written == 1000 - before
        assert a.info()["doc_count"] == 1000
        assert local_ids(a) == remote_ids(couch, name)
        assert a.get_local(rep_id)["last_seq"] == couch.db_info(name)["update_seq"]
        remote.close()
    finally:
        a.close()


def test_t25_t26_ten_thousand_documents_push_and_pull(make_store: StoreFactory, couch: CouchServer) -> None:
    name = couch.create_db()
    remote = admin_client(couch, name)
    a = make_store("a")
    body = "x" * 900
    for start in range(0, 10_000, 1000):
        a.bulk_docs([{"_id": f"doc-{i:05d}", "n": i, "text": body} for i in range(start, start + 1000)])
    started = time.perf_counter()
    pushed = push(a, remote)
    push_time = time.perf_counter() - started
    assert pushed.state == "complete" and pushed.docs_written == 10_000
    assert couch.db_info(name)["doc_count"] == 10_000
    assert a.get_local(pushed.replication_id)["last_seq"] == a.info()["update_seq"]  # T26
    b = make_store("b")
    started = time.perf_counter()
    pulled = pull(remote, b)
    pull_time = time.perf_counter() - started
    assert pulled.state == "complete" and pulled.docs_written == 10_000
    assert b.info()["doc_count"] == 10_000  # T25
    assert local_ids(b) == local_ids(a)
    # Pages of documents sized by bytes: the first of DEFAULT_BATCH_SIZE rows, then about
    # DEFAULT_PAGE_BYTES each (rows of ~1 KB), never more than MAX_PAGE_ROWS rows.
    rows = max(1, min(MAX_PAGE_ROWS, DEFAULT_PAGE_BYTES // 1100))
    pages = 1 + -(-(10_000 - DEFAULT_BATCH_SIZE) // rows)
    assert pages - 1 <= pulled.batches <= pages + 1
    assert pulled.batches < 10_000 // DEFAULT_BATCH_SIZE
    print(f"\n10k push {push_time:.2f}s, 10k pull {pull_time:.2f}s")
    assert push_time < 60 and pull_time < 60
    remote.close()
