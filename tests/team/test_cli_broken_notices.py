"""A broken lock is told to its holder once per machine, on stderr, by the next ``storyloom
sync``, ``lock`` or ``doc set`` (two users' homes on one pouchdb-server)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from storyloom.app.views.lock_view import when_text
from tests.support.couch import CouchServer
from tests.team.lock_clients import TeamCouch
from tests.team.test_cli_locks import Team


@pytest.fixture(scope="module")
def couch(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CouchServer]:
    with TeamCouch(tmp_path_factory.mktemp("cli-broken-couch")) as server:
        yield server


@pytest.fixture
def team(couch: CouchServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Team:
    # Bob owns the project: an owner may break a fresh lock (a member only a stale one).
    return Team(couch, tmp_path, monkeypatch, owners=["bob"])


def broken_by_bob(team: Team, capsys: pytest.CaptureFixture[str]) -> dict:
    """Alice locks the script, Bob breaks her lock; the break record on the server."""
    code, _, err = team.run("alice", capsys, "lock", "Team", team.doc_id)
    assert code == 0, err
    code, _, err = team.run("bob", capsys, "unlock", "Team", team.doc_id, "--break")
    assert code == 0, err
    record = team.server_doc()["lockBroken"]
    assert (record["by"], record["holder"]) == ("bob", "alice")
    return record


def told(err: str) -> list[str]:
    return [line for line in err.splitlines() if "was broken by" in line]


def expected_line(team: Team, record: dict) -> str:
    return (f"storyloom: your lock on 'Intro' ({team.doc_id}) was broken by bob at {when_text(record['at'])} "
            f"(held since {when_text(record['since'])})")


def test_sync_tells_the_holder_once(team: Team, capsys: pytest.CaptureFixture[str]) -> None:
    record = broken_by_bob(team, capsys)
    code, _, err = team.run("alice", capsys, "sync", "Team")
    assert code == 0, err
    assert told(err) == [expected_line(team, record)]
    code, _, err = team.run("alice", capsys, "sync", "Team")
    assert code == 0 and told(err) == []  # told once per machine
    code, _, err = team.run("bob", capsys, "sync", "Team")
    assert code == 0 and told(err) == []  # the breaker is not the holder


def test_lock_tells_the_holder_and_takes_the_lock_again(team: Team, capsys: pytest.CaptureFixture[str]) -> None:
    record = broken_by_bob(team, capsys)
    code, out, err = team.run("alice", capsys, "lock", "Team", team.doc_id)
    assert code == 0, err
    assert told(err) == [expected_line(team, record)]
    assert re.search(r"locked 'Intro' .* for alice since", out)
    code, _, err = team.run("alice", capsys, "sync", "Team")
    assert code == 0 and told(err) == []  # the lock read it first: not told again


def test_doc_set_tells_the_holder_from_the_read_back(team: Team, capsys: pytest.CaptureFixture[str]) -> None:
    record = broken_by_bob(team, capsys)
    code, out, err = team.run("alice", capsys, "doc", "set", "Team", team.doc_id, "alias=after the break")
    assert told(err) == [expected_line(team, record)], (code, out, err)
    code, _, err = team.run("alice", capsys, "doc", "set", "Team", team.doc_id, "alias=again")
    assert told(err) == []
