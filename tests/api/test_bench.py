"""``bench/api_bench.py`` cleans up after itself: its temporary STORYLOOM_HOME is deleted, a ``--dir`` kept.

A tiny run (a few documents, a fraction of a second per scenario): only the bookkeeping is tested.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "api_bench.py"
TINY = ["--docs", "100", "--clients", "2", "--seconds", "0.2", "--repeat", "1", "--only", "info"]


def _bench(tmp: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "TMPDIR": str(tmp)}  # where tempfile.mkdtemp makes the temporary home
    env.pop("STORYLOOM_HOME", None)
    return subprocess.run([sys.executable, str(BENCH), *TINY, *args], capture_output=True, text=True,
                          timeout=240, env=env, cwd=BENCH.parent.parent)


@pytest.mark.slow
def test_the_temporary_home_is_deleted(tmp_path):
    result = _bench(tmp_path)
    assert result.returncode in (0, 1), result.stderr  # 1: a target missed (these runs are tiny)
    assert "/info" in result.stdout
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("storyloom-api-bench-")] == []


@pytest.mark.slow
def test_a_given_dir_is_kept(tmp_path):
    home = tmp_path / "home"
    result = _bench(tmp_path, "--dir", str(home))
    assert result.returncode in (0, 1), result.stderr  # 1: a target missed (these runs are tiny)
    assert any((home / "projects").iterdir()), "the benchmark project is kept under --dir"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("storyloom-api-bench-")] == []
