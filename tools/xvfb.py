"""A virtual X display for the tests and benchmarks that run the app as a real process.

Xvfb picks a free display number itself and writes it to ``-displayfd``, so parallel runs never
race for one; the server is stopped (terminated, killed if it lingers) when the block ends."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def virtual_display(width: int = 1440, height: int = 900) -> Iterator[str]:
    """Xvfb on a free display of ``width`` x ``height``; yields its name (``":N"``). Raises
    RuntimeError when Xvfb gives no display number (it could not start)."""
    read, write = os.pipe()
    server = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write), "-nolisten", "tcp", "-screen", "0", f"{width}x{height}x24"],
        pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    os.close(write)
    try:
        with os.fdopen(read) as pipe:
            number = pipe.readline().strip()
        if not number.isdigit():
            raise RuntimeError(f"Xvfb gave no display number (exit code {server.poll()})")
        yield f":{number}"
    finally:
        if server.poll() is None:
            server.terminate()
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait(5)
