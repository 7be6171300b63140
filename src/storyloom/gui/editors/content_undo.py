"""One undoable step of an editor whose domain returns a new ``content`` for every edit (the
canvas and the map): the content before and after, and what shows a content. Steps that share
a ``merge_key`` and follow each other (typing in a note, one brush stroke) merge into one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtGui import QUndoCommand

_MERGE_IDS: dict[str, int] = {}


class ContentStep(QUndoCommand):
    """Redo shows ``after``, undo shows ``before`` (through ``show``)."""

    def __init__(self, text: str, before: dict[str, Any], after: dict[str, Any],
                 show: Callable[[dict[str, Any]], None], merge_key: str | None = None) -> None:
        super().__init__(text)
        self.before = before
        self.after = after
        self.show = show
        self.merge_key = merge_key

    def id(self) -> int:
        if self.merge_key is None:
            return -1
        return _MERGE_IDS.setdefault(self.merge_key, len(_MERGE_IDS) + 1)

    def mergeWith(self, other: QUndoCommand) -> bool:
        if not isinstance(other, ContentStep) or other.merge_key != self.merge_key or self.merge_key is None:
            return False
        self.after = other.after
        return True

    def redo(self) -> None:
        self.show(self.after)

    def undo(self) -> None:
        self.show(self.before)
