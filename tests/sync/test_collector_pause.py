"""A one-shot replication pauses Python's cyclic garbage collector and still frees reference
cycles as it goes; a live one leaves the collector alone."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Callable
from typing import Any

import pytest

from storyloom.store import Database
from storyloom.sync import ReplicationOptions, SyncEvent, make_push
from storyloom.sync import replicator as replicator_module
from tests.support.couch import CouchServer
from tests.sync.helpers import admin_client, wait_for

StoreFactory = Callable[[str], Database]


class Cycle:
    def __init__(self) -> None:
        self.me = self


def test_a_one_shot_run_pauses_the_collector_and_frees_cycles_between_batches(
    make_store: StoreFactory, couch: CouchServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A full collection after every batch.
    monkeypatch.setattr(replicator_module, "COLLECT_INTERVAL", 0.0)
    monkeypatch.setattr(replicator_module, "COLLECT_SPACING", 0)
    assert gc.isenabled()
    name = couch.create_db()
    remote = admin_client(couch, name)
    a = make_store("a")
    a.bulk_docs([{"_id": f"d{i:03d}"} for i in range(300)])
    enabled: list[bool] = []
    cycles: list[weakref.ref[Cycle]] = []
    alive_at_change: list[bool] = []

    def on_event(event: SyncEvent) -> None:
        if event.type == "change":
            enabled.append(gc.isenabled())
            alive_at_change.append(bool(cycles) and cycles[-1]() is not None)
            cycles.append(weakref.ref(Cycle()))  # garbage at once, but only a collection frees it

    status = make_push(a, remote, ReplicationOptions(batch_size=100), on_event).run()
    remote.close()
    assert status.state == "complete" and status.batches == 3
    assert enabled == [False, False, False]
    assert gc.isenabled()  # on again once the run is over
    # The cycle made after batch 1 was collected after batch 2, before the next event.
    assert alive_at_change == [False, False, False]
    assert len(cycles) == 3 and all(ref() is None for ref in cycles)


def test_a_live_run_leaves_the_collector_on(make_store: StoreFactory, couch: CouchServer) -> None:
    name = couch.create_db()
    remote = admin_client(couch, name)
    a = make_store("a")
    a.bulk_docs([{"_id": f"d{i:03d}"} for i in range(50)])
    enabled: list[Any] = []

    def on_event(event: SyncEvent) -> None:
        if event.type == "change":
            enabled.append(gc.isenabled())

    rep = make_push(a, remote, ReplicationOptions(live=True), on_event)
    rep.start()
    try:
        wait_for(lambda: enabled, 20)
    finally:
        rep.cancel()
        rep.wait(5)
        remote.close()
    assert enabled[0] is True and gc.isenabled()
