"""A session's ``DocumentChanged`` events as a test reads them: collected on the session's event
thread, taken once the session has delivered everything written so far."""

from __future__ import annotations

from typing import Any

from storyloom.app import DocumentChanged


class Changes:
    """The session's DocumentChanged events, collected on its event thread."""

    def __init__(self, session: Any) -> None:
        self.session = session
        self.events: list[DocumentChanged] = []
        session.subscribe(lambda e: self.events.append(e) if isinstance(e, DocumentChanged) else None)

    def take(self) -> list[DocumentChanged]:
        self.session.wait_for_events()
        events, self.events = self.events, []
        return events
