"""``live_signals().changed(project_id)``: a project's Live variable state was written (by the
Scenario editor or the player); the Variables tables follow it. One object for the process, so
the writers and the tables need not know each other."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal


class LiveSignals(QObject):
    """``changed(project_id)`` when an editor or the player wrote a project's Live state."""

    changed = Signal(str)


_LIVE: LiveSignals | None = None


def live_signals() -> LiveSignals:
    global _LIVE
    if _LIVE is None:
        _LIVE = LiveSignals()
    return _LIVE
