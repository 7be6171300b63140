"""Unfinished project folders: the marker a build (import, restore, create) holds while it runs.

:class:`UnfinishedMarker` is a file in the new project's folder, created before anything else
and removed once the project is complete. While the build runs, its process holds the marker:

- on POSIX, an exclusive ``flock`` on the open marker (the kernel releases it when the process
  dies, however it dies);
- on Windows, the open file itself (a file another process has open cannot be deleted).

So a marker nobody holds belongs to a build that died midway, and :func:`remove_abandoned`
removes its folder; a marker that is held belongs to a build still running (in this process or
another) and is left alone.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
from pathlib import Path

if sys.platform != "win32":
    import fcntl
else:  # Windows: an open file cannot be deleted, which is the lock
    fcntl = None

UNFINISHED_MARKER = ".storyloom-unfinished"


class UnfinishedMarker:
    """The marker of one build, held open (and locked) until :meth:`finish` or :meth:`release`."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd: int | None = fd

    @classmethod
    def create(cls, directory: Path) -> UnfinishedMarker:
        path = directory / UNFINISHED_MARKER
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600)
        try:
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            # For a person looking at the folder; the lock is what counts.
            os.write(fd, json.dumps({"pid": os.getpid(), "what": "a project being built"}).encode() + b"\n")
        except BaseException:
            os.close(fd)
            raise
        return cls(path, fd)

    def finish(self) -> None:
        """The project is complete: remove the marker (while still holding it), then let go."""
        if self._fd is None:
            return
        if fcntl is not None:
            os.unlink(self.path)
            self.release()
        else:
            self.release()  # Windows deletes only closed files
            os.unlink(self.path)

    def release(self) -> None:
        """Let go of the marker (the build failed and its folder is being removed)."""
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = None


def _abandoned(marker: Path) -> bool:
    """Whether no running process holds ``marker`` (then the caller may remove its folder)."""
    if fcntl is None:
        try:
            os.unlink(marker)  # fails while the building process has it open
        except OSError:
            return False
        return True
    try:
        fd = os.open(marker, os.O_RDWR)
    except OSError:  # gone: the build finished (or another sweeper took it)
        return False
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False  # held: the build is running
        # The lock may have come free because the build finished and removed this very file.
        try:
            return os.path.samestat(os.stat(marker), os.fstat(fd))
        except OSError:
            return False
    finally:
        os.close(fd)


def remove_abandoned(root: Path, complete_file: str) -> list[Path]:
    """Remove every folder under ``root`` whose build died midway; returns the folders removed.

    A folder that holds ``complete_file`` (written last by a build) is complete: the build died,
    or let go of its marker, just after finishing; only its stale marker is removed.
    """
    removed: list[Path] = []
    try:
        candidates = [d for d in root.iterdir() if (d / UNFINISHED_MARKER).is_file()]
    except OSError:
        return removed
    for directory in candidates:
        if not _abandoned(directory / UNFINISHED_MARKER):
            continue
        if (directory / complete_file).is_file():
            with contextlib.suppress(OSError):
                os.unlink(directory / UNFINISHED_MARKER)
            continue
        shutil.rmtree(directory, ignore_errors=True)
        removed.append(directory)
    return removed
