"""Where a written file goes, and writing it without surprises.

One set of rules for every file Storyloom writes on a person's request: ``storyloom backup``,
``export`` (and its schema sidecar), ``schema`` and ``dump``, and the desktop app's export and
back-up, the Grid editor's CSV export and an attachment's saved copy. Its writer is also the one
atomic write of Storyloom's own files (:class:`AtomicWriter`, :func:`atomic_write`): the app's
options, the password file, the recent projects, a project's ``project.json`` and its index
table, the automatic backups.

- :func:`resolve_output`: an output ending in ``/`` (or the platform's separator), or naming a
  folder that exists, is a folder: created when absent (with its parents), and the file is the
  verb's default name inside it. Anything else names the file itself, in a folder that must
  exist. A folder is never replaced by a file.
- Whether an existing *file* is replaced is the caller's ``replace``: an export replaces the file
  it was told to write (what a build script wants); a backup does not (:class:`OutputExists`),
  unless forced, and in a folder it takes a free name beside the one already there
  (``name-2.json``).
- :class:`AtomicWriter` and :func:`atomic_write` write through a temporary file in the target's
  folder, flushed to disk (``fsync``, then the folder's entry: ``durable``, the default) and
  renamed over the target (``os.replace``), so the target is never half written; a failure
  removes the temporary file. ``mode`` (0600 for a private file) is the temporary file's mode
  from its creation, so the file is never readable by others, not even for a moment. They raise
  ``OSError`` and nothing of the output rules.
- :class:`AtomicFile` and :func:`write_chunks` add the output rules: a folder in the target's
  place is an :class:`OutputError`, and a file that must not replace another is linked into
  place (``os.link`` fails when the name is taken), so two writers cannot both take one name.
- The temporary file is held while it is written: an exclusive ``flock`` on POSIX (the kernel
  releases it when the process dies, however it dies). Every writer first removes the
  temporaries in its folder whose lock it can take (:func:`remove_stale_temps`): those of
  writers that were killed, never those of writers still running. Without ``fcntl`` (Windows) a
  temporary names its writer's process id, and only one whose process is gone is removed (an
  open file cannot be deleted there anyway).
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import BinaryIO, Self

from storyloom.errors import StoryloomError

try:
    import fcntl
except ImportError:  # Windows: the writer's process id, and open files that cannot be deleted
    fcntl = None  # type: ignore[assignment]

#: ``.<target name>.storyloom-<pid>-<8 hex>.tmp``: hidden, beside the target, and recognisable,
#: so a cleanup never touches another program's files.
TEMP_PATTERN = re.compile(r"^\..*\.storyloom-(?P<pid>\d{1,10})-[0-9a-f]{8}\.tmp$", re.DOTALL)
# A temporary file name keeps at most this many bytes of the target's name (names are limited to 255).
_NAME_PART = 100
# An empty temporary nobody holds may belong to a writer between creating and locking it: it is
# left alone until it is this old (seconds).
EMPTY_GRACE = 10.0
# A numbered name beside a taken one is looked for this far (name-2 ... name-N).
_MAX_NUMBER = 1000


class OutputError(StoryloomError):
    """An output that cannot be written where it was asked (a missing folder, a folder as the file)."""

    code = "output_refused"


class OutputExists(OutputError):
    """The file exists and the caller does not replace files."""

    code = "output_exists"

    def __init__(self, path: Path) -> None:
        super().__init__(f"{path} exists already")
        self.path = path


@dataclass(frozen=True)
class OutputPath:
    """Where to write: ``path``, and whether it is a default name in a folder the output named
    (``in_folder``: then a backup takes a free name beside a taken one)."""

    path: Path
    in_folder: bool = False


def names_folder(given: str | os.PathLike[str]) -> bool:
    """Whether ``given`` is written as a folder (it ends with a path separator)."""
    text = os.fspath(given)
    return text.endswith(tuple(sep for sep in ("/", os.sep, os.altsep) if sep))


def resolve_output(given: str | os.PathLike[str], default_name: str, *, replace: bool = True) -> OutputPath:
    """The file to write for the output ``given`` (a file, or a folder for ``default_name``).

    A folder is created when absent. Raises :class:`OutputError` when the file's folder does not
    exist or the file would replace a folder, and :class:`OutputExists` when the file named
    exists and ``replace`` is false (checked again when the file is put in place)."""
    text = os.fspath(given)
    if not text.strip():
        raise OutputError("no output file given")
    path = Path(text).expanduser()
    if names_folder(text) or path.is_dir():
        try:
            path.mkdir(parents=True, exist_ok=True)
        except FileExistsError:
            raise OutputError(f"cannot make the folder {path}: a file has that name") from None
        except OSError as exc:
            raise OutputError(f"cannot make the folder {path}: {exc.strerror or exc}") from None
        target = OutputPath(path / default_name, in_folder=True)
    else:
        folder = path.parent
        if not folder.is_dir():
            raise OutputError(
                f"cannot write {path}: the folder {folder} does not exist (an output ending in "
                f"{os.sep} is a folder, created when absent)"
            )
        target = OutputPath(path)
    if target.path.is_dir():
        raise OutputError(f"cannot write {target.path}: it is a folder")
    if not replace and not target.in_folder and os.path.lexists(target.path):
        raise OutputExists(target.path)
    return target


# ------------------------------------------------------------------------------ writing


class AtomicWriter:
    """A file written through a held temporary beside ``target`` (``temp``); :meth:`commit`
    renames it over ``target`` (``path`` is then the file written), :meth:`abort` (or leaving the
    ``with`` block by an exception) removes it.

    ``mode``: the file's mode, set on the temporary file from its creation (``None``: an ordinary
    file, whose mode the umask decides). ``durable``: flush the file and then the folder's entry
    to disk (``fsync``); a cache that is rebuilt when lost may skip both. A writer that needs a
    path (SQLite's backup) may fill ``temp`` by its name before :meth:`commit`. Raises
    ``OSError`` when the file system refuses."""

    def __init__(self, target: Path | str, *, mode: int | None = None, durable: bool = True) -> None:
        self.target = Path(target)
        self.path = self.target
        self.durable = durable
        self.written = 0
        remove_stale_temps(self.target.parent)
        self.temp, fd = _create_temp(self.target, mode)
        self._handle: BinaryIO | None = os.fdopen(fd, "wb", buffering=1 << 20)

    def write(self, chunk: str | bytes) -> None:
        """Write text (as UTF-8) or bytes."""
        data = chunk.encode("utf-8") if isinstance(chunk, str) else chunk
        assert self._handle is not None, "the file is closed"
        self._handle.write(data)
        self.written += len(data)

    def commit(self) -> Path:
        """Flush to disk and put the file in place (holding the temporary until it is renamed)."""
        handle = self._handle
        assert handle is not None, "the file is closed"
        try:
            handle.flush()
            if self.durable:
                os.fsync(handle.fileno())
            if fcntl is None:  # Windows renames only closed files
                self._close()
            self.path = self._put_in_place()
        except BaseException:
            self.abort()
            raise
        self._close()
        if self.durable:
            _sync_folder(self.path.parent)
        return self.path

    def _put_in_place(self) -> Path:
        os.replace(self.temp, self.target)
        return self.target

    def abort(self) -> None:
        """Remove the temporary file (nothing is put in place)."""
        self._close()
        with contextlib.suppress(OSError):
            os.unlink(self.temp)

    def _close(self) -> None:
        if self._handle is not None:
            with contextlib.suppress(OSError):
                self._handle.close()
            self._handle = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if kind is None:
            self.commit()
        else:
            self.abort()


def atomic_write(target: Path | str, data: str | bytes, *, mode: int | None = None, durable: bool = True) -> int:
    """Write ``data`` (text as UTF-8, or bytes) over ``target`` atomically (an
    :class:`AtomicWriter`); returns the bytes written. ``OSError`` when the file system refuses:
    the previous file is then as it was, and no temporary file is left."""
    with AtomicWriter(target, mode=mode, durable=durable) as out:
        out.write(data)
    return out.written


class AtomicFile(AtomicWriter):
    """An :class:`AtomicWriter` with the output rules: ``replace``: whether an existing file may
    be replaced (never a folder: :class:`OutputError`); ``numbered``: when it may not, take
    ``name-2.ext``, ``name-3.ext``... instead of failing (:class:`OutputExists`)."""

    def __init__(self, target: Path | str, *, replace: bool = True, numbered: bool = False,
                 mode: int | None = None, durable: bool = True) -> None:
        self.replace = replace
        self.numbered = numbered
        super().__init__(target, mode=mode, durable=durable)

    def _put_in_place(self) -> Path:
        return _place(self.temp, self.target, self.replace, self.numbered)


def write_chunks(target: Path | str, chunks: Iterable[str | bytes], *, replace: bool = True,
                 numbered: bool = False, mode: int | None = None) -> tuple[Path, int]:
    """Write ``chunks`` (text as UTF-8, or bytes) to ``target`` atomically; ``(the file written,
    bytes written)``. See :class:`AtomicFile` for ``replace``, ``numbered`` and ``mode``."""
    with AtomicFile(target, replace=replace, numbered=numbered, mode=mode) as out:
        for chunk in chunks:
            out.write(chunk)
    return out.path, out.written


def _create_temp(target: Path, mode: int | None = None) -> tuple[Path, int]:
    """A new temporary file beside ``target``, held (locked) by this process; ``mode`` (when
    given) from its creation, and exactly that whatever the umask."""
    # O_EXCL: a new file, never one found there (nor a symbolic link's target).
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)
    while True:
        temp = target.with_name(f".{_short(target.name)}.storyloom-{os.getpid()}-{os.urandom(4).hex()}.tmp")
        try:
            # No mode: an ordinary file, the umask decides, as for any file.
            fd = os.open(temp, flags, 0o666 if mode is None else mode)
        except FileExistsError:
            continue
        try:
            if mode is not None and os.name == "posix":
                os.fchmod(fd, mode)  # the umask may have taken bits the mode asks for
        except BaseException:
            os.close(fd)
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise
        if fcntl is None:
            return temp, fd
        try:
            # Blocking: a cleanup may hold it for an instant (it leaves a new, empty one alone).
            fcntl.flock(fd, fcntl.LOCK_EX)
            if os.path.samestat(os.stat(temp), os.fstat(fd)):
                return temp, fd
        except FileNotFoundError:
            pass
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)  # removed meanwhile: another name


def _short(name: str) -> str:
    """The start of ``name``, at most :data:`_NAME_PART` bytes (a name has at most 255)."""
    return name.encode("utf-8", "surrogateescape")[:_NAME_PART].decode("utf-8", "ignore")


def _numbered(target: Path, number: int) -> Path:
    return target if number == 1 else target.with_name(f"{target.stem}-{number}{target.suffix}")


def _place(temp: Path, target: Path, replace: bool, numbered: bool) -> Path:
    """Put ``temp`` in place as ``target`` (or the first free numbered name); the name used."""
    if replace:
        if target.is_dir():
            raise OutputError(f"cannot write {target}: it is a folder")
        os.replace(temp, target)
        return target
    for number in range(1, _MAX_NUMBER + 1 if numbered else 2):
        candidate = _numbered(target, number)
        try:
            _place_new(temp, candidate)
        except FileExistsError:
            continue
        return candidate
    raise OutputExists(target)


def _place_new(temp: Path, candidate: Path) -> None:
    """Give ``temp`` the name ``candidate`` unless that name exists (``FileExistsError``)."""
    try:
        os.link(temp, candidate)  # fails when the name is taken, whatever happens meanwhile
    except FileExistsError:
        raise
    except (OSError, AttributeError, NotImplementedError):
        # No hard links here (some file systems): check, then rename (on Windows the rename
        # itself fails when the name is taken).
        if os.path.lexists(candidate):
            raise FileExistsError(candidate) from None
        if os.name == "nt":
            os.rename(temp, candidate)
        else:
            os.replace(temp, candidate)
        return
    os.unlink(temp)


def _sync_folder(folder: Path) -> None:
    """Flush the folder's entry of the renamed file to disk (POSIX; elsewhere a no-op)."""
    with contextlib.suppress(OSError, AttributeError):
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


# ------------------------------------------------------------------------------ cleanup


def remove_stale_temps(folder: Path | str) -> list[Path]:
    """Remove the temporary files in ``folder`` left by writers that died (killed, power loss);
    returns them. A temporary whose writer still runs, in any process, is kept."""
    removed: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        match = TEMP_PATTERN.match(entry.name)
        if match is None:
            continue
        with contextlib.suppress(OSError):
            if not entry.is_file(follow_symlinks=False):
                continue
        path = Path(entry.path)
        if _remove_if_stale(path, int(match["pid"])):
            removed.append(path)
    return removed


def _remove_if_stale(path: Path, pid: int) -> bool:
    if fcntl is None:
        return _remove_if_writer_gone(path, pid)
    try:
        fd = os.open(path, os.O_RDWR | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        try:  # a temporary this user may read but not write: a shared lock still tells
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            return False  # gone: its writer finished (or another cleanup took it)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False  # held: its writer is running
        info = os.fstat(fd)
        try:
            if not os.path.samestat(os.stat(path), info):
                return False  # renamed into place meanwhile, and the name reused
        except FileNotFoundError:
            return False
        if info.st_size == 0 and time.time() - info.st_mtime < EMPTY_GRACE:
            return False  # a writer may be between creating it and locking it
        os.unlink(path)  # still holding it: a writer waiting for the lock sees it gone
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def _remove_if_writer_gone(path: Path, pid: int) -> bool:
    """The fallback without ``fcntl``: the process named in the file's name is gone."""
    if pid == os.getpid() or writer_alive(pid):
        return False
    try:
        os.unlink(path)  # on Windows this also fails while any process has the file open
    except OSError:
        return False
    return True


def writer_alive(pid: int) -> bool:
    """Whether process ``pid`` runs on this machine (the fallback's liveness check)."""
    if pid <= 0:
        return False
    if os.name == "nt":
        return _windows_process_alive(pid)
    try:
        os.kill(pid, 0)  # signal 0: checks the process exists, sends nothing
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    except OSError:
        return True
    return True


def _windows_process_alive(pid: int) -> bool:  # pragma: no cover - Windows only
    import ctypes

    kernel32 = ctypes.windll.kernel32  # type: ignore[attr-defined]
    query_limited_information, still_active, access_denied = 0x1000, 259, 5
    handle = kernel32.OpenProcess(query_limited_information, False, pid)
    if not handle:
        return kernel32.GetLastError() == access_denied  # exists, but not ours to ask
    try:
        code = ctypes.c_ulong()
        if not kernel32.GetExitCodeProcess(handle, ctypes.byref(code)):
            return True
        return code.value == still_active
    finally:
        kernel32.CloseHandle(handle)

