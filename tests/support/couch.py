"""pouchdb-server 4.2.0 as a CouchDB-compatible test server (docs/protocol.md section 6).

The server itself (``CouchServer``, ``free_port``, ``stop_process_group``, ``unique_db_name``)
lives in ``tools/peers.py``, which the benchmarks import without pytest; this module adds the
pytest fixtures (import them into a ``conftest.py``): ``couch_server`` (one server for the
session, restarted if a test crashed it), ``couch`` (the same, checked before each test) and
``fresh_couch`` (a server of its own for tests that stop or crash it).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tools.peers import (  # noqa: F401  (re-exported for the tests)
    ADMIN_NAME,
    ADMIN_PASSWORD,
    CouchServer,
    free_port,
    stop_process_group,
    unique_db_name,
)

# -- pytest fixtures -----------------------------------------------------------------------------


@pytest.fixture(scope="session")
def couch_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CouchServer]:
    server = CouchServer(tmp_path_factory.mktemp("pouchdb-server"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def couch(couch_server: CouchServer) -> CouchServer:
    """The session's server, restarted first if an earlier test crashed it."""
    couch_server.ensure_running()
    return couch_server


@pytest.fixture
def fresh_couch(tmp_path: Path) -> Iterator[CouchServer]:
    """A server of its own (persistent, so it keeps its data across restarts)."""
    server = CouchServer(tmp_path / "pouchdb-server", persistent=True)
    server.start()
    try:
        yield server
    finally:
        server.stop()
