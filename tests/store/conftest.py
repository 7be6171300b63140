"""Fixtures of the store tests: every rule runs on a file database and on ":memory:"."""

from __future__ import annotations

from typing import Any

import pytest

from storyloom.store import Database


@pytest.fixture(params=["file", "memory"])
def make_db(request: pytest.FixtureRequest, tmp_path):
    """A factory of databases of the parametrised kind, all closed after the test."""
    made: list[Database] = []

    def make(**kwargs: Any) -> Database:
        path = tmp_path / f"db{len(made)}.sqlite" if request.param == "file" else ":memory:"
        database = Database(path, **kwargs)
        made.append(database)
        return database

    yield make
    for database in made:
        database.close()


@pytest.fixture
def db(make_db) -> Database:
    """One database of each kind (file and in memory), closed afterwards."""
    return make_db()
