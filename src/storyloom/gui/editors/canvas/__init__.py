"""The canvas editor: ``items`` (notes, images, document cards, groups, edges), ``scene`` (items
kept in step with the board, and the view's gestures), ``inspector`` (the side panel) and
``editor`` (the Canvas document editor). The rules are in :mod:`storyloom.project.canvas`."""

from __future__ import annotations

from storyloom.gui.editors.canvas.editor import CanvasEditor

__all__ = ["CanvasEditor"]
