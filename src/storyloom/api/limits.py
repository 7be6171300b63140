"""The API's limits on connections and request heads, and the log of a trouble that repeats:
plain values, so the server's settings are known without loading the HTTP stack
(:mod:`storyloom.api.wire` enforces them)."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger(__name__)

MAX_HEAD_BYTES = 64 * 1024
DEFAULT_HEAD_TIMEOUT = 10.0  # seconds to deliver a whole request head
DEFAULT_KEEP_ALIVE_TIMEOUT = 5.0  # seconds a connection may wait idle between requests
DEFAULT_MAX_CONNECTIONS = 256
REPORT_INTERVAL = 60.0  # seconds between two log lines about the same trouble


class RateLimitedLog:
    """Logs a trouble's first occurrence, then at most one line per ``interval`` with how many
    occurrences that line stands for: a flood of them is a few lines, not one per event."""

    def __init__(self, interval: float = REPORT_INTERVAL) -> None:
        self.interval = interval
        self._last: float | None = None
        self._unreported = 0

    def report(self, message: str, *args: Any) -> None:
        now = time.monotonic()
        if self._last is not None and now - self._last < self.interval:
            self._unreported += 1
            return
        if self._unreported:
            message += f" ({self._unreported} more times since the last report)"
        self._last, self._unreported = now, 0
        log.warning(message, *args)


@dataclass
class ConnectionLimits:
    """The limits of one running server, and the connections they count (shared by all of its
    connections, on the server's event loop thread)."""

    head_timeout: float = DEFAULT_HEAD_TIMEOUT
    keep_alive_timeout: float = DEFAULT_KEEP_ALIVE_TIMEOUT
    max_connections: int = DEFAULT_MAX_CONNECTIONS
    served: set[Any] = field(default_factory=set)
    refused: set[Any] = field(default_factory=set)
    over_cap_log: RateLimitedLog = field(default_factory=RateLimitedLog)

    def __post_init__(self) -> None:
        if not self.head_timeout > 0 or not self.keep_alive_timeout > 0:
            raise ValueError("the head and keep-alive timeouts must be positive numbers of seconds")
        if self.max_connections < 1:
            raise ValueError("max_connections must be at least 1")

    @property
    def open_connections(self) -> int:
        """Connections being served (the refused ones, closing, are not counted)."""
        return len(self.served)
