"""The set-up scripts (scripts/run, scripts/test) wait, saying so, while another program holds
the package manager, instead of failing to install and going on to a failed start. The lock is
a real POSIX lock taken by another process on a file the test names as the package manager's
lock (the real ones need root and belong to the machine)."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(subprocess.run(["sh", "-c", "command -v lslocks"], capture_output=True).returncode,
                                reason="lslocks (util-linux) names the lock's holder")

_HOLD = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)
fcntl.lockf(fd, fcntl.LOCK_EX)
print("held", flush=True)
sys.stdin.read()  # until the test closes stdin
"""


def _wait_script(lock: Path, seconds: int) -> list[str]:
    return ["bash", "-c", f'source scripts/_venv.sh; APT_LOCKS=("{lock}"); APT_LOCK_WAIT_SECONDS={seconds}; '
            "wait_for_package_manager"]


def _holder(lock: Path) -> subprocess.Popen[str]:
    holder = subprocess.Popen([sys.executable, "-c", _HOLD, str(lock)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    return holder


def test_the_scripts_wait_for_the_package_manager_and_go_on_when_it_is_free(tmp_path: Path) -> None:
    lock = tmp_path / "lock-frontend"
    holder = _holder(lock)
    waiter = subprocess.Popen(_wait_script(lock, 120), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
    try:
        time.sleep(2.5)
        assert waiter.poll() is None, "it went on while the package manager was held"
    finally:
        holder.communicate("")  # releases the lock
    _, err = waiter.communicate(timeout=30)
    assert waiter.returncode == 0, err
    assert re.search(rf"waiting for \S+ \(process {holder.pid}\) to finish with the package manager", err), err
    assert "the package manager is free" in err


def test_the_wait_gives_up_with_what_to_do(tmp_path: Path) -> None:
    lock = tmp_path / "lock"
    holder = _holder(lock)
    try:
        done = subprocess.run(_wait_script(lock, 1), cwd=ROOT, capture_output=True, text=True, timeout=60)
    finally:
        holder.communicate("")
    assert done.returncode == 1
    assert f"(process {holder.pid}) after 1 s; let it finish (or stop it), then run this again" in done.stderr


def test_a_free_package_manager_is_not_waited_for(tmp_path: Path) -> None:
    lock = tmp_path / "lock"
    lock.touch()  # nobody holds it
    done = subprocess.run(_wait_script(lock, 60), cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stderr == ""
