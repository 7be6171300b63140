"""The command's skeleton and where data lives."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import storyloom
from storyloom import paths
from storyloom.cli.main import main


def test_version_flag_prints_the_package_version(capsys):
    try:
        main(["--version"])
    except SystemExit as exc:
        assert exc.code == 0
    assert capsys.readouterr().out.strip() == f"storyloom {storyloom.__version__}"


def test_help_lists_the_headless_verbs_and_the_app(capsys):
    try:
        main(["--help"])
    except SystemExit as exc:
        assert exc.code == 0
    out = capsys.readouterr().out
    assert "usage: storyloom" in out
    for verb in ("app", "new", "list", "import", "export", "schema", "dump", "serve", "sync", "backup", "restore"):
        assert verb in out, f"verb {verb!r} missing from help"


def test_no_verb_opens_the_app_and_app_takes_a_project(monkeypatch):
    from storyloom.cli import verb_app

    launched = []
    monkeypatch.setattr(verb_app, "launch", lambda project: launched.append(project) or 0)
    assert main([]) == 0
    assert main(["app", "Goddess"]) == 0
    assert launched == [None, "Goddess"]


@pytest.mark.integration
def test_help_needs_no_display_and_does_not_load_qt(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    code = (
        "import sys; from storyloom.cli.main import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n"
        "    pass\nprint('QT' if any(m.startswith('PySide6') for m in sys.modules) else 'NOQT')"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                            env={**env, "STORYLOOM_HOME": str(tmp_path)})
    assert result.returncode == 0, result.stderr
    assert "usage: storyloom" in result.stdout and result.stdout.strip().endswith("NOQT")


@pytest.mark.integration
def test_the_app_without_a_display_is_a_clear_error(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    result = subprocess.run([sys.executable, "-m", "storyloom"], capture_output=True, text=True, timeout=60,
                            env={**env, "STORYLOOM_HOME": str(tmp_path)})
    assert result.returncode == 1
    assert result.stderr.startswith("storyloom: error: no display") and "Traceback" not in result.stderr


@pytest.mark.integration
def test_console_script_runs_as_a_process():
    result = subprocess.run(
        [sys.executable, "-m", "storyloom", "--version"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0
    assert result.stdout.strip() == f"storyloom {storyloom.__version__}"


def test_storyloom_home_overrides_the_data_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("STORYLOOM_HOME", str(tmp_path / "home"))
    assert paths.home_dir() == tmp_path / "home"
    assert paths.projects_dir() == tmp_path / "home" / "projects"
    assert paths.config_dir() == tmp_path / "home" / "config"
    assert paths.projects_dir().is_dir() and paths.config_dir().is_dir()


def test_every_test_runs_with_a_temporary_home(storyloom_home):
    assert paths.home_dir() == storyloom_home
    assert Path.home() not in paths.home_dir().parents


def _storyloom(*args, env):
    return subprocess.run(
        [sys.executable, "-m", "storyloom", *args], capture_output=True, timeout=60, env={**os.environ, **env},
    )


@pytest.mark.integration
def test_a_file_name_that_is_not_utf8_prints_without_a_traceback(tmp_path):
    """With a strict UTF-8 stdout (PYTHONIOENCODING=utf-8), printing an argument's undecodable
    bytes used to raise UnicodeEncodeError."""
    env = {"STORYLOOM_HOME": str(tmp_path / "home"), "PYTHONIOENCODING": "utf-8"}
    assert _storyloom("new", "Game", env=env).returncode == 0
    target = os.fsencode(tmp_path) + b"/game-\xff.json"
    result = _storyloom(b"backup", b"Game", b"-o", target, env=env)
    assert result.returncode == 0, result.stderr
    assert b"Traceback" not in result.stderr
    assert b"game-\\udcff.json" in result.stdout
    assert os.path.exists(target)


@pytest.mark.integration
def test_an_unusable_data_directory_is_a_clear_error(tmp_path):
    home = tmp_path / "not-a-folder"
    home.write_text("a file where the data directory should be")
    result = _storyloom("list", env={"STORYLOOM_HOME": str(home)})
    assert result.returncode == 1
    err = result.stderr.decode()
    assert err.startswith(f"storyloom: error: cannot use {home}") and "check the path" in err
    assert "Traceback" not in err
