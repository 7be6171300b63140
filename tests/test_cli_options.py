"""``storyloom options``: show the per-machine options (key masked) and set one, validated."""

from __future__ import annotations

import io
import json
import os
import stat
import subprocess
import sys

import pytest

from storyloom.app import AppOptions
from storyloom.cli.main import main


def _show(capsys, *flags: str) -> dict:  # type: ignore[no-untyped-def]
    assert main(["options", "--json", *flags]) == 0
    return json.loads(capsys.readouterr().out)


def test_show_prints_every_option_with_the_defaults(capsys) -> None:  # type: ignore[no-untyped-def]
    values = _show(capsys)
    assert list(values) == ["username", "api.enabled", "api.key", "api.port", "api.answer_cache_mb",
                            "backups.keep", "theme", "editor.font", "editor.font_size"]
    assert (values["theme"], values["editor.font"], values["editor.font_size"]) == ("system", "", 0)
    assert values["api.enabled"] is False and values["api.key"] == "" and values["api.port"] == 9001
    assert values["api.answer_cache_mb"] == 64 and values["backups.keep"] == 10
    assert values["username"]
    assert main(["options"]) == 0
    out = capsys.readouterr().out
    assert "\napi.port             9001\n" in out and "\napi.key              (none)\n" in out
    assert "\napi.answer_cache_mb  64\n" in out and str(AppOptions.path()) in out


def test_the_key_is_masked_unless_asked_for(capsys) -> None:  # type: ignore[no-untyped-def]
    AppOptions(username="ada", api_enabled=True, api_key="abcdefghijklmnop").save()
    assert _show(capsys)["api.key"] == "abcd…"
    assert main(["options"]) == 0
    out = capsys.readouterr().out
    assert "abcd…" in out and "abcdefghijklmnop" not in out
    assert _show(capsys, "--show-key")["api.key"] == "abcdefghijklmnop"


@pytest.mark.parametrize(("name", "value", "field", "expected"), [
    ("username", "  Ada Lovelace ", "username", "Ada Lovelace"),
    ("api.port", "8080", "api_port", 8080),
    ("api.enabled", "off", "api_enabled", False),
    ("API.ENABLED", "True", "api_enabled", True),
    ("api.answer_cache_mb", "128", "api_answer_cache_mb", 128),
    ("api.answer_cache_mb", " 0 ", "api_answer_cache_mb", 0),
    ("api.answer_cache_mb", "4096", "api_answer_cache_mb", 4096),
    ("backups.keep", "3", "auto_backups_keep", 3),
    ("backups.keep", "0", "auto_backups_keep", 0),
    ("theme", " Dark", "theme", "dark"),
    ("editor.font", " JetBrains Mono ", "editor_font_family", "JetBrains Mono"),
    ("editor.font_size", "14", "editor_font_size", 14),
    ("editor.font_size", "0", "editor_font_size", 0),
])
def test_set_saves_one_option(capsys, name, value, field, expected) -> None:  # type: ignore[no-untyped-def]
    assert main(["options", "set", name, value]) == 0
    assert getattr(AppOptions.load(), field) == expected
    assert capsys.readouterr().out.startswith(f"{name.lower()} = ")


def test_enabling_the_api_generates_a_key_and_shows_it_masked(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["options", "set", "api.enabled", "yes"]) == 0
    options = AppOptions.load()
    assert options.api_enabled and len(options.api_key) >= 32
    out = capsys.readouterr().out
    assert "new API key" in out and options.api_key[:4] + "…" in out and options.api_key not in out
    if os.name == "posix":
        assert stat.S_IMODE(AppOptions.path().stat().st_mode) == 0o600


def test_the_key_comes_from_stdin_or_is_generated_never_from_the_command_line(
        capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    assert main(["options", "set", "api.key", "secret-key-on-the-command-line"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("storyloom: error: api.key:") and "'-'" in err and "'new'" in err
    assert "secret-key-on-the-command-line" not in err
    assert AppOptions.load().api_key == ""
    monkeypatch.setattr(sys, "stdin", io.StringIO("from-standard-input\n"))
    assert main(["options", "set", "api.key", "-"]) == 0
    assert AppOptions.load().api_key == "from-standard-input"
    assert "from-standard-input" not in capsys.readouterr().out
    assert main(["options", "set", "api.key", "new"]) == 0
    assert AppOptions.load().api_key not in ("", "from-standard-input")
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main(["options", "set", "api.key", "-"]) == 2
    assert "standard input held no key" in capsys.readouterr().err


def test_a_key_shorter_than_16_characters_is_refused_and_the_generating_command_is_named(
        capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from storyloom.api.keys import GENERATE_KEY_COMMAND

    for short in ("x", "fifteen-chars!!"):
        monkeypatch.setattr(sys, "stdin", io.StringIO(short + "\n"))
        assert main(["options", "set", "api.key", "-"]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"storyloom: error: api.key: the key read from standard input is too short "
                              f"({len(short)} character")
        assert "at least 16 characters" in err and f"`{GENERATE_KEY_COMMAND}`" in err and short not in err
        assert AppOptions.load().api_key == ""  # nothing saved
    monkeypatch.setattr(sys, "stdin", io.StringIO("sixteen-chars!!!\n"))
    assert main(["options", "set", "api.key", "-"]) == 0
    assert AppOptions.load().api_key == "sixteen-chars!!!"
    # The command the message names is the one that generates a good key.
    assert GENERATE_KEY_COMMAND.startswith("storyloom ")
    assert main(GENERATE_KEY_COMMAND.split()[1:]) == 0
    assert len(AppOptions.load().api_key) >= 43


@pytest.mark.parametrize(("name", "value", "message"), [
    ("api.port", "0", "api.port: expected a port number from 1 to 65535, got '0'"),
    ("api.port", "http", "api.port: expected a port number from 1 to 65535, got 'http'"),
    ("api.enabled", "maybe", "api.enabled: expected true or false (also yes/no, on/off, 1/0), got 'maybe'"),
    ("username", "  ", "username: expected a non-empty name"),
    ("api.answer_cache_mb", "-1", "api.answer_cache_mb: expected a whole number of MiB from 0 to 4096 (0 keeps "
     "no answers: each request builds its export), got '-1'"),
    ("api.answer_cache_mb", "4097", "api.answer_cache_mb: expected a whole number of MiB from 0 to 4096"),
    ("api.answer_cache_mb", "64MB", "api.answer_cache_mb: expected a whole number of MiB from 0 to 4096"),
    ("api.answer_cache_mb", "1.5", "api.answer_cache_mb: expected a whole number of MiB from 0 to 4096"),
    ("backups.keep", "-1", "backups.keep: expected a whole number from 0 to 1000 (0 turns automatic backups "
     "off), got '-1'"),
    ("backups.keep", "ten", "backups.keep: expected a whole number from 0 to 1000"),
    ("theme", "blue", "theme: expected system, light or dark, got 'blue'"),
    ("editor.font_size", "3", "editor.font_size: expected 0 (the system's size) or a size in points from 6 to 48"),
    ("editor.font_size", "big", "editor.font_size: expected 0 (the system's size)"),
    ("colour", "blue", "unknown option 'colour': choose one of username, api.enabled, api.key, api.port, "
     "api.answer_cache_mb, backups.keep, theme, editor.font, editor.font_size"),
])
def test_a_wrong_value_names_the_option_and_the_allowed_values(
        capsys, name, value, message) -> None:  # type: ignore[no-untyped-def]
    AppOptions(username="ada", api_port=9100).save()
    before = AppOptions.path().read_bytes()
    assert main(["options", "set", name, value]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"storyloom: error: {message}") and "Traceback" not in err
    assert AppOptions.path().read_bytes() == before


def test_a_broken_options_file_is_a_clear_error(capsys) -> None:  # type: ignore[no-untyped-def]
    AppOptions.path().write_text("{not json", encoding="utf-8")
    assert main(["options"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("storyloom: error: cannot read the app options") and str(AppOptions.path()) in err


@pytest.mark.integration
def test_the_verb_runs_as_a_process_without_qt(storyloom_home) -> None:  # type: ignore[no-untyped-def]
    code = ("import sys; from storyloom.cli.main import main\nmain(['options', 'set', 'api.port', '9002'])\n"
            "print('QT' if any(m.startswith('PySide6') for m in sys.modules) else 'NOQT')")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                            env={**os.environ, "STORYLOOM_HOME": str(storyloom_home)})
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["api.port = 9002",
                                          "A desktop app that is open keeps its API settings until it is restarted.",
                                          "NOQT"]
