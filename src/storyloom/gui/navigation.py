"""The API's :class:`~storyloom.api.navigation.NavigationPort` for the desktop app.

``/navigate`` calls :meth:`GuiNavigation.navigate` on a server worker thread. The port hands
the request to the GUI thread through a queued signal and answers at once: the API has already
checked that the document exists and opens in a tab, so the window only opens and focuses it.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal


class GuiNavigation(QObject):
    """``requested(route, doc_id)`` is emitted for every accepted ``/navigate`` call; the window
    connects it (queued) to the slot that opens the tab and raises itself."""

    requested = Signal(str, str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.attached = False

    def navigate(self, route: str, doc_id: str) -> bool:
        """Called from a server thread; returns at once. ``False`` (the API answers 409) while
        no window is attached to open the document."""
        if not self.attached:
            return False
        self.requested.emit(route, doc_id)
        return True
