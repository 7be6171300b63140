"""Undo and redo: every edit of the graph is one :class:`PatchCommand` on the editor's
``QUndoStack``, holding the patch the domain planned; undo applies its inverse."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QUndoCommand

from storyloom.gui.editors.dialogue_graph.scene import GraphScene
from storyloom.project.dialogue_graph import Patch


class PatchCommand(QUndoCommand):
    """``patch`` applied to ``scene`` on redo, inverted on undo; ``after`` runs after either
    (the editor marks itself unsaved and follows the selection)."""

    def __init__(self, scene: GraphScene, patch: Patch, after: Callable[[Patch, bool], None] | None = None,
                 select: list[str] | None = None) -> None:
        super().__init__(patch.text)
        self.scene = scene
        self.patch = patch
        self.after = after
        self.select = select

    def redo(self) -> None:
        self.scene.apply(self.patch)
        if self.select is not None:
            self.scene.select_nodes(self.select)
        if self.after is not None:
            self.after(self.patch, True)

    def undo(self) -> None:
        self.scene.apply(self.patch.inverted())
        if self.after is not None:
            self.after(self.patch, False)
