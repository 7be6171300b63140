"""Fixtures of the sync suite: pouchdb-server, nginx, local stores, remote clients."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from storyloom.store import Database
from storyloom.sync import RemoteDatabase
from tests.support.couch import CouchServer, couch, couch_server, fresh_couch, unique_db_name  # noqa: F401
from tests.support.nginx import nginx_proxy  # noqa: F401


@pytest.fixture
def make_store(tmp_path: Path) -> Iterator[Callable[..., Database]]:
    """Factory of local stores (SQLite files in the test's temp dir), closed afterwards."""
    opened: list[Database] = []

    def factory(name: str | None = None, **kwargs: object) -> Database:
        path = tmp_path / f"{name or f'store{len(opened)}'}.sqlite"
        db = Database(path, **kwargs)  # type: ignore[arg-type]
        opened.append(db)
        return db

    yield factory
    for db in opened:
        db.close()


@pytest.fixture
def remote_db(couch: CouchServer) -> Iterator[tuple[RemoteDatabase, str]]:  # noqa: F811
    """A fresh, empty database on the test server and an admin client for it."""
    name = unique_db_name()
    couch.create_db(name)
    client = RemoteDatabase(couch.db_url(name), username=couch.admin[0], password=couch.admin[1])
    yield client, name
    client.close()


@pytest.fixture
def admin_remote(couch: CouchServer) -> Callable[[str], RemoteDatabase]:  # noqa: F811
    """Factory of admin clients for a database name on the test server (closed afterwards)."""
    clients: list[RemoteDatabase] = []

    def factory(name: str) -> RemoteDatabase:
        client = RemoteDatabase(couch.db_url(name), username=couch.admin[0], password=couch.admin[1])
        clients.append(client)
        return client

    yield factory  # type: ignore[misc]
    for client in clients:
        client.close()
