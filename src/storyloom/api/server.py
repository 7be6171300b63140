"""``ApiServer``: the API on uvicorn in a background thread, with start, stop and restart.

The listening socket is bound in the caller's thread by :meth:`ApiServer.start`, so a port
already in use raises :class:`ApiStartError` with a message for a person, right away, and the
caller (the desktop app, the CLI) keeps working. The port, key and answer cache bound (from the
options) and the bind address are read at each start; ``restart()`` applies changed options.
"""

from __future__ import annotations

import errno
import logging
import socket
import sys
import threading
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Protocol

from storyloom.api.errors import ApiStartError
from storyloom.api.keys import api_key_problem
from storyloom.api.limits import (
    DEFAULT_HEAD_TIMEOUT,
    DEFAULT_KEEP_ALIVE_TIMEOUT,
    DEFAULT_MAX_CONNECTIONS,
    ConnectionLimits,
)
from storyloom.api.navigation import NavigationPort
from storyloom.api.protection import LOOPBACK_HOSTS, ProtectionSettings
from storyloom.api.provider import ProjectLike, ProjectProvider, as_provider

if TYPE_CHECKING:
    from storyloom.api.events import EventHub
    from storyloom.api.serving import UvicornThread
    from storyloom.export import ExportCache

log = logging.getLogger(__name__)

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 9001
MIB = 2**20


class ApiOptions(Protocol):
    """The part of ``storyloom.app.options.AppOptions`` the server reads.

    Also read when present: ``api_answer_cache_mb``, the bound of the answer cache in MiB (see
    :attr:`ApiServer.cache_bytes`).
    """

    api_key: str
    api_port: int
    username: str


def is_loopback(host: str) -> bool:
    host = host.strip().strip("[]").lower()
    return host in LOOPBACK_HOSTS or host.startswith("127.")


def exposure_warning(host: str) -> str | None:
    """The warning to show when binding anything but a loopback address, else ``None``."""
    if is_loopback(host):
        return None
    return (
        f"warning: the API listens on {host}, not only on this machine's loopback address: any "
        "computer that can reach this address can try keys. Use it only on a network you trust."
    )


def url_for(host: str, port: int) -> str:
    shown = "127.0.0.1" if host in ("", "0.0.0.0") else "::1" if host == "::" else host
    if ":" in shown:
        shown = f"[{shown}]"
    return f"http://{shown}:{port}"


def bind_socket(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port``; ``ApiStartError`` with a clear message otherwise."""
    if not isinstance(port, int) or isinstance(port, bool) or not 0 <= port <= 65535:
        raise ApiStartError(f"invalid API port {port!r}: choose a number from 1024 to 65535 in the options")
    try:
        infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise ApiStartError(f"cannot listen on {host!r}: unknown address ({exc.strerror})") from None
    # "localhost" may resolve to ::1 first while most clients try 127.0.0.1 first: prefer IPv4.
    infos.sort(key=lambda info: info[0] != socket.AF_INET)
    family, socktype, proto, _, address = infos[0]
    sock = socket.socket(family, socktype, proto)
    try:
        if sys.platform == "win32":
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_EXCLUSIVEADDRUSE, 1)  # type: ignore[attr-defined]
        else:
            # Lets a restart re-bind while old connections linger in TIME_WAIT; a port with a live
            # listener is still refused.
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        sock.bind(address)
        sock.listen(128)
        sock.setblocking(False)
    except OSError as exc:
        sock.close()
        if exc.errno in (errno.EADDRINUSE, getattr(errno, "WSAEADDRINUSE", -1)):
            raise ApiStartError(
                f"port {port} is already in use on {host}: another program (or another Storyloom) is "
                "listening there. Choose another API port in the options, or stop the other program."
            ) from None
        if exc.errno in (errno.EACCES, errno.EPERM):
            raise ApiStartError(
                f"not allowed to listen on {host}:{port}: ports below 1024 need administrator rights; "
                "choose a port from 1024 to 65535"
            ) from None
        if exc.errno == errno.EADDRNOTAVAIL:
            raise ApiStartError(f"cannot listen on {host}: this machine has no such address") from None
        raise ApiStartError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return sock


class ApiServer:
    """The local REST API running on uvicorn in a daemon thread.

    ``project_provider`` returns the loaded project (or ``None``: 503); ``options`` supplies
    ``api_key``, ``api_port`` and ``username``; ``navigation`` is the desktop app's port for
    ``/navigate`` (``None`` when headless: 409). ``on_warning`` receives the warning for a
    non-loopback ``host`` (default: logged). ``exports`` answers ``/game-export`` and
    ``/schema-export`` (default: a new :class:`~storyloom.export.cache.ExportCache` at each start,
    holding at most ``answer_cache_bytes`` of answers for an unchanged project: by default the
    options' ``api_answer_cache_mb`` MiB when they have it, else 64 MiB; ``0``: none held).

    Connection limits (see :mod:`storyloom.api.wire`): a request head must arrive whole within
    ``head_timeout`` seconds, an idle keep-alive connection is closed after
    ``keep_alive_timeout`` seconds, and past ``max_connections`` open connections a new one is
    answered 503 ``too_many_connections`` and closed.
    """

    def __init__(
        self,
        project_provider: ProjectProvider | Callable[[], ProjectLike | None],
        options: ApiOptions,
        navigation: NavigationPort | None = None,
        *,
        host: str = DEFAULT_HOST,
        allowed_hosts: Iterable[str] = (),
        allowed_origins: Iterable[str] = (),
        exports: ExportCache | None = None,
        heartbeat: float = 15.0,
        graceful_timeout: float = 3.0,
        on_warning: Callable[[str], None] | None = None,
        answer_cache_bytes: int | None = None,
        head_timeout: float = DEFAULT_HEAD_TIMEOUT,
        keep_alive_timeout: float = DEFAULT_KEEP_ALIVE_TIMEOUT,
        max_connections: int = DEFAULT_MAX_CONNECTIONS,
    ) -> None:
        # Checked now: a bad limit is a programming error, not something to find at start.
        ConnectionLimits(head_timeout, keep_alive_timeout, max_connections)
        self.head_timeout = head_timeout
        self.keep_alive_timeout = keep_alive_timeout
        self.max_connections = max_connections
        self.provider = as_provider(project_provider)
        self.options = options
        self.navigation = navigation
        self.host = host
        self.allowed_hosts = tuple(allowed_hosts)
        self.allowed_origins = tuple(allowed_origins)
        self.exports = exports
        # The bound of the export cache's answers, used when no ``exports`` is given; ``None``
        # follows the options (see cache_bytes).
        self.answer_cache_bytes = answer_cache_bytes
        self._cache: ExportCache | None = None  # the running server's export cache, when its own
        self.heartbeat = heartbeat
        self.graceful_timeout = graceful_timeout
        self.on_warning = on_warning or log.warning
        self._lock = threading.RLock()
        self._runner: UvicornThread | None = None
        self._hub: EventHub | None = None
        self._statuses: dict[str, dict[str, Any]] = {}  # the latest status event of each name
        self._port: int | None = None
        self._key: str | None = None

    # ------------------------------------------------------------------ state
    @property
    def running(self) -> bool:
        runner = self._runner
        return runner is not None and runner.alive

    @property
    def port(self) -> int | None:
        """The bound port (useful with ``api_port = 0``); ``None`` when stopped."""
        return self._port if self.running else None

    @property
    def url(self) -> str | None:
        """``http://127.0.0.1:9001`` while running, else ``None``."""
        port = self.port
        return None if port is None else url_for(self.host, port)

    @property
    def key(self) -> str | None:
        """The key the running server checks (a snapshot of the options at start)."""
        return self._key if self.running else None

    @property
    def cache_bytes(self) -> int:
        """The answer cache's bound the next start uses: ``answer_cache_bytes`` when given, else
        the options' ``api_answer_cache_mb`` in bytes, else
        :data:`~storyloom.export.cache.DEFAULT_ANSWER_BYTES`."""
        if self.answer_cache_bytes is not None:
            return self.answer_cache_bytes
        megabytes = getattr(self.options, "api_answer_cache_mb", None)
        if megabytes is None:
            from storyloom.export import DEFAULT_ANSWER_BYTES  # the exporters load with it

            return DEFAULT_ANSWER_BYTES
        return int(megabytes) * MIB

    @property
    def answer_cache(self) -> ExportCache | None:
        """The running server's export cache (``None`` when stopped or given ``exports``)."""
        return self._cache if self.running else None

    @property
    def open_connections(self) -> int:
        """Connections the running server is serving (0 when stopped)."""
        runner = self._runner
        return runner.limits.open_connections if runner is not None and self.running else 0

    @property
    def open_event_streams(self) -> int:
        hub = self._hub
        return hub.open_streams if hub is not None and self.running else 0

    def end_event_streams(self, reason: str = "project closed") -> None:
        """End the open ``/events`` streams (the project they follow closed or changed)."""
        hub = self._hub
        if hub is not None:
            hub.end_streams_threadsafe(reason)

    def publish_status(self, name: str, data: dict[str, Any]) -> None:
        """Send ``event: <name>`` (no id) with ``data`` on every ``/events`` stream, and first on
        each later one, also after a restart (the app's port for the state of its services, such
        as sync). From any thread; never blocks on the server."""
        self._statuses[name] = data
        hub = self._hub
        if hub is not None:
            hub.publish_status_threadsafe(name, data)

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> str:
        """Bind and serve; returns the URL. ``ApiStartError`` when it cannot (nothing left running)."""
        with self._lock:
            if self.running:
                return self.url or ""
            key = getattr(self.options, "api_key", "") or ""
            if not key.strip():
                raise ApiStartError(
                    "the API key is empty: the API cannot be enabled without a key. Generate one in the "
                    "options (or set STORYLOOM_API_KEY / pass --key-file for `storyloom serve`)."
                )
            problem = api_key_problem(key)
            if problem is not None:
                raise ApiStartError(problem)
            port = getattr(self.options, "api_port", DEFAULT_PORT)
            warning = exposure_warning(self.host)
            if warning:
                self.on_warning(warning)
            sock = bind_socket(self.host, port)
            bound_port = sock.getsockname()[1]
            protection = ProtectionSettings(
                api_key=key,
                port=bound_port,
                bind_host=self.host,
                allowed_hosts=frozenset(self.allowed_hosts),
                allowed_origins=frozenset(self.allowed_origins),
            )
            # The web stack is loaded by the first start: a session whose API is off never pays for it.
            from storyloom.api.app import create_app
            from storyloom.api.events import EventHub
            from storyloom.api.serving import UvicornThread
            from storyloom.export import ExportCache

            hub = EventHub(self.provider, heartbeat=self.heartbeat, statuses=dict(self._statuses))
            exports = self.exports
            self._cache = None
            if exports is None:
                exports = self._cache = ExportCache(max_bytes=self.cache_bytes)
            app = create_app(
                self.provider,
                protection,
                username=lambda: getattr(self.options, "username", None) or None,
                navigation=self.navigation,
                exports=exports,
                hub=hub,
            )
            limits = ConnectionLimits(self.head_timeout, self.keep_alive_timeout, self.max_connections)
            runner = UvicornThread(app, sock, graceful_timeout=self.graceful_timeout,
                                   name=f"storyloom-api-{bound_port}", limits=limits)
            self._runner, self._hub = runner, hub
            self._port, self._key = bound_port, key
            try:
                runner.start()
            except ApiStartError:
                self._runner = self._hub = None
                self._port = self._key = None
                raise
            return url_for(self.host, bound_port)

    def stop(self, timeout: float = 5.0) -> None:
        """Stop serving: end event streams, finish in-flight requests (briefly), close the socket."""
        with self._lock:
            self._stop_locked(timeout)

    def _stop_locked(self, timeout: float) -> None:
        runner, hub = self._runner, self._hub
        if runner is None:
            return
        if hub is not None:
            hub.close_threadsafe()
        runner.stop(timeout)
        self._runner = self._hub = None
        self._port = self._key = None

    def restart(self) -> str:
        """Stop, then start with the current options (port, key and answer cache bound)."""
        with self._lock:
            self._stop_locked(timeout=5.0)
            return self.start()

    def __enter__(self) -> ApiServer:
        self.start()
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.stop()
