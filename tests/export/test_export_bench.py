"""bench/export_bench.py leaves no temporary home behind, and keeps a ``--dir`` it is given."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.fixtures import REPO_ROOT

pytestmark = pytest.mark.integration  # bench/export_bench.py in a subprocess

BENCH = REPO_ROOT / "bench" / "export_bench.py"


def _run(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TMPDIR": str(tmp)}
    env.pop("STORYLOOM_HOME", None)
    return subprocess.run(
        [sys.executable, str(BENCH), "--docs", "1500", "--repeat", "1", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )


def test_the_temporary_home_is_deleted(tmp_path: Path) -> None:
    temp = tmp_path / "tmp"
    temp.mkdir()
    result = _run(temp)
    assert result.returncode in (0, 1), result.stderr  # 1: a ratio over target on a small project
    assert "game export, cold" in result.stdout
    assert list(temp.iterdir()) == []


def test_the_temporary_home_is_deleted_when_the_run_fails(tmp_path: Path) -> None:
    temp = tmp_path / "tmp"
    temp.mkdir()
    result = _run(temp, "--docs", "10")  # too few documents for the generator: it raises
    assert result.returncode != 0
    assert list(temp.iterdir()) == []


def test_a_given_dir_is_kept(tmp_path: Path) -> None:
    temp = tmp_path / "tmp"
    temp.mkdir()
    home = tmp_path / "home"
    home.mkdir()
    result = _run(temp, "--dir", str(home))
    assert result.returncode in (0, 1), result.stderr
    assert home.is_dir() and any(home.iterdir())
    assert list(temp.iterdir()) == []
