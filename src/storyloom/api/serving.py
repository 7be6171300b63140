"""The running part of the API server: uvicorn serving an ASGI app on a bound socket, in a
daemon thread. Imported when a server starts (:meth:`storyloom.api.server.ApiServer.start`), so
a session whose API is off never loads uvicorn or the web framework."""

from __future__ import annotations

import asyncio
import errno
import functools
import logging
import socket
import threading
import time
from typing import Any

import uvicorn

from storyloom.api.errors import ApiStartError
from storyloom.api.limits import MAX_HEAD_BYTES, ConnectionLimits, RateLimitedLog
from storyloom.api.wire import JsonH11Protocol

log = logging.getLogger("storyloom.api.server")

# errno values of an accept() that failed for want of a resource (asyncio retries it every second).
OUT_OF_RESOURCES = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})


class _Server(uvicorn.Server):
    """uvicorn's server; an accept() that runs out of file descriptors is one log line a minute
    (with a count), not asyncio's traceback on every retry."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.out_of_resources_log = RateLimitedLog()

    async def serve(self, sockets: list[socket.socket] | None = None) -> None:
        asyncio.get_running_loop().set_exception_handler(self._loop_exception)
        await super().serve(sockets)

    def _loop_exception(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        exc = context.get("exception")
        if isinstance(exc, OSError) and exc.errno in OUT_OF_RESOURCES:
            self.out_of_resources_log.report(
                "the API cannot accept new connections: %s (the process has no file descriptors or "
                "memory left); it retries every second. Close idle connections, or raise the limit "
                "(`ulimit -n`) if this load is expected.", exc.strerror or exc)
            return
        if self.should_exit and isinstance(exc, ValueError) and "_start_serving" in str(context.get("message")):
            # asyncio schedules one accept retry per failed accept() of a burst (up to the
            # backlog, 2048); those still pending when the server stops find the listening
            # socket closed. Nothing is lost: the server is stopping.
            return
        loop.default_exception_handler(context)


class UvicornThread:
    """One ASGI app served by uvicorn on an already bound socket, in a daemon thread.

    Shared by :class:`ApiServer` and the benchmark's reference app, so both are served the same
    way (h11, asyncio, no access log, the same connection limits).
    """

    def __init__(self, app: Any, sock: socket.socket, *, graceful_timeout: float = 3.0,
                 name: str = "storyloom-api", limits: ConnectionLimits | None = None) -> None:
        self.sock = sock
        self.limits = limits if limits is not None else ConnectionLimits()
        config = uvicorn.Config(
            app,
            log_config=None,
            log_level="warning",
            access_log=False,
            lifespan="off",
            timeout_graceful_shutdown=max(1, round(graceful_timeout)),
            timeout_keep_alive=self.limits.keep_alive_timeout,  # type: ignore[arg-type]
            server_header=False,
            proxy_headers=False,  # no proxy in front: never trust X-Forwarded-* headers
            # h11, with JSON refusals, the head deadline and the connection cap (api.wire)
            http=functools.partial(JsonH11Protocol, limits=self.limits),  # type: ignore[arg-type]
            h11_max_incomplete_event_size=MAX_HEAD_BYTES,
        )
        self.server = _Server(config)
        self.error: BaseException | None = None
        self.forced = False  # set by stop() when uvicorn had to be forced to exit
        self.thread = threading.Thread(target=self._run, name=name, daemon=True)

    @property
    def alive(self) -> bool:
        return self.thread.is_alive()

    def _run(self) -> None:
        try:
            self.server.run(sockets=[self.sock])
        except BaseException as exc:  # noqa: BLE001 - server thread: reported by start() or logged
            self.error = exc
            log.error("the API server stopped unexpectedly: %r", exc)
        finally:
            try:
                self.sock.close()
            except OSError:
                pass

    def start(self, timeout: float = 10.0) -> None:
        """Start serving; returns once uvicorn accepts connections."""
        self.thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                self.stop(2.0)
                raise ApiStartError(f"the API server did not start: {self.error!r}")
            time.sleep(0.005)

    def stop(self, timeout: float = 5.0) -> None:
        """Ask uvicorn to exit; force it when requests in flight outlast ``timeout``."""
        self.server.should_exit = True
        self.thread.join(timeout)
        if self.thread.is_alive():
            self.forced = True
            self.server.force_exit = True
            self.thread.join(timeout)
        if self.thread.is_alive():  # pragma: no cover - uvicorn ignores force_exit only if wedged
            log.error("the API server thread did not stop within %.1f s", 2 * timeout)
        try:
            self.sock.close()
        except OSError:
            pass
