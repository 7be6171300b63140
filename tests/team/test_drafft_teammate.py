"""A Drafft teammate beside a Storyloom user on one database with the lock rules installed.

The Drafft user is ``tests/team/drafft_client.js``: PouchDB 9 in Node writing documents and
locks as Drafft does (``locked``/``lockedBy``, ``"nobody"`` when free, no ``lockedAt``; the
lock written locally and replicated, with no compare-and-swap). The Storyloom user works through
the CLI. Both go through pouchdb-server over HTTP; the server's lock rules are the only judge.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from storyloom.cli.main import main
from storyloom.project.locks import lock_info
from storyloom.project.manager import ProjectManager
from storyloom.project.remote_settings import RemoteSettings, save_remote_settings
from storyloom.sync import RemoteDatabase, push
from tests.support.couch import CouchServer, stop_process_group
from tests.support.node import ensure_node_packages, node_binary
from tests.team.lock_clients import PASSWORD, TeamCouch, team_database

SCRIPT = Path(__file__).with_name("drafft_client.js")


class DrafftClient:
    """The Node process acting as a Drafft user (one PouchDB of its own in ``workdir``)."""

    def __init__(self, workdir: Path, db_url: str, username: str, drafft_name: str | None = None) -> None:
        workdir.mkdir(parents=True, exist_ok=True)
        node_modules = ensure_node_packages()
        self.stderr = open(workdir / "stderr.txt", "wb")  # noqa: SIM115
        args = [node_binary(), str(SCRIPT), str(workdir), db_url, username, PASSWORD]
        if drafft_name is not None:
            args.append(drafft_name)
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr,
                                     cwd=workdir, env=dict(os.environ, NODE_PATH=str(node_modules)),
                                     start_new_session=True)
        self.workdir = workdir
        self._ids = itertools.count(1)

    def call(self, cmd: str, **args: Any) -> Any:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write((json.dumps({"id": next(self._ids), "cmd": cmd, "args": args}) + "\n").encode())
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the Drafft client died: {(self.workdir / 'stderr.txt').read_text()[-2000:]}")
        reply = json.loads(line)
        if "error" in reply:
            raise RuntimeError(f"{cmd}: {reply['error']}")
        return reply["result"]

    def close(self) -> None:
        if self.proc.poll() is None and self.proc.stdin is not None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        stop_process_group(self.proc)
        self.stderr.close()


@pytest.fixture(scope="module")
def couch(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CouchServer]:
    with TeamCouch(tmp_path_factory.mktemp("drafft-couch")) as server:
        yield server


class MixedTeam:
    """Alice on Storyloom (the CLI, her own home) and dora on Drafft, sharing one project."""

    def __init__(self, couch: CouchServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.couch = couch
        self.db = team_database(couch, ["alice", "dora"])
        monkeypatch.setenv("STORYLOOM_HOME", str(tmp_path / "home-alice"))
        monkeypatch.setenv("STORYLOOM_REMOTE_PASSWORD", PASSWORD)
        project = ProjectManager(username="alice").create("Team")
        self.doc_id = project.editor.create("Script", "Intro", content={"script": "one\n"}).id
        with RemoteDatabase(couch.db_url(self.db), username="alice", password=PASSWORD) as remote:
            assert push(project.store, remote).ok
        save_remote_settings(project.store, RemoteSettings(True, couch.url, self.db, "alice"))
        project.close()
        self.dora = DrafftClient(tmp_path / "drafft", couch.db_url(self.db), "dora")
        assert self.dora.call("pull")["ok"]

    def storyloom(self, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
        capsys.readouterr()
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    def server_doc(self) -> dict[str, Any]:
        return self.couch.get_doc(self.db, self.doc_id, conflicts=True).json()


@pytest.fixture
def team(couch: CouchServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[MixedTeam]:
    team = MixedTeam(couch, tmp_path, monkeypatch)
    try:
        yield team
    finally:
        team.dora.close()


def test_drafft_and_storyloom_take_turns_under_the_server_lock_rules(
        team: MixedTeam, capsys: pytest.CaptureFixture[str]) -> None:
    doc, dora = team.doc_id, team.dora

    # Dora locks in Drafft: the lock reaches the server as Drafft writes it, without lockedAt.
    locked = dora.call("lock", id=doc)
    assert locked["push"]["docs_written"] == 1 and locked["push"]["doc_write_failures"] == 0
    server = team.server_doc()
    assert (server["locked"], server["lockedBy"]) == (True, "dora") and "lockedAt" not in server
    assert lock_info(server) is not None and lock_info(server).since is None

    # Alice is refused, told who holds it; her listing and her document view show Drafft's lock.
    code, _, err = team.storyloom(capsys, "lock", "Team", doc)
    assert code == 3 and "locked by dora" in err and "since" not in err
    code, _, err = team.storyloom(capsys, "doc", "set", "Team", doc, "content.script=alice")
    assert code == 3 and "dora" in err
    code, out, err = team.storyloom(capsys, "sync", "Team")
    assert code == 0, err
    code, out, _ = team.storyloom(capsys, "locks", "Team", "--json")
    listing = json.loads(out)
    assert code == 0 and [(e["id"], e["holder"], e["since"], e["mine"]) for e in listing["locks"]] == [
        (doc, "dora", None, False)]
    code, out, _ = team.storyloom(capsys, "locks", "Team")
    assert code == 0 and "dora" in out
    code, out, _ = team.storyloom(capsys, "doc", "get", "Team", doc)
    assert code == 0 and "lock: locked by dora" in out
    assert team.server_doc()["content"]["script"] == "one\n"  # nothing of alice's got through

    # Dora edits and unlocks; alice then locks and edits.
    assert dora.call("edit", id=doc, script="dora's\n")["push"]["docs_written"] == 1
    assert dora.call("unlock", id=doc)["push"]["docs_written"] == 1
    server = team.server_doc()
    assert server["content"]["script"] == "dora's\n" and (server["locked"], server["lockedBy"]) == (False, "nobody")
    code, out, err = team.storyloom(capsys, "lock", "Team", doc)
    assert code == 0 and "for alice" in out, err
    code, out, err = team.storyloom(capsys, "doc", "set", "Team", doc, "content.script=alice's\n")
    assert code == 0 and "pushed to the server" in out, err
    server = team.server_doc()
    assert server["content"]["script"] == "alice's\n" and lock_info(server).holder == "alice"

    # Dora pulls alice's lock and writes anyway (an open editor saving): the server refuses it.
    assert dora.call("pull")["docs_written"] == 1
    refused = dora.call("edit", id=doc, script="dora again\n")["push"]
    assert refused["docs_written"] == 0 and refused["doc_write_failures"] == 1
    assert "locked by alice" in json.dumps(refused["errors"])
    refused = dora.call("lock", id=doc)["push"]
    assert refused["doc_write_failures"] == 1
    server = team.server_doc()
    assert server["content"]["script"] == "alice's\n" and lock_info(server).holder == "alice"
    assert "_conflicts" not in server

    # Alice's side is untouched by the refused writes: sync, listing and conflicts all clean.
    code, out, err = team.storyloom(capsys, "sync", "Team")
    assert code == 0, err
    code, out, _ = team.storyloom(capsys, "conflicts", "Team", "--json")
    assert code == 0 and json.loads(out)["conflicts"] == []
    code, out, _ = team.storyloom(capsys, "unlock", "Team", doc)
    assert code == 0 and lock_info(team.server_doc()) is None


def test_a_drafft_lock_in_another_name_is_refused(couch: CouchServer, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Drafft's Options > Username must be the server user name: a lock under another name
    (``Dora`` for server user ``dora``) is refused by the server."""
    team = MixedTeam(couch, tmp_path, monkeypatch)
    team.dora.close()
    other = DrafftClient(tmp_path / "drafft-renamed", couch.db_url(team.db), "dora", drafft_name="Dora")
    try:
        assert other.call("pull")["ok"]
        refused = other.call("lock", id=team.doc_id)["push"]
        assert refused["doc_write_failures"] == 1 and "in the name of Dora" in json.dumps(refused["errors"])
        assert lock_info(team.server_doc()) is None
    finally:
        other.close()


def test_a_drafft_lock_taken_offline_meets_storyloom_as_a_conflict(
        team: MixedTeam, capsys: pytest.CaptureFixture[str]) -> None:
    """Drafft takes a lock without asking the server: dora, not having pulled alice's edit,
    locks and edits the older revision. The server accepts it as a conflicting branch (its
    parent was free); Storyloom lists the conflict, refuses to resolve dora's locked leaf away
    until she releases it, and then merges both edits."""
    doc, dora = team.doc_id, team.dora
    code, out, err = team.storyloom(capsys, "doc", "set", "Team", doc, "content.script=one\ntwo\n", "--release")
    assert code == 0, err
    dora.call("lock", id=doc)  # on her copy from before alice's edit
    assert dora.call("edit", id=doc, script="zero\none\n")["push"]["doc_write_failures"] == 0
    server = team.server_doc()
    assert server["content"]["script"] == "one\ntwo\n" and len(server["_conflicts"]) == 1
    drafft_rev = server["_conflicts"][0]

    code, out, err = team.storyloom(capsys, "sync", "Team")
    assert code == 0, err
    code, out, _ = team.storyloom(capsys, "conflicts", "Team", "--json")
    found = json.loads(out)["conflicts"]
    assert code == 0 and [c["id"] for c in found] == [doc]
    code, text, _ = team.storyloom(capsys, "conflicts", "Team")
    assert code == 0 and f"leaf   {drafft_rev}  by dora at " in text
    code, out, _ = team.storyloom(capsys, "locks", "Team", "--json")
    assert code == 0 and json.loads(out)["locks"] == []  # Drafft's lock is on the losing leaf

    # Dora's leaf carries her lock: only she may resolve it away (lock rules version 2), and
    # alice is told so. Once dora releases it, the next sync merges both edits by itself (dora
    # added a line above, alice one below), although Drafft stamps its dates as JS Date strings.
    code, out, err = team.storyloom(capsys, "resolve", "Team", doc, "--take", drafft_rev)
    assert code == 3 and "locked by dora" in err
    assert dora.call("unlock", id=doc)["push"]["doc_write_failures"] == 0
    code, out, err = team.storyloom(capsys, "sync", "Team")
    assert code == 0, err
    code, out, _ = team.storyloom(capsys, "conflicts", "Team", "--json")
    assert json.loads(out)["conflicts"] == []
    server = team.server_doc()
    assert server["content"]["script"] == "zero\none\ntwo\n" and "_conflicts" not in server
    assert server["modified"].endswith("Z")  # Drafft's JS Date string, written back as ISO-8601
    assert dora.call("pull")["ok"]
    assert dora.call("get", id=doc)["content"]["script"] == "zero\none\ntwo\n"

