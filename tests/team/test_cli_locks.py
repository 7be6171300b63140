"""``storyloom lock / unlock / locks / doc get / doc set`` with two users' homes on one server:
exit codes 0, 2 and 3, provisional locks, breaks seen by the holder, edits pushed at once."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from storyloom.cli.main import main
from storyloom.paths import projects_dir
from storyloom.project.locks import lock_info
from storyloom.project.manager import ProjectManager
from storyloom.project.remote_settings import RemoteSettings, save_remote_settings
from storyloom.sync import RemoteDatabase, pull, push
from tests.support.couch import CouchServer, free_port
from tests.team.lock_clients import PASSWORD, TeamCouch, make_stale, team_database


@pytest.fixture(scope="module")
def couch(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CouchServer]:
    with TeamCouch(tmp_path_factory.mktemp("cli-couch")) as server:
        yield server


class Team:
    """Two users' homes holding the same project, each with its remote settings."""

    def __init__(self, couch: CouchServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *,
                 owners: list[str] | None = None) -> None:
        self.couch = couch
        self.monkeypatch = monkeypatch
        self.db = team_database(couch, ["alice", "bob"], owners=owners)
        self.homes = {user: tmp_path / f"home-{user}" for user in ("alice", "bob")}
        monkeypatch.setenv("STORYLOOM_REMOTE_PASSWORD", PASSWORD)
        self.use("alice")
        project = ProjectManager(username="alice").create("Team")
        self.doc_id = project.editor.create("Script", "Intro", content={"script": "one\n"}).id
        with self.remote("alice") as remote:
            assert push(project.store, remote).ok
        directory = project.path
        project.close()
        self.use("bob")
        shutil.copytree(directory, projects_dir() / directory.name)
        for user in ("alice", "bob"):
            self.set_remote(user, couch.url)

    def use(self, user: str) -> None:
        self.monkeypatch.setenv("STORYLOOM_HOME", str(self.homes[user]))

    def remote(self, user: str) -> RemoteDatabase:
        return RemoteDatabase(self.couch.db_url(self.db), username=user, password=PASSWORD)

    def set_remote(self, user: str, server: str) -> None:
        self.use(user)
        with ProjectManager().open("Team") as project:
            save_remote_settings(project.store, RemoteSettings(True, server, self.db, user))

    def pull(self, user: str) -> None:
        self.use(user)
        with ProjectManager().open("Team") as project, self.remote(user) as remote:
            assert pull(remote, project.store).ok

    def run(self, user: str, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
        self.use(user)
        capsys.readouterr()
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    def server_doc(self) -> dict:
        return self.couch.get_doc(self.db, self.doc_id).json()


@pytest.fixture
def team(couch: CouchServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Team:
    return Team(couch, tmp_path, monkeypatch)


def test_lock_refused_exits_3_and_doc_set_edits_through_the_gate(
    team: Team, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = team.doc_id
    code, out, _ = team.run("alice", capsys, "lock", "Team", doc)
    assert code == 0 and "locked 'Intro'" in out and "for alice" in out
    assert lock_info(team.server_doc()).holder == "alice"

    code, _, err = team.run("bob", capsys, "lock", "Team", doc)
    assert code == 3 and "locked by alice since" in err
    code, _, err = team.run("bob", capsys, "doc", "set", "Team", doc, "content.script=bob")
    assert code == 3 and "alice" in err  # a lock is required to edit (the remote is on)
    code, _, err = team.run("bob", capsys, "unlock", "Team", doc)
    assert code == 3 and "--break" in err

    code, out, _ = team.run("alice", capsys, "doc", "set", "Team", doc, "content.script=two\nthree\n", "alias=Twelve",
                            "--release")
    assert code == 0 and "pushed to the server" in out and "unlocked" in out
    server = team.server_doc()
    assert server["content"]["script"] == "two\nthree\n" and server["alias"] == "Twelve"
    assert lock_info(server) is None

    code, out, _ = team.run("bob", capsys, "doc", "set", "Team", doc, "content.script=bob's")
    assert code == 0 and "locked 'Intro'" in out and "on the server" in out
    server = team.server_doc()
    assert server["content"]["script"] == "bob's" and lock_info(server).holder == "bob"

    code, out, _ = team.run("bob", capsys, "doc", "get", "Team", doc, "--json")
    assert code == 0 and json.loads(out)["lockedBy"] == "bob"
    code, out, _ = team.run("bob", capsys, "doc", "get", "Team", doc)
    assert code == 0 and "lock: locked by bob since" in out

    code, out, _ = team.run("bob", capsys, "locks", "Team", "--json")
    listing = json.loads(out)
    assert code == 0 and listing["holder"] == "bob"
    assert [(e["id"], e["holder"], e["mine"], e["name"]) for e in listing["locks"]] == [(doc, "bob", True, "Intro")]
    code, out, _ = team.run("bob", capsys, "unlock", "Team", "--all-mine")
    assert code == 0 and f"unlocked 'Intro' ({doc})" in out
    assert lock_info(team.server_doc()) is None


def test_bad_input_exits_2(team: Team, capsys: pytest.CaptureFixture[str]) -> None:
    doc = team.doc_id
    for argv in (
        ("doc", "set", "Team", doc, "content.script"),          # no =
        ("doc", "set", "Team", doc, "content..x=1"),            # empty path part
        ("doc", "set", "Team", doc, "locked=true"),             # lock fields: lock / unlock
        ("doc", "set", "Team", doc, "_rev=1-x"),
        ("doc", "set", "Team", doc, "content.script.deeper=1"),  # content.script is text
        ("doc", "set", "Team", doc, "name=42"),                 # validation: a name is text
        ("doc", "set", "Team", "no-such-doc", "name=x"),
        ("doc", "get", "Team", "no-such-doc"),
        ("lock", "Team", "no-such-doc"),
        ("unlock", "Team"),
        ("unlock", "Team", doc, "--all-mine"),
    ):
        code, _, err = team.run("alice", capsys, *argv)
        assert code == 2, (argv, err)
        assert err.startswith("storyloom: error:"), (argv, err)
    code, _, err = team.run("alice", capsys, "lock", "Team", doc)
    code, _, err = team.run("alice", capsys, "unlock", "Team", doc, "--break")
    assert code == 2 and "unlock it instead" in err


def test_offline_lock_is_provisional_and_break_is_shown(team: Team, capsys: pytest.CaptureFixture[str]) -> None:
    doc = team.doc_id
    team.set_remote("bob", f"http://127.0.0.1:{free_port()}")  # nobody listens there
    code, out, _ = team.run("bob", capsys, "lock", "Team", doc)
    assert code == 0 and "provisional" in out
    code, out, _ = team.run("bob", capsys, "locks", "Team")
    assert "provisional" in out and "(yours)" in out
    team.set_remote("bob", team.couch.url)
    code, out, _ = team.run("bob", capsys, "locks", "Team", "--json")
    listing = json.loads(out)
    assert [(n["id"], n["outcome"]) for n in listing["settled"]] == [(doc, "confirmed")]
    assert [(e["holder"], e["provisional"]) for e in listing["locks"]] == [("bob", False)]
    assert lock_info(team.server_doc()).holder == "bob"

    code, _, err = team.run("alice", capsys, "lock", "Team", doc)
    assert code == 3 and "bob" in err
    # A fresh lock: the server refuses a member's break and says when it may be broken, and by whom.
    code, _, err = team.run("alice", capsys, "unlock", "Team", doc, "--break")
    assert code == 3 and "refused to break bob's lock" in err
    assert "idle since" in err and "a member may break it from" in err and "owner can break it now" in err
    assert lock_info(team.server_doc()).holder == "bob"
    make_stale(team.couch, team.db, doc, "bob")  # idle since long ago: any member may break it
    code, out, _ = team.run("alice", capsys, "unlock", "Team", doc, "--break")
    assert code == 0 and "broke bob's lock" in out
    assert team.server_doc()["lockBroken"]["holder"] == "bob"
    team.pull("bob")
    code, out, _ = team.run("bob", capsys, "locks", "Team")
    assert code == 0 and "your lock" in out and "broken by alice" in out
