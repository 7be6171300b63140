"""Retry delays after a network error (docs/protocol.md 3.7).

The first delay is random in [0, 2) seconds; each next one is random in [d, 2d); once that
would pass 600 s it stays random in [300, 600). The replicator resets the delay to 0 as soon
as a batch goes through again.
"""

from __future__ import annotations

import random
from collections.abc import Callable

BackoffFunction = Callable[[float], float]

FIRST_MAX = 2.0
CAP_LOW = 300.0
CAP_HIGH = 600.0


def default_backoff(previous: float, rng: random.Random | None = None) -> float:
    """The delay in seconds to wait after a failure, given the previous delay (0 at first)."""
    draw = (rng or random).uniform
    if previous <= 0:
        return draw(0.0, FIRST_MAX)
    low, high = previous, previous * 2
    if high > CAP_HIGH:
        low, high = CAP_LOW, CAP_HIGH
    return draw(low, high)


def capped_backoff(maximum: float) -> BackoffFunction:
    """The default schedule with every delay capped at ``maximum`` seconds (tests, CLI)."""

    def backoff(previous: float) -> float:
        return min(default_backoff(previous), maximum)

    return backoff
