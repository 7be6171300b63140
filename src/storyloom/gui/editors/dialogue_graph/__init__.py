"""The dialogue graph editor: ``items`` (nodes, links), ``scene`` (items kept in step with the
graph), ``view`` (zoom, pan, link dragging, minimap), ``palette``, ``inspector``, ``commands``
(undo and redo) and ``editor`` (the Dialogue document editor). The rules are in
:mod:`storyloom.project.dialogue_graph` and :mod:`storyloom.project.dialogue_layout`."""

from __future__ import annotations

from storyloom.gui.editors.dialogue_graph.editor import DialogueGraphEditor

__all__ = ["DialogueGraphEditor"]
