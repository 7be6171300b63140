"""``storyloom sync PROJECT --remote URL [--username U] [--json]``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from storyloom.cli.main import main
from storyloom.store import Database
from tests.support.couch import CouchServer
from tests.sync.helpers import remote_ids


@pytest.fixture
def store_file(tmp_path: Path) -> Path:
    path = tmp_path / "story.sqlite"
    db = Database(path)
    db.bulk_docs([{"_id": f"line-{i}", "text": "hello"} for i in range(4)])
    db.close()
    return path


def test_sync_store_file_text_summary(
    store_file: Path, couch: CouchServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    name = couch.create_db()
    couch.put_doc(name, {"_id": "from-server"})
    monkeypatch.setenv("STORYLOOM_REMOTE_PASSWORD", couch.admin[1])
    code = main(["sync", str(store_file), "--remote", couch.db_url(name), "--username", couch.admin[0]])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "push: 4 read, 4 written" in out.out and "pull: 1 read, 1 written" in out.out
    assert couch.admin[1] not in out.out + out.err
    assert sorted(remote_ids(couch, name)) == ["from-server"] + [f"line-{i}" for i in range(4)]


def test_sync_json_and_nothing_to_do(
    store_file: Path, couch: CouchServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    name = couch.create_db()
    monkeypatch.setenv("STORYLOOM_REMOTE_PASSWORD", couch.admin[1])
    args = ["sync", str(store_file), "--remote", couch.db_url(name), "-u", couch.admin[0], "--json"]
    assert main(args) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["ok"] is True and first["push"]["docs_written"] == 4 and first["pull"]["state"] == "complete"
    assert main(args) == 0
    second = json.loads(capsys.readouterr().out)
    assert second["push"]["docs_written"] == 0 and second["pull"]["docs_written"] == 0


def test_wrong_password_exits_1_with_the_reason(
    store_file: Path, couch: CouchServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    name = couch.create_db()
    monkeypatch.setenv("STORYLOOM_REMOTE_PASSWORD", "wrong")
    code = main(["sync", str(store_file), "--remote", couch.db_url(name), "--username", "admin"])
    err = capsys.readouterr().err
    assert code == 1
    assert "rejected the password for user 'admin'" in err
    assert err.count("storyloom: error:") == 1


def test_denied_documents_exit_3(
    tmp_path: Path, couch: CouchServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    name = couch.create_db()
    couch.create_user("alice", "alice-pw")
    couch.set_security(name, members=["alice"])
    path = tmp_path / "d.sqlite"
    db = Database(path)
    db.bulk_docs([{"_id": "_design/x"}, {"_id": "fine"}])
    db.close()
    monkeypatch.setenv("STORYLOOM_REMOTE_PASSWORD", "alice-pw")
    code = main(["sync", str(path), "--remote", couch.db_url(name), "--username", "alice", "--direction", "push"])
    out = capsys.readouterr().out
    assert code == 3
    assert "1 failed (1 denied)" in out and "failed: _design/x" in out


@pytest.mark.parametrize(
    ("remote", "message"),
    [
        ("http://admin:pw@127.0.0.1:5984/db", "do not put the password in the --remote URL"),
        ("http://127.0.0.1:5984/NoCaps", "invalid database name 'NoCaps'"),
        ("127.0.0.1:5984/db", "http:// or https://"),
    ],
)
def test_bad_remote_arguments(
    store_file: Path, remote: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["sync", str(store_file), "--remote", remote]) == 2
    assert message in capsys.readouterr().err


def test_password_needed_but_no_terminal(
    store_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin.isatty", lambda: False, raising=False)
    code = main(["sync", str(store_file), "--remote", "http://127.0.0.1:1/db", "--username", "bob"])
    assert code == 2
    assert "STORYLOOM_REMOTE_PASSWORD" in capsys.readouterr().err


def test_password_prompt(
    store_file: Path, couch: CouchServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    name = couch.create_db()
    monkeypatch.setattr("sys.stdin.isatty", lambda: True, raising=False)
    prompts: list[str] = []
    monkeypatch.setattr("getpass.getpass", lambda prompt: prompts.append(prompt) or couch.admin[1])
    assert main(["sync", str(store_file), "--remote", couch.db_url(name), "--username", "admin"]) == 0
    assert prompts == ["Password for admin: "]


def test_sync_a_project_by_name(couch: CouchServer, monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str]) -> None:
    from storyloom.project.manager import ProjectManager

    project = ProjectManager().create("Sync Demo")
    project.db.put({"_id": "note-1", "text": "hi"})
    project.close()
    name = couch.create_db()
    monkeypatch.setenv("STORYLOOM_REMOTE_PASSWORD", couch.admin[1])
    code = main(["sync", "Sync Demo", "--remote", couch.db_url(name), "--username", "admin", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["push"]["docs_written"] >= 1
    assert "note-1" in remote_ids(couch, name)


def test_unknown_project(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sync", "no-such-project", "--remote", "http://127.0.0.1:1/db"]) == 2
    assert "no-such-project" in capsys.readouterr().err


def test_live_sync_stops_cleanly_on_ctrl_c(
    store_file: Path, couch: CouchServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import os
    import signal
    import threading
    import time

    name = couch.create_db()
    monkeypatch.setenv("STORYLOOM_REMOTE_PASSWORD", couch.admin[1])

    def later() -> None:
        # Once caught up, a document written on the server arrives, then Ctrl-C.
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and len(remote_ids(couch, name)) < 4:
            time.sleep(0.05)
        couch.put_doc(name, {"_id": "while-live"})
        db = Database(store_file)
        try:
            while time.monotonic() < deadline:
                try:
                    db.get("while-live")
                    break
                except Exception:
                    time.sleep(0.05)
        finally:
            db.close()
        os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=later, daemon=True).start()
    started = time.monotonic()
    code = main(["sync", str(store_file), "--remote", couch.db_url(name), "-u", "admin", "--live", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    assert time.monotonic() - started < 15
    assert data["push"]["state"] == data["pull"]["state"] == "cancelled"
    assert data["pull"]["docs_written"] == 1 and data["push"]["docs_written"] == 4
