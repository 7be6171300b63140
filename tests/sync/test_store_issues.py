"""Store behaviour the sync engine depends on, found while building it.

The first case was a store bug (one SQLite connection per reading thread, never released
until ``close()``), fixed in the store with pooled reader connections; it stays as a
regression test because every sync run reads the store from threads of its own."""

from __future__ import annotations

import gc
import os
import threading
from pathlib import Path

import pytest

from storyloom.store import Database


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc (Linux) to count open files")
def test_reads_from_short_lived_threads_do_not_leak_connections(tmp_path: Path) -> None:
    db = Database(tmp_path / "leak.sqlite")
    db.put({"_id": "x"})
    db.info()
    before = open_fds()
    for _ in range(20):
        thread = threading.Thread(target=db.info)
        thread.start()
        thread.join()
    gc.collect()
    after = open_fds()
    db.close()
    assert after - before <= 2, f"{after - before} file descriptors left open by 20 finished reader threads"


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc (Linux) to count open files")
def test_repeated_syncs_do_not_accumulate_store_connections(tmp_path: Path, couch: object) -> None:
    """Ten push+pull runs, each with threads of its own, leave no connections behind."""
    from storyloom.sync import pull, push
    from tests.support.couch import CouchServer
    from tests.sync.helpers import admin_client

    assert isinstance(couch, CouchServer)
    name = couch.create_db()
    remote = admin_client(couch, name)
    db = Database(tmp_path / "a.sqlite")
    db.put({"_id": "warm-up"})
    push(db, remote)
    pull(remote, db)
    before = open_fds()
    for i in range(10):
        db.put({"_id": f"d{i}"})
        assert push(db, remote).ok
        assert pull(remote, db).ok
    gc.collect()
    after = open_fds()
    db.close()
    remote.close()
    assert after - before <= 2
