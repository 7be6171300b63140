"""``storyloom remote set|show|check|setup|invite|unset``: the CLI contract, exit codes, and the
password never shown (stdout, stderr, logs, the command line)."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from storyloom.cli.main import main
from storyloom.project.manager import ProjectManager
from storyloom.project.remote_settings import load_remote_settings
from tests.support.couch import CouchServer, unique_db_name

SECRET = "Pa55-word-never-shown-7"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def project(storyloom_home: Path) -> Iterator[str]:
    ProjectManager().create("Saga").close()
    yield "Saga"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_set_show_unset(project: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                        caplog: pytest.LogCaptureFixture, storyloom_home: Path) -> None:
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("STORYLOOM_REMOTE_PASSWORD", SECRET)
    code, out, err = run(capsys, "remote", "set", project, "--server", "https://couch.example.com/",
                         "--username", "alice", "--interval", "12", "--live")
    assert code == 0, err
    assert "https://couch.example.com/app_v2_saga as 'alice', easy mode, pull live" in out
    assert "database name not given: using 'app_v2_saga'" in out
    assert "storyloom remote setup Saga" in out
    password_file = storyloom_home / "config" / "remote-passwords.json"
    assert (password_file.stat().st_mode & 0o777) == 0o600
    assert f"Password kept in the file ({password_file})" in out

    monkeypatch.delenv("STORYLOOM_REMOTE_PASSWORD")
    code, out, err = run(capsys, "remote", "show", project)
    assert code == 0
    assert "database:  app_v2_saga (https://couch.example.com/app_v2_saga)" in out
    assert "sync:      live (continuous)" in out
    assert f"password:  kept in the file ({password_file})" in out
    code, out_json, _ = run(capsys, "remote", "show", project, "--json")
    data = json.loads(out_json)
    assert data["configured"] and data["username"] == "alice" and data["interval"] == 12.0 and data["live"]
    assert data["database_url"] == "https://couch.example.com/app_v2_saga"
    assert data["password_source"].startswith("kept in the file")
    monkeypatch.setenv("STORYLOOM_REMOTE_PASSWORD", SECRET)
    code, out_env, _ = run(capsys, "remote", "show", project)
    assert "password:  the environment variable STORYLOOM_REMOTE_PASSWORD" in out_env

    # Changing only some settings keeps the others (and the kept password when none is given).
    monkeypatch.delenv("STORYLOOM_REMOTE_PASSWORD")
    code, out, err = run(capsys, "remote", "set", project, "--server", "https://couch.example.com",
                         "--username", "alice", "--no-live", "--database", "Team_Saga", "--mode", "advanced")
    assert code == 0, err
    assert "converted to lowercase: 'Team_Saga' becomes 'team_saga'" in out
    assert "Password unchanged, kept in the file" in out
    with ProjectManager().open(project) as opened:
        settings = load_remote_settings(opened.store)
    assert settings is not None
    assert (settings.database, settings.mode) == ("team_saga", "advanced")
    assert (settings.interval, settings.live) == (12.0, False)

    code, out, _ = run(capsys, "remote", "unset", project)
    assert code == 0 and "Removed the remote of 'Saga'" in out
    assert SECRET not in password_file.read_text()
    code, out, _ = run(capsys, "remote", "show", project)
    assert "has no remote on this machine" in out
    code, out, _ = run(capsys, "remote", "unset", project)
    assert code == 0 and "had no remote" in out
    assert SECRET not in caplog.text


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--server", "ftp://couch.example.com"], "'ftp://'"),
        (["--server", "couch.example.com"], "no scheme"),
        (["--server", "https://h", "--database", "my story"], "a space at position 3"),
        (["--server", "https://h", "--database", "team@home"], "'@' at position 5"),
        (["--server", "https://h", "--database", "9lives"], "starts with '9'"),
        (["--server", "https://h", "--interval", "0"], "--interval"),
        (["--server", "https://u:p@h"], "remove the user name and password"),
    ],
)
def test_bad_input_is_exit_2(project: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                             args: list[str], fragment: str) -> None:
    monkeypatch.setenv("STORYLOOM_REMOTE_PASSWORD", SECRET)
    code, _, err = run(capsys, "remote", "set", project, "--username", "alice", *args)
    assert code == 2
    assert fragment in err
    with ProjectManager().open(project) as opened:
        assert load_remote_settings(opened.store) is None


def test_http_to_another_machine_warns(project: str, capsys: pytest.CaptureFixture[str],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STORYLOOM_REMOTE_PASSWORD", SECRET)
    code, _, err = run(capsys, "remote", "set", project, "--server", "http://couch.example.com", "--username", "a")
    assert code == 0
    assert "storyloom: warning: http://couch.example.com is plain HTTP" in err and "https://" in err


def test_no_password_and_no_terminal_is_exit_2(project: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "remote", "set", project, "--server", "https://h", "--username", "alice")
    assert code == 2 and "STORYLOOM_REMOTE_PASSWORD" in err


def test_no_verb_takes_a_password_argument(project: str, capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["remote", "set", project, "--server", "https://h", "--username", "a", "--password", SECRET],
                 ["clone", "https://h/db", "--username", "a", "--password", SECRET]):
        with pytest.raises(SystemExit) as info:
            main(argv)
        assert info.value.code == 2
        capsys.readouterr()


def test_verbs_without_a_remote_say_how_to_set_one(project: str, capsys: pytest.CaptureFixture[str]) -> None:
    for verb in ("check", "setup"):
        code, _, err = run(capsys, "remote", verb, project)
        assert code == 1 and "storyloom remote set Saga --server URL --username USER" in err
    code, _, err = run(capsys, "remote", "invite", project, "bob")
    assert code == 1 and "storyloom remote set" in err
    code, _, err = run(capsys, "remote", "show", "Nope")
    assert code == 2 and "no project named" in err


# -- against the server --------------------------------------------------------------------------


def test_setup_check_invite_through_the_cli(project: str, couch: CouchServer, capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    db = unique_db_name("cli")
    monkeypatch.setenv("STORYLOOM_REMOTE_PASSWORD", couch.admin[1])
    assert run(capsys, "remote", "set", project, "--server", couch.url, "--database", db, "--username", "admin")[0] == 0

    code, out, _ = run(capsys, "remote", "check", project)
    assert code == 1  # no database yet
    assert "fail  database:" in out and "fix: run `storyloom remote setup Saga`" in out

    code, out, err = run(capsys, "remote", "setup", project)
    assert code == 0, err
    assert f"changed  database: database '{db}' created" in out and "lock rules version 2 installed" in out
    seq = couch.db_info(db)["update_seq"]
    code, out, _ = run(capsys, "remote", "setup", project)
    assert code == 0 and "(nothing needed changing)" in out
    assert couch.db_info(db)["update_seq"] == seq

    code, out, _ = run(capsys, "remote", "check", project, "--json")
    data = json.loads(out)
    assert code == 0 and data["ok"] and {line["name"] for line in data["lines"]} >= {"lock rules", "member"}

    invitee = "gina-" + db[-6:]
    code, out, err = run(capsys, "remote", "invite", project, invitee)
    assert code == 0, err
    password = out.split("hand it over privately): ", 1)[1].split("\n", 1)[0]
    assert len(password) >= 20
    assert f"They join with: storyloom clone {couch.db_url(db)} --username {invitee}" in out
    code, out, _ = run(capsys, "remote", "invite", project, invitee)
    assert code == 0 and "password is unchanged" in out and password not in out

    # The invitee, in advanced mode on another project: ready.
    ProjectManager().create("Other").close()
    monkeypatch.setenv("STORYLOOM_REMOTE_PASSWORD", password)
    assert run(capsys, "remote", "set", "Other", "--server", couch.url, "--database", db, "--username", invitee,
               "--mode", "advanced")[0] == 0
    code, out, _ = run(capsys, "remote", "setup", "Other")
    assert code == 0 and "is ready" in out
    code, _, err = run(capsys, "remote", "invite", "Other", "someone")
    assert code == 2 and "easy mode" in err
    code, out, _ = run(capsys, "remote", "check", "Other")
    assert code == 0 and "ok    member: a member" in out and password not in out

    # Advanced mode on a database that does not exist: exit 1 and the admin's three requests.
    assert run(capsys, "remote", "set", "Other", "--server", couch.url, "--database", db + "-x",
               "--username", invitee, "--mode", "advanced")[0] == 0
    code, out, _ = run(capsys, "remote", "setup", "Other")
    assert code == 1 and "does not exist" in out and out.count("curl -u ADMIN -X PUT") == 3
    assert couch.request("GET", f"/{db}-x").status_code == 404

    # A wrong password: exit 1 with what to do.
    monkeypatch.setenv("STORYLOOM_REMOTE_PASSWORD", "wrong")
    code, out, err = run(capsys, "remote", "setup", "Other")
    assert code == 1 and "refuses the user name" in err
    code, out, _ = run(capsys, "remote", "check", "Other")
    assert code == 1 and "fail  credentials" in out


def test_the_password_is_never_in_output_or_argv(project: str, storyloom_home: Path) -> None:
    """A real process: the password goes in through the environment only, and neither its
    command line nor its output carries it."""
    env = {**os.environ, "STORYLOOM_HOME": str(storyloom_home), "STORYLOOM_REMOTE_PASSWORD": SECRET,
           "PYTHONPATH": str(ROOT / "src")}
    commands = [
        ["remote", "set", project, "--server", "https://couch.example.com", "--username", "alice"],
        ["remote", "show", project],
        ["remote", "show", project, "--json"],
    ]
    for args in commands:
        argv = [sys.executable, "-m", "storyloom", *args]
        assert SECRET not in " ".join(argv)
        done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60, check=False)
        assert done.returncode == 0, done.stderr
        assert SECRET not in done.stdout and SECRET not in done.stderr
    env.pop("STORYLOOM_REMOTE_PASSWORD")
    done = subprocess.run([sys.executable, "-m", "storyloom", "remote", "show", project], env=env,
                          capture_output=True, text=True, timeout=60, check=False)
    assert "kept in the file" in done.stdout and SECRET not in done.stdout + done.stderr


def test_setup_and_check_use_the_projects_stale_lock_time(project: str, couch: CouchServer,
                                                          capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    db = unique_db_name("cli")
    monkeypatch.setenv("STORYLOOM_REMOTE_PASSWORD", couch.admin[1])
    assert run(capsys, "remote", "set", project, "--server", couch.url, "--database", db, "--username", "admin")[0] == 0
    code, out, err = run(capsys, "remote", "setup", project)
    assert code == 0 and "locks stale after 240 idle minutes" in out, err
    assert couch.get_doc(db, "_design/storyloom").json()["staleLockMinutes"] == 240

    with ProjectManager().open(project) as opened:
        opened.editor.update_settings({"staleLockMinutes": 90})
    code, out, _ = run(capsys, "remote", "check", project)
    assert code == 0 and "warn  lock rules: installed for a stale-lock time of 240 minutes; the project's is 90" in out
    code, out, err = run(capsys, "remote", "setup", project)
    assert code == 0 and "installed again for the project's stale-lock time (locks stale after 90" in out, err
    design = couch.get_doc(db, "_design/storyloom").json()
    assert design["staleLockMinutes"] == 90 and "var STALE_MINUTES = 90;" in design["validate_doc_update"]
    code, out, _ = run(capsys, "remote", "check", project)
    assert code == 0 and "idle longer than 90 minutes" in out
