"""``ApiController``: the desktop app's API switch, following the app options.

The app tells the controller what happened (``project_opened``, ``project_closed``,
``options_changed``); the controller keeps the server in the state the options ask for:

- running when a project is open, ``api_enabled`` is true and the key is not empty;
- stopped when the project closes or the option is switched off;
- restarted when the port, the key or the answer cache's bound changes (a new project only
  ends the open event streams).

It never raises to the app: a failure to start (port in use, empty key) is kept in
``status.error`` and passed to ``on_status``, so the app shows it and keeps working.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from storyloom.api.errors import ApiStartError
from storyloom.api.navigation import NavigationPort
from storyloom.api.provider import ProjectLike
from storyloom.api.server import ApiOptions, ApiServer

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ApiStatus:
    running: bool
    url: str | None = None
    error: str | None = None


class ApiController:
    """Owns one :class:`ApiServer` whose project provider is the controller itself."""

    def __init__(
        self,
        options: ApiOptions,
        navigation: NavigationPort | None = None,
        *,
        on_status: Callable[[ApiStatus], None] | None = None,
        **server_options: Any,
    ) -> None:
        self._options = options
        self._project: ProjectLike | None = None
        self._on_status = on_status
        self._lock = threading.RLock()
        self._applied: tuple[str, int, int] | None = None  # (key, port, cache bytes) of the running server
        self._status = ApiStatus(running=False)
        self.server = ApiServer(self, options, navigation, **server_options)

    # The ProjectProvider interface.
    def current_project(self) -> ProjectLike | None:
        return self._project

    @property
    def options(self) -> ApiOptions:
        return self._options

    @property
    def status(self) -> ApiStatus:
        return self._status

    # ------------------------------------------------------------------ events from the app
    def project_opened(self, project: ProjectLike) -> ApiStatus:
        with self._lock:
            previous, self._project = self._project, project
            if previous is not None and previous is not project:
                self.server.end_event_streams("project closed")
            return self._reconcile()

    def project_closed(self) -> ApiStatus:
        with self._lock:
            self._project = None
            return self._reconcile()

    def options_changed(self, options: ApiOptions | None = None) -> ApiStatus:
        """Call after the options were edited (or pass the new options object)."""
        with self._lock:
            if options is not None:
                self._options = options
                self.server.options = options
            return self._reconcile()

    def publish_status(self, name: str, data: dict[str, Any]) -> None:
        """Hand the state of one of the app's services to the API's ``/events`` streams
        (``event: <name>``); kept for streams opened later. Never raises."""
        try:
            self.server.publish_status(name, data)
        except Exception:  # the API must never break the service that reports to it
            log.exception("publishing the %s status to the API failed", name)

    def shutdown(self) -> None:
        """Stop the server (the app is quitting)."""
        with self._lock:
            self.server.stop()
            self._applied = None
            self._set_status(ApiStatus(running=False))

    # ------------------------------------------------------------------ state machine
    def _wanted(self) -> tuple[str, int, int] | None:
        options = self._options
        if self._project is None or not getattr(options, "api_enabled", False):
            return None
        key = getattr(options, "api_key", "") or ""
        return (key, getattr(options, "api_port", 9001), self.server.cache_bytes)

    def _reconcile(self) -> ApiStatus:
        wanted = self._wanted()
        if wanted is None:
            if self.server.running:
                self.server.stop()
            self._applied = None
            return self._set_status(ApiStatus(running=False))
        if self.server.running and self._applied == wanted:
            return self._status
        try:
            url = self.server.restart() if self.server.running else self.server.start()
        except ApiStartError as exc:
            log.warning("local API not started: %s", exc)
            self._applied = None
            return self._set_status(ApiStatus(running=False, error=str(exc)))
        self._applied = wanted
        return self._set_status(ApiStatus(running=True, url=url))

    def _set_status(self, status: ApiStatus) -> ApiStatus:
        changed = status != self._status
        self._status = status
        if changed and self._on_status is not None:
            try:
                self._on_status(status)
            except Exception:  # the app's callback must not break the switch
                log.exception("API status callback failed")
        return status
