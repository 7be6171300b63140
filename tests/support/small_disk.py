"""A real small disk for fault tests: a size-limited tmpfs mounted for one test (CI runs as
root), and a filler file that takes what space is left, and gives it back."""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


@contextlib.contextmanager
def small_disk(where: Path, size: str = "8m") -> Iterator[Path]:
    """``where`` as a tmpfs of ``size``, unmounted afterwards. Fails (never skips) when it cannot
    be mounted: the tests that use it must test the real fault."""
    where.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(where)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.fail(f"cannot mount a tmpfs for the full-disk tests (they need root): {done.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


class Filler:
    """A file that fills the disk it is on (``fill``, leaving ``keep`` bytes free) and is removed
    again (``free``)."""

    def __init__(self, disk: Path) -> None:
        self.path = disk / "filler"

    def fill(self, keep: int = 0) -> None:
        stats = os.statvfs(self.path.parent)
        free = stats.f_bavail * stats.f_frsize
        with contextlib.suppress(OSError), open(self.path, "ab") as handle:  # full already: done
            left = max(0, free - keep)
            block = b"\0" * (1 << 16)
            try:
                while left > 0:
                    left -= handle.write(block[:min(len(block), left)])
                handle.flush()
                if keep == 0:  # the last few bytes the page-sized writes left
                    while True:
                        handle.write(b"\0" * 512)
                        handle.flush()
            except OSError:
                pass

    def free(self) -> None:
        self.path.unlink(missing_ok=True)
