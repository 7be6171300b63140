"""`storyloom import`, `backup` and `restore` as a user runs them: progress bars on a terminal's
stderr, and nothing but the result when stderr is piped or with --quiet (the real CLI, in a
subprocess)."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

import storyloom

from .conftest import fixture_path

pytestmark = pytest.mark.integration  # storyloom CLIs in subprocesses (a pseudo-terminal)

SRC = str(Path(storyloom.__file__).resolve().parent.parent)


def _env(home: Path) -> dict[str, str]:
    return dict(os.environ, STORYLOOM_HOME=str(home), PYTHONPATH=SRC, COLUMNS="100")


def run_piped(home: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "storyloom", *argv], env=_env(home), capture_output=True,
                          text=True, timeout=120, check=False)


def run_on_terminal(home: Path, *argv: str) -> tuple[int, str, str]:
    """Run with stderr on a pseudo-terminal (100 columns) and stdout piped: (exit code, stdout,
    what the terminal showed)."""
    controller, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    shown = bytearray()
    try:
        proc = subprocess.Popen([sys.executable, "-m", "storyloom", *argv], env=_env(home), stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=terminal)
        os.close(terminal)
        terminal = -1
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            ready, _, _ = select.select([controller], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(controller, 65536)
                except OSError:  # the child closed its side
                    chunk = b""
                if not chunk and proc.poll() is not None:
                    break
                shown += chunk
            elif proc.poll() is not None:
                break
        else:
            proc.kill()
            pytest.fail(f"storyloom {' '.join(argv)} did not end in 120 s")
        assert proc.stdout is not None
        out = proc.stdout.read().decode()
        proc.stdout.close()
        code = proc.wait(timeout=10)
    finally:
        os.close(controller)
        if terminal >= 0:
            os.close(terminal)
    return code, out, shown.decode("utf-8", "replace")


def _complete_bar(shown: str, label: str) -> re.Match[str] | None:
    """A bar of ``label`` that reached its total (``N/N``)."""
    return re.search(label + r".*?\b(\d+)/\1\b", shown)


def test_import_backup_restore_draw_bars_on_a_terminal(tmp_path: Path) -> None:
    home = tmp_path / "home"
    code, out, shown = run_on_terminal(home, "import", str(fixture_path("garden")), "--name", "Garden")
    assert code == 0, shown
    assert out.startswith("Imported the-garden-of-fading-memories.json")
    # reading, then writing (drawn when a redraw falls in it), then indexing (the last detail)
    assert "Importing" in shown and "reading" in shown and "indexing" in shown
    assert _complete_bar(shown, "Importing"), shown
    assert "Imported " not in shown  # the report goes to stdout only

    backup = tmp_path / "garden-backup.json"
    code, out, shown = run_on_terminal(home, "backup", "Garden", "-o", str(backup))
    assert code == 0, shown
    assert out.startswith("Backed up 'Garden' to")
    assert "Backing up" in shown and _complete_bar(shown, "Backing up"), shown

    code, out, shown = run_on_terminal(home, "restore", str(backup), "--new-id", "--name", "Garden copy")
    assert code == 0, shown
    assert out.startswith("Restored project 'Garden copy'")
    assert "Restoring" in shown and _complete_bar(shown, "Restoring"), shown

    # --quiet on a terminal: only the result.
    code, out, shown = run_on_terminal(home, "backup", "Garden copy", "-o", str(tmp_path / "quiet.json"), "--quiet")
    assert code == 0 and out.startswith("Backed up 'Garden copy'")
    assert shown.strip() == ""


def test_piped_they_print_only_their_result(tmp_path: Path) -> None:
    home = tmp_path / "home"
    result = run_piped(home, "import", str(fixture_path("one-bullet")))
    assert result.returncode == 0 and result.stderr == ""
    assert result.stdout.startswith("Imported one-bullet.json")
    backup = tmp_path / "one-bullet-backup.json"
    result = run_piped(home, "backup", "One Bullet", "-o", str(backup))
    assert result.returncode == 0 and result.stderr == ""
    assert result.stdout == f"Backed up 'One Bullet' to {backup}\n"
    result = run_piped(home, "restore", str(backup), "--new-id", "--name", "Copy")
    assert result.returncode == 0 and result.stderr == ""
    assert result.stdout.startswith("Restored project 'Copy' (id ")


def test_a_failure_on_a_terminal_ends_the_bar_before_the_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"rows": [{"id": "a", "doc": {"_id": "a"}}, 7]}', encoding="utf-8")
    code, out, shown = run_on_terminal(tmp_path / "home", "import", str(bad))
    assert code == 1 and out == ""
    error = shown.rindex("storyloom: error:")
    assert "row 1 is not an all_docs row" in shown[error:]
    assert "\r" not in shown[error:].rstrip("\r\n")  # no bar redrawn over the message
