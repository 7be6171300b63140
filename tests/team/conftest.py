"""Fixtures of the team-projects suite: pouchdb-server (shared, or one of the test's own) and nginx."""

from __future__ import annotations

from tests.support.couch import CouchServer, couch, couch_server, fresh_couch, unique_db_name  # noqa: F401
from tests.support.nginx import nginx_proxy  # noqa: F401
