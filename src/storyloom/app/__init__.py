"""The Qt-free session layer: the user's :class:`Workspace` and one :class:`ProjectSession` per open
project, with its ordered stream of typed events. The desktop app, ``storyloom serve`` and the
CLI drive projects through it; see docs/architecture.md."""

from storyloom.app.events import (
    ApiStateChanged,
    DocumentChanged,
    EventBus,
    LockBroken,
    LockSettled,
    Origin,
    SessionClosed,
    SessionEvent,
    SyncStateChanged,
)
from storyloom.app.options import AppOptions, OptionsError, default_username
from storyloom.app.session import ProjectSession
from storyloom.app.workspace import Workspace

__all__ = [
    "ApiStateChanged",
    "AppOptions",
    "DocumentChanged",
    "EventBus",
    "LockBroken",
    "LockSettled",
    "OptionsError",
    "Origin",
    "ProjectSession",
    "SessionClosed",
    "SessionEvent",
    "SyncStateChanged",
    "Workspace",
    "default_username",
]
