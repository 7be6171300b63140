"""The face of :mod:`storyloom.app`: read by :func:`lazy_loader.attach_stub` (each name is
imported from its module at first use, so a quick CLI verb pays only for what it touches)
and by type checkers."""

from .events import (
    ApiStateChanged as ApiStateChanged,
    DocumentChanged as DocumentChanged,
    EventBus as EventBus,
    LockBroken as LockBroken,
    LockSettled as LockSettled,
    Origin as Origin,
    SessionClosed as SessionClosed,
    SessionEvent as SessionEvent,
    SyncStateChanged as SyncStateChanged,
)
from .options import (
    AppOptions as AppOptions,
    OptionsError as OptionsError,
    default_username as default_username,
)
from .session import (
    ProjectSession as ProjectSession,
)
from .workspace import (
    Workspace as Workspace,
)
