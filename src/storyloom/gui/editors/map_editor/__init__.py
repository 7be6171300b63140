"""The map editor: ``view`` (the map drawn, zoom, pan, the pointer in cell units), ``panels``
(the palette of tools and types, the inspector) and ``editor`` (the Map document editor). The
rules are in :mod:`storyloom.project.maps` and :mod:`storyloom.project.content.maps`."""

from __future__ import annotations

from storyloom.gui.editors.map_editor.editor import MapEditor

__all__ = ["MapEditor"]
