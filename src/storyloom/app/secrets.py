"""Remote passwords: in the OS keyring when there is one, else in a private file.

``PasswordStore`` keeps one password per key, ``f"{project_id}|{server}|{username}"``
(:func:`password_key`). It uses the ``keyring`` library when a real backend exists (macOS
Keychain, Windows Credential Locker, Secret Service/KWallet on Linux); on a machine without one
(a server, a container: ``keyring``'s ``fail`` or ``null`` backend, or a chainer with no
backend) it uses ``remote-passwords.json`` in the per-machine config directory, created with
mode 0600 so only its owner can read it.

``STORYLOOM_PASSWORD_STORE=file`` (or ``backend="file"``) forces the file: the tests set it so
that none touches the real keyring. ``STORYLOOM_REMOTE_PASSWORD`` wins over both for reading
(:func:`resolve_password`), for scripts and build servers.

A password is never logged, printed or put in an exception message; ``repr`` shows the backend
only.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from storyloom import paths
from storyloom.errors import Fix, StoryloomError, advice
from storyloom.output_files import atomic_write

PASSWORD_ENV = "STORYLOOM_REMOTE_PASSWORD"
#: Where a set-up or an invitation reads a server admin's password (never kept).
ADMIN_PASSWORD_ENV = "STORYLOOM_ADMIN_PASSWORD"
BACKEND_ENV = "STORYLOOM_PASSWORD_STORE"
BACKENDS: tuple[str, ...] = ("auto", "keyring", "file")
KEYRING_SERVICE = "storyloom"
PASSWORD_FILE = "remote-passwords.json"
FILE_MODE = 0o600

try:  # one lock per process for the file's read-modify-write; fcntl adds one across processes
    import fcntl
except ImportError:  # Windows: the file is in the user's private profile anyway
    fcntl = None  # type: ignore[assignment]

_FILE_LOCK = threading.Lock()


class PasswordStoreError(StoryloomError):
    """The password could not be kept or read (a locked keyring, an unreadable file)."""

    code = "password_store_failed"
    fixes = ("advice", "set_password")


def password_key(project_id: str, server: str, username: str) -> str:
    """The key of one remote password: the project, the server and the user name."""
    return f"{project_id}|{server}|{username}"


def usable_keyring() -> Any | None:
    """The ``keyring`` backend when it is a real one, else None (the library is missing, or it
    found only its ``fail``/``null`` backend or an empty chainer)."""
    try:
        import keyring
        from keyring.backends import chainer, fail
    except ImportError:
        return None
    try:
        backend = keyring.get_keyring()
    except Exception:  # noqa: BLE001 - a broken keyring configuration: the file is the safe place
        return None
    name = type(backend).__module__ + "." + type(backend).__name__
    if isinstance(backend, fail.Keyring) or name.startswith("keyring.backends.null"):
        return None
    if isinstance(backend, chainer.ChainerBackend) and not list(backend.backends):
        return None
    return backend


class PasswordStore:
    """Passwords by key, in the OS keyring or a 0600 file in ``config_dir`` (default: the
    per-machine config directory, ``storyloom.paths.config_dir()``).

    ``backend``: ``"auto"`` (the default; ``$STORYLOOM_PASSWORD_STORE`` when set), ``"keyring"``
    or ``"file"``.
    """

    def __init__(self, config_dir: Path | str | None = None, *, backend: str | None = None) -> None:
        self._config_dir = Path(config_dir) if config_dir is not None else None
        choice = (backend or os.environ.get(BACKEND_ENV) or "auto").strip().lower()
        if choice not in BACKENDS:
            raise PasswordStoreError(
                f"unknown password store {choice!r} (from {BACKEND_ENV} or the caller): "
                f"use one of {', '.join(BACKENDS)}"
            )
        self._choice = choice
        if choice == "keyring" and self._keyring is None:
            raise PasswordStoreError(
                "no OS keyring is available on this machine; unset "
                f"{BACKEND_ENV} (or set it to 'file') to keep passwords in a private file"
            )

    # ------------------------------------------------------------------ where
    @functools.cached_property
    def _keyring(self) -> Any:
        # Looking for a keyring backend takes a good part of a second: done when a password is
        # first needed, not when a project window opens.
        return None if self._choice == "file" else usable_keyring()

    @property
    def uses_keyring(self) -> bool:
        return self._keyring is not None

    @property
    def file_path(self) -> Path:
        directory = self._config_dir if self._config_dir is not None else paths.config_dir()
        return directory / PASSWORD_FILE

    @property
    def backend_name(self) -> str:
        """Where passwords go, for people: ``keyring (SecretService Keyring)`` or ``file (<path>)``."""
        if self._keyring is not None:
            name = getattr(self._keyring, "name", None) or type(self._keyring).__name__
            return f"keyring ({name})"
        return f"file ({self.file_path})"

    def __repr__(self) -> str:
        return f"PasswordStore({self.backend_name})"

    # ------------------------------------------------------------------ the passwords
    def get(self, key: str) -> str | None:
        """The password kept for ``key``, or None. The file is read too when the keyring is used,
        for a password kept there before the keyring existed."""
        if self._keyring is not None:
            try:
                found = self._keyring.get_password(KEYRING_SERVICE, key)
            except Exception as exc:  # noqa: BLE001 - any backend's failure becomes a PasswordStoreError with its text
                raise PasswordStoreError(self._keyring_failure("read", exc)) from None
            if found is not None:
                return found
        value = self._read_file().get(key)
        return value if isinstance(value, str) else None

    def set(self, key: str, password: str) -> None:
        """Keep ``password`` for ``key`` (replacing the one kept before)."""
        if not isinstance(password, str):
            raise PasswordStoreError("a password must be text")
        if self._keyring is not None:
            try:
                self._keyring.set_password(KEYRING_SERVICE, key, password)
            except Exception as exc:  # noqa: BLE001 - any backend's failure becomes a PasswordStoreError with its text
                raise PasswordStoreError(self._keyring_failure("save", exc)) from None
            self._forget_in_file(key)  # one place per password
            return
        with self._file_locked():
            data = self._read_file()
            data[key] = password
            self._write_file(data)

    def delete(self, key: str) -> None:
        """Forget the password of ``key`` wherever it is kept (nothing happens if it is not)."""
        if self._keyring is not None:
            with contextlib.suppress(Exception):  # PasswordDeleteError when absent
                self._keyring.delete_password(KEYRING_SERVICE, key)
        self._forget_in_file(key)

    def where(self, key: str) -> str | None:
        """Where the password of ``key`` is kept (``keyring (...)`` or ``file (...)``), or None."""
        if self._keyring is not None:
            with contextlib.suppress(Exception):
                if self._keyring.get_password(KEYRING_SERVICE, key) is not None:
                    return self.backend_name
        if key in self._read_file():
            return f"file ({self.file_path})"
        return None

    # ------------------------------------------------------------------ the file
    def _keyring_failure(self, action: str, exc: Exception) -> str:
        # The exception's text is the backend's, never the password's.
        return (
            f"cannot {action} the password in the OS keyring ({type(exc).__name__}: {exc}); unlock the "
            f"keyring, or set {BACKEND_ENV}=file to keep passwords in a private file instead"
        )

    def _read_file(self) -> dict[str, Any]:
        path = self.file_path
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except OSError as exc:
            raise PasswordStoreError(f"cannot read {path}: {exc.strerror or exc}") from None
        try:
            data = json.loads(text)
        except ValueError:
            raise PasswordStoreError(f"{path} is damaged (not JSON)",
                                     fix=advice("delete it", then=Fix("set_password"))) from None
        return data if isinstance(data, dict) else {}

    def _write_file(self, data: dict[str, Any]) -> None:
        path = self.file_path
        path.parent.mkdir(parents=True, exist_ok=True)
        # A temporary file created 0600 (never readable by others, whatever the umask), flushed,
        # then moved in; a failure removes it.
        atomic_write(path, json.dumps(data, indent=1, sort_keys=True), mode=FILE_MODE)

    def _forget_in_file(self, key: str) -> None:
        if not self.file_path.exists():
            return
        with self._file_locked():
            data = self._read_file()
            if key in data:
                del data[key]
                self._write_file(data)

    @contextlib.contextmanager
    def _file_locked(self) -> Iterator[None]:
        """The file's read-modify-write, one at a time (threads here, processes through ``flock``)."""
        with _FILE_LOCK:
            if fcntl is None:
                yield
                return
            lock_path = self.file_path.with_name(self.file_path.name + ".lock")
            lock_path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, FILE_MODE)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                yield
            finally:
                os.close(fd)


def resolve_password(passwords: PasswordStore | None, key: str) -> str | None:
    """The password to use: ``$STORYLOOM_REMOTE_PASSWORD`` when set, else the one kept for ``key``."""
    from_env = os.environ.get(PASSWORD_ENV)
    if from_env is not None:
        return from_env
    return passwords.get(key) if passwords is not None else None
