"""Automatic backups: when the app takes one, where they live, how many are kept, listing and
restoring them. Qt-free: the app's window, its project manager and ``storyloom backups`` use it.

- **When.** On opening a project when its newest automatic backup is an hour old or more (or
  there is none), then, while it stays open, once more after each hour in which the project
  changed (an edit here, an import, a teammate's change received); no change, no new backup.
  :class:`AutoBackups` keeps that schedule for one open project, with an injectable clock.
- **Where.** ``<home>/backups/<project-id>/<UTC time>.json`` (:func:`backups_dir`), the folder
  private to its owner (0700) and each file too (0600), like a project's own files.
- **What.** The ``all_docs`` dump ``storyloom backup`` writes, so ``storyloom restore FILE``
  reads any of them.
- **Safely.** Written by :class:`storyloom.output_files.AtomicFile` to a new temporary file in
  the same folder (its name starts with a dot and ends in ``.tmp``: never listed), flushed to the
  disk, then linked into place under a free name: a killed app leaves a temporary file, never a
  half backup that looks complete, and the next backup removes it once its writer is gone (one
  an older version left is removed a day later). Older backups beyond the number kept are
  removed only after the new one is complete, so a failed write (a full disk) leaves every
  earlier one.
- **How many.** The app option ``auto_backups_keep`` (10; 0 turns automatic backups off and
  removes none of those already taken).
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from storyloom import paths
from storyloom.app.attachments import human_size
from storyloom.app.options import DEFAULT_BACKUPS_KEEP
from storyloom.errors import StoryloomError
from storyloom.output_files import AtomicFile, OutputError
from storyloom.words import counted

if TYPE_CHECKING:
    from storyloom.progress import ProgressCallback
    from storyloom.project import Project, ProjectManager

BACKUPS_DIR = "backups"
#: At most one automatic backup per hour of editing.
INTERVAL = timedelta(hours=1)
#: After a failed backup (a full disk), the next try comes this much later, edits or not.
RETRY_AFTER = timedelta(minutes=10)
#: A temporary file older than this was left by a process that died while writing it.
STALE_TEMPORARY = timedelta(days=1)
STAMP = "%Y%m%dT%H%M%SZ"
# Only the owner may read a project's data, in a backup as in the project's folder.
DIR_MODE = 0o700
FILE_MODE = 0o600
_NAME = re.compile(r"^(\d{8}T\d{6}Z)(?:-(\d+))?\.json$")
_TEMPORARY = re.compile(r"^\..+\.tmp$")

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(UTC)


class AutoBackupError(StoryloomError):
    """An automatic backup that could not be written: the message says why (``cause``, the
    system's words) and what to do; the earlier backups are kept."""

    code = "auto_backup_failed"

    def __init__(self, message: str, cause: str) -> None:
        super().__init__(message, cause=cause)


class BackupCancelled(StoryloomError):
    """The backup stopped before it was complete (its project is closing); nothing was kept."""

    code = "backup_cancelled"


@dataclass(frozen=True)
class AutoBackup:
    """One automatic backup: its file, when it was taken (UTC, from its name) and its size."""

    path: Path
    time: datetime
    size: int

    def local_time(self) -> str:
        """When it was taken, in this machine's time zone: ``2026-11-27 22:00``."""
        return self.time.astimezone().strftime("%Y-%m-%d %H:%M")

    def size_text(self) -> str:
        return human_size(self.size)

    def to_json(self) -> dict[str, Any]:
        """``{"time", "size", "path"}``: ISO 8601 with this machine's offset, bytes, the file."""
        return {"time": self.time.astimezone().isoformat(timespec="seconds"), "size": self.size,
                "path": str(self.path)}


def day_text(when: datetime, now: datetime) -> str:
    """When, as a list of backups reads: ``Today 22:00``, ``Yesterday 17:31``, ``Wed Nov 25, 21:31``
    (``Nov 25, 2025, 21:31`` in another year), in this machine's time zone."""
    local, today = when.astimezone(), now.astimezone()
    days = (today.date() - local.date()).days
    if days == 0:
        return f"Today {local:%H:%M}"
    if days == 1:
        return f"Yesterday {local:%H:%M}"
    if local.year == today.year:
        return f"{local:%a %b} {local.day}, {local:%H:%M}"
    return f"{local:%b} {local.day}, {local.year}, {local:%H:%M}"


def age_text(when: datetime, now: datetime) -> str:
    """How long ago: ``just now``, ``8 minutes ago``, ``3 hours ago``, ``4 days ago``."""
    seconds = (now - when).total_seconds()
    if seconds < 60:
        return "just now"
    for unit, length in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= length:
            count = int(seconds // length)
            return f"{counted(count, unit)} ago"
    raise AssertionError("unreachable")


# ---------------------------------------------------------------------- where and which
def backups_root() -> Path:
    """``<home>/backups``: one folder per project."""
    return paths.home_dir() / BACKUPS_DIR


def backups_dir(project_id: str, root: Path | None = None) -> Path:
    """The folder of one project's automatic backups (not created here)."""
    return (root or backups_root()) / project_id


def list_backups(project_id: str, *, root: Path | None = None) -> list[AutoBackup]:
    """The project's automatic backups, the newest first (none when its folder does not exist).
    Temporary files and anything else in the folder are not backups and are left out."""
    directory = backups_dir(project_id, root)
    found: list[tuple[datetime, int, AutoBackup]] = []
    try:
        entries = list(os.scandir(directory))
    except (FileNotFoundError, NotADirectoryError):  # none taken yet, or a file in the folder's place
        return []
    for entry in entries:
        match = _NAME.match(entry.name)
        if match is None:
            continue
        try:
            if not entry.is_file(follow_symlinks=False):
                continue
            size = entry.stat(follow_symlinks=False).st_size
        except OSError:  # removed meanwhile (pruned by another process)
            continue
        taken = datetime.strptime(match.group(1), STAMP).replace(tzinfo=UTC)
        found.append((taken, int(match.group(2) or 1), AutoBackup(Path(entry.path), taken, size)))
    found.sort(key=lambda item: (item[0], item[1]), reverse=True)
    return [backup for _, _, backup in found]


# ---------------------------------------------------------------------- writing and pruning
def write_backup(project: Project, *, now: datetime | None = None, root: Path | None = None,
                 cancelled: Callable[[], bool] | None = None) -> AutoBackup:
    """Write one automatic backup of ``project`` (an open project; any thread) and return it.

    :class:`AutoBackupError` when the file system refuses (the temporary file is removed and the
    earlier backups are untouched); :class:`BackupCancelled` when ``cancelled()`` turns true
    between two documents."""
    when = now or utc_now()
    directory = backups_dir(project.id, root)
    stamp = when.astimezone(UTC).strftime(STAMP)
    try:
        directory.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
        with contextlib.suppress(OSError):
            directory.chmod(DIR_MODE)  # the exact mode, whatever the umask
        # <UTC time>.json, or <UTC time>-2.json... when a backup of that second exists: linked
        # into place, so two writers never take one name. Flushed to the disk before it takes a
        # backup's name; a failure or a cancel removes the temporary file.
        with AtomicFile(directory / f"{stamp}.json", replace=False, numbered=True, mode=FILE_MODE) as out:
            chunks = project.db.all_docs_stream(include_docs=True, attachments=True)
            try:
                for chunk in chunks:  # the same dump as `storyloom backup`, from one snapshot
                    if cancelled is not None and cancelled():
                        raise BackupCancelled(f"the automatic backup of {project.name!r} was stopped")
                    out.write(chunk)
            finally:
                close = getattr(chunks, "close", None)
                if close is not None:
                    close()  # the snapshot's connection ends now, not when collected
        final = out.path
        size = final.stat().st_size
    except (OSError, OutputError) as exc:  # OutputError: a thousand backups in that second
        cause = (exc.strerror or str(exc)) if isinstance(exc, OSError) else str(exc)
        raise AutoBackupError(
            f"could not write the automatic backup of {project.name!r} to {directory}: {cause}. "
            "The earlier backups are kept; free some space on that disk (or check the folder's "
            "permissions) and Storyloom tries again shortly",
            cause,
        ) from None
    return AutoBackup(final, when.astimezone(UTC).replace(microsecond=0), size)


def prune(project_id: str, keep: int, *, root: Path | None = None, just_taken: Path | None = None) -> list[Path]:
    """Remove the project's automatic backups beyond the newest ``keep`` (none when ``keep`` is
    0 or less: turning backups off deletes nothing) and temporary files a dead process left;
    returns the backups removed. ``just_taken`` is kept whatever its date (backups dated later
    were taken while the clock was ahead)."""
    removed: list[Path] = []
    if keep > 0:
        backups = list_backups(project_id, root=root)
        if just_taken is not None and just_taken in {b.path for b in backups}:
            backups = [b for b in backups if b.path != just_taken]
            keep -= 1
        for backup in backups[keep:]:
            with contextlib.suppress(FileNotFoundError):
                backup.path.unlink()
                removed.append(backup.path)
    directory = backups_dir(project_id, root)
    limit = time.time() - STALE_TEMPORARY.total_seconds()  # the files' own clock, not a test's
    with contextlib.suppress(OSError):
        for entry in os.scandir(directory):
            if _TEMPORARY.match(entry.name) and entry.stat(follow_symlinks=False).st_mtime < limit:
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)
    return removed


def take_backup(project: Project, keep: int, *, now: datetime | None = None, root: Path | None = None,
                cancelled: Callable[[], bool] | None = None) -> AutoBackup:
    """Write one backup, then (only once it is complete) keep the newest ``keep``."""
    backup = write_backup(project, now=now, root=root, cancelled=cancelled)
    with contextlib.suppress(OSError):  # a backup that cannot be pruned is still a backup
        prune(project.id, keep, root=root, just_taken=backup.path)
    return backup


# ---------------------------------------------------------------------- restoring
def restored_name(manager: ProjectManager, project_name: str, backup: AutoBackup) -> str:
    """``<name> (backup 2026-11-27 22:00)``, made unique among the projects here."""
    return manager.unique_name(f"{project_name or 'Project'} (backup {backup.local_time()})")


def restore_backup(manager: ProjectManager, backup: AutoBackup, name: str, *,
                   progress: ProgressCallback | None = None) -> Project:
    """Restore ``backup`` as a new project (a new id, beside the original) named ``name``."""
    return manager.restore(backup.path, name, new_id=True, progress=progress)


# ---------------------------------------------------------------------- in words
@dataclass(frozen=True)
class BackupStatus:
    """What the window's status bar says about automatic backups: ``text`` beside an icon of
    ``tone`` (``muted``, ``accent`` or ``danger``), ``tooltip``; nothing when not ``visible``."""

    visible: bool
    text: str = ""
    tooltip: str = ""
    tone: str = "muted"


RESTORE_HINT = "Restore one from the project manager (Automatic backups…)."


def status_view(*, keep: int, running: bool, last: AutoBackup | None, error: AutoBackupError | None,
                now: datetime) -> BackupStatus:
    """The status bar's words: off (nothing shown), writing, failed (with its cause) or the last one."""
    if keep <= 0:
        return BackupStatus(False)
    kept = f"Storyloom keeps the last {counted(keep, 'automatic backup')} of this project."
    if running:
        return BackupStatus(True, "Backing up…", f"Writing an automatic backup of the project. {kept}", "accent")
    if error is not None:
        return BackupStatus(True, f"Backup failed: {error.cause}", f"{str(error)[:1].upper()}{str(error)[1:]}.",
                            "danger")
    if last is None:
        return BackupStatus(False)
    local, today = last.time.astimezone(), now.astimezone()
    when = f"{local:%H:%M}" if local.date() == today.date() else f"{local:%b} {local.day}"
    return BackupStatus(True, f"Backed up {when}", f"Last automatic backup: {last.local_time()} "
                        f"({last.size_text()}), {last.path}. {kept} {RESTORE_HINT}")


# ---------------------------------------------------------------------- the schedule
class AutoBackups:
    """The automatic backups of one open project: whether one is due, and taking it.

    ``keep()`` is the number to keep, read at each step (the options may change while the
    project is open); ``clock()`` the time (UTC, aware), which tests move by hand.
    :meth:`changed` records a change of the project; :meth:`start` returns the backup to write
    when one is due (a :class:`BackupJob`, to run on a worker thread), ``None`` otherwise.
    """

    def __init__(self, project: Project, *, keep: Callable[[], int] = lambda: DEFAULT_BACKUPS_KEEP,
                 clock: Clock = utc_now, root: Path | None = None, interval: timedelta = INTERVAL,
                 retry_after: timedelta = RETRY_AFTER) -> None:
        self.project = project
        self.keep = keep
        self.clock = clock
        self.root = root
        self.interval = interval
        self.retry_after = retry_after
        self._lock = threading.Lock()
        self._running: BackupJob | None = None
        #: The newest backup, and the failure of the last try (``None`` after a success).
        self.last: AutoBackup | None = None
        self.last_error: AutoBackupError | None = None
        try:
            existing = list_backups(project.id, root=root)
        except OSError:  # an unreadable folder: the first backup says why, opening goes on
            existing = []
        now = clock()
        newest = existing[0] if existing else None
        self.last = newest
        if newest is None or newest.time > now or now - newest.time >= interval:
            # Opening: none yet, an hour old or more, or dated after now (the clock went back).
            self._changed, self._not_before = True, now
        else:
            self._changed, self._not_before = False, newest.time + interval

    @property
    def running(self) -> bool:
        with self._lock:
            return self._running is not None

    def changed(self) -> None:
        """The project changed: the next backup is due an hour after the last one."""
        with self._lock:
            self._changed = True

    def due(self) -> bool:
        with self._lock:
            return self._due_locked()

    def _due_locked(self) -> bool:
        return (self.keep() > 0 and self._running is None and self._changed
                and self.clock() >= self._not_before)

    def next_due(self) -> datetime | None:
        """When the next backup is due if the project changes (``None`` when backups are off)."""
        with self._lock:
            return self._not_before if self.keep() > 0 else None

    def start(self) -> BackupJob | None:
        """The backup to write now, or ``None`` when none is due (or one is being written)."""
        with self._lock:
            if not self._due_locked():
                return None
            now = self.clock()
            job = BackupJob(self, now, self.keep())
            self._running = job
            # Changes from here on are not in this backup's snapshot: they make the next one due.
            self._changed = False
            self._not_before = now + self.interval
            return job

    def status(self) -> BackupStatus:
        """What the status bar says now (:func:`status_view`)."""
        with self._lock:
            running, last, error = self._running is not None, self.last, self.last_error
        return status_view(keep=self.keep(), running=running, last=last, error=error, now=self.clock())

    def run_due(self, cancelled: Callable[[], bool] | None = None) -> AutoBackup | None:
        """Take the backup now, on this thread, when one is due (the CLI, tests)."""
        job = self.start()
        return job.run(cancelled) if job is not None else None

    def _finished(self, job: BackupJob, backup: AutoBackup | None, error: BaseException | None) -> None:
        with self._lock:
            if self._running is job:
                self._running = None
            if backup is not None:
                self.last, self.last_error = backup, None
                return
            self._changed = True  # nothing was kept: still to back up
            if isinstance(error, BackupCancelled | KeyboardInterrupt | SystemExit):
                self._not_before = job.started  # stopped, not failed: the next check decides
                return
            self.last_error = error if isinstance(error, AutoBackupError) else _unexpected(self.project, error)
            self._not_before = self.clock() + self.retry_after  # soon, but not at every check


def _unexpected(project: Project, error: BaseException | None) -> AutoBackupError:
    """A failure other than the file system's (a closed store, a bug), in the same words."""
    if isinstance(error, StoryloomError):
        cause = str(error)
        what = f"could not back up {project.name!r}: {cause}"
    else:
        cause = f"internal error ({type(error).__name__}: {error})"
        what = (f"the automatic backup of {project.name!r} stopped on an {cause}; this is a bug in "
                "Storyloom, please report it")
    return AutoBackupError(f"{what}. The earlier backups are kept and Storyloom tries again shortly", cause)


class BackupJob:
    """One automatic backup to write, from :meth:`AutoBackups.start`; :meth:`run` on any thread."""

    def __init__(self, owner: AutoBackups, started: datetime, keep: int) -> None:
        self.owner = owner
        self.started = started
        self.keep = keep

    def run(self, cancelled: Callable[[], bool] | None = None) -> AutoBackup:
        """Write the backup and prune; raises :class:`AutoBackupError` (the earlier backups
        kept) or :class:`BackupCancelled`. The schedule hears the outcome either way."""
        owner = self.owner
        try:
            backup = take_backup(owner.project, self.keep, now=self.started, root=owner.root, cancelled=cancelled)
        except BaseException as exc:
            owner._finished(self, None, exc)
            raise
        owner._finished(self, backup, None)
        return backup
