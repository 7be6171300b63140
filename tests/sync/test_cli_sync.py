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
    project.store.put({"_id": "note-1", "text": "hi"})
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
    # SIGINT is only ever sent while main() runs (``in_main``, under ``lock``), and the thread
    # is joined before the test ends. A safety handler stands in for pytest's around the
    # call, so even a signal that arrived after the CLI restored it could not interrupt
    # the test session.
    in_main = threading.Event()
    lock = threading.Lock()
    late_signals: list[int] = []
    sent: list[float] = []

    def later() -> None:
        # Once caught up, a document written on the server arrives, then Ctrl-C.
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and len(remote_ids(couch, name)) < 4:
            time.sleep(0.05)
        couch.put_doc(name, {"_id": "while-live"})
        db = Database(store_file)
        try:
            while time.monotonic() < deadline and in_main.is_set():
                try:
                    db.get("while-live")
                    break
                except Exception:
                    time.sleep(0.05)
        finally:
            db.close()
        with lock:
            if in_main.is_set():
                sent.append(time.monotonic())
                os.kill(os.getpid(), signal.SIGINT)

    previous = signal.signal(signal.SIGINT, lambda signum, frame: late_signals.append(signum))
    sender = threading.Thread(target=later, daemon=True)
    started = time.monotonic()
    try:
        in_main.set()
        sender.start()
        try:
            code = main(["sync", str(store_file), "--remote", couch.db_url(name), "-u", "admin", "--live", "--json"])
        finally:
            with lock:
                in_main.clear()
        sender.join(15)
        assert not sender.is_alive()
    finally:
        signal.signal(signal.SIGINT, previous)
    data = json.loads(capsys.readouterr().out)
    assert sent, "Ctrl-C was never sent"
    assert late_signals == []  # the CLI's own handler took it
    assert code == 0
    assert time.monotonic() - started < 15
    assert data["push"]["state"] == data["pull"]["state"] == "cancelled"
    assert data["pull"]["docs_written"] == 1 and data["push"]["docs_written"] == 4


# -- PROJECT argument and password ----------------------------------------------------------------


def test_password_without_username_is_reported(
    store_file: Path, couch: CouchServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    name = couch.create_db()  # no _security: anyone may read and write
    monkeypatch.setenv("STORYLOOM_REMOTE_PASSWORD", "s3cret-value")
    code = main(["sync", str(store_file), "--remote", couch.db_url(name)])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "STORYLOOM_REMOTE_PASSWORD is set but no --username was given" in out.err
    assert "ignored" in out.err and "s3cret-value" not in out.out + out.err


def test_no_warning_without_the_variable(
    store_file: Path, couch: CouchServer, capsys: pytest.CaptureFixture[str]
) -> None:
    name = couch.create_db()
    assert main(["sync", str(store_file), "--remote", couch.db_url(name)]) == 0
    assert "warning" not in capsys.readouterr().err


def test_a_file_in_the_working_directory_does_not_shadow_a_project(
    tmp_path: Path, couch: CouchServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from storyloom.project.manager import ProjectManager

    project = ProjectManager().create("Shadowed")
    project.store.put({"_id": "from-the-project"})
    project.close()
    workdir = tmp_path / "work"
    workdir.mkdir()
    (workdir / "Shadowed").write_bytes(b"")  # an empty file with the project's name
    monkeypatch.chdir(workdir)
    name = couch.create_db()
    monkeypatch.setenv("STORYLOOM_REMOTE_PASSWORD", couch.admin[1])
    code = main(["sync", "Shadowed", "--remote", couch.db_url(name), "-u", "admin", "--direction", "push"])
    assert code == 0, capsys.readouterr().err
    assert "from-the-project" in remote_ids(couch, name)
    assert (workdir / "Shadowed").read_bytes() == b""  # untouched, not turned into a database


def test_a_name_without_suffix_or_separator_is_a_project_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes").write_text("not a store")
    assert main(["sync", "notes", "--remote", "http://127.0.0.1:1/db"]) == 2
    err = capsys.readouterr().err
    assert "notes" in err and "not a Storyloom store" not in err  # looked up as a project
    assert (tmp_path / "notes").read_text() == "not a store"


@pytest.mark.parametrize(
    ("file_name", "content", "message"),
    [
        ("empty.sqlite", b"", "is empty, not a Storyloom store"),
        ("empty.db", b"", "is empty, not a Storyloom store"),
        ("text.sqlite3", b"just some text, long enough to be read as a header", "not an SQLite database"),
        ("corrupt.sqlite", b"SQLite format 3\x00" + b"\xff" * 200, "is not a Storyloom store"),
    ],
)
def test_store_paths_that_are_not_stores(
    tmp_path: Path, file_name: str, content: bytes, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / file_name
    path.write_bytes(content)
    assert main(["sync", str(path), "--remote", "http://127.0.0.1:1/db"]) == 2
    assert message in capsys.readouterr().err
    assert path.read_bytes() == content  # never turned into a database


def test_another_programs_sqlite_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import sqlite3

    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()
    assert main(["sync", str(path), "--remote", "http://127.0.0.1:1/db"]) == 2
    assert "is not a Storyloom store" in capsys.readouterr().err
    conn = sqlite3.connect(path)
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    conn.close()
    assert tables == {"t"}


def test_store_path_with_a_separator_must_exist(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["sync", "./missing", "--remote", "http://127.0.0.1:1/db"]) == 2
    assert "no Storyloom store at missing" in capsys.readouterr().err


def test_is_store_path() -> None:
    from storyloom.cli.verb_sync import is_store_path

    for arg in ("story.sqlite", "STORY.DB", "a.sqlite3", "./x", "dir/x", "/abs/path"):
        assert is_store_path(arg), arg
    for arg in ("My Story", "story", "notes.txt", "1f2e3d"):
        assert not is_store_path(arg), arg
