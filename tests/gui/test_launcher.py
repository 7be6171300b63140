"""``storyloom-app``, the installed app's launcher (storyloom.gui.application.main): its own
arguments, Qt's, and a clear error instead of Qt's abort when there is no display. The launcher
opening a project by its folder, installed from the wheel, is tests/test_wheel.py's."""

from __future__ import annotations

import pytest

import storyloom
from storyloom.gui.application import _split_qt_arguments, main


def test_version_and_help_print_and_exit(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out == f"storyloom {storyloom.__version__}\n"
    with pytest.raises(SystemExit) as exited:
        main(["--help"])
    assert exited.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: storyloom-app [-h] [--version] [project]\n")
    assert "Qt's (-platform offscreen" in out


def test_an_unknown_option_is_refused(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["--quit-right-away"])
    assert exited.value.code == 2
    assert "unrecognized arguments: --quit-right-away" in capsys.readouterr().err


def test_no_display_is_an_error_message_not_an_abort(monkeypatch, capsys):
    monkeypatch.setattr("sys.platform", "linux")
    for name in ("DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("QT_QPA_PLATFORM", "xcb")
    assert main(["Goddess"]) == 1
    assert capsys.readouterr().err.startswith("storyloom-app: error: no display to show the app on")


def test_single_dash_arguments_are_qts():
    assert _split_qt_arguments(["Goddess", "-platform", "offscreen", "-reverse", "-style", "fusion"]) == (
        ["Goddess"], ["-platform", "offscreen", "-reverse", "-style", "fusion"])
    assert _split_qt_arguments(["-h"]) == (["-h"], [])
    assert _split_qt_arguments(["-platform"]) == ([], ["-platform"])
