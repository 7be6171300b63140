"""Document editors, chosen by collection.

:func:`editor_for` picks the registered editor of a document's collection, else the generic
:class:`~storyloom.gui.editors.properties_editor.PropertiesEditor`. The visual editors
(dialogue graph, grids, kanban, scenes, canvas, maps) plug in with :func:`register_editor`."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QWidget

from storyloom.app import ProjectSession
from storyloom.gui.editors.attachment_editor import AttachmentEditor
from storyloom.gui.editors.base import DocumentEditor
from storyloom.gui.editors.canvas import CanvasEditor
from storyloom.gui.editors.dialogue_graph import DialogueGraphEditor
from storyloom.gui.editors.gdd_editor import GddEditor
from storyloom.gui.editors.grid_editor import GridEditor
from storyloom.gui.editors.kanban_editor import KanbanEditor
from storyloom.gui.editors.map_editor import MapEditor
from storyloom.gui.editors.properties_editor import PropertiesEditor, SettingsEditor
from storyloom.gui.editors.property_editor import PropertyEditor
from storyloom.gui.editors.scene_editor import SceneEditor
from storyloom.gui.editors.script_editor import ScriptEditor
from storyloom.gui.editors.settings_editor import ProjectSettingsEditor
from storyloom.gui.editors.variable_editor import ScenarioEditor, VariablesEditor
from storyloom.project import SETTINGS_ID

EDITORS: dict[str, type[DocumentEditor]] = {"Script": ScriptEditor}


def register_editor(collection: str, editor: type[DocumentEditor]) -> None:
    """Open documents of ``collection`` (an app name such as ``"Dialogue"``) in ``editor``."""
    EDITORS[collection] = editor


register_editor("Gdd", GddEditor)
for _kind in ("Actor", "Item", "Quest", "Misc"):
    register_editor(_kind, PropertyEditor)
register_editor(SETTINGS_ID, ProjectSettingsEditor)  # keyed by the settings document's id
register_editor("Variable", VariablesEditor)
register_editor("Scenario", ScenarioEditor)
register_editor("Attachment", AttachmentEditor)
register_editor("Dialogue", DialogueGraphEditor)
register_editor("Grid", GridEditor)
register_editor("Kanban", KanbanEditor)
register_editor("Scene", SceneEditor)
register_editor("Canvas", CanvasEditor)
register_editor("Map", MapEditor)


def editor_for(session: ProjectSession, doc: dict[str, Any], parent: QWidget | None = None) -> DocumentEditor:
    if doc.get("_id") == SETTINGS_ID:
        return EDITORS.get(SETTINGS_ID, SettingsEditor)(session, doc, parent)
    kind = doc.get("collection") or doc.get("type")
    return EDITORS.get(str(kind), PropertiesEditor)(session, doc, parent)


__all__ = ["EDITORS", "AttachmentEditor", "DialogueGraphEditor", "DocumentEditor", "GddEditor",
           "ProjectSettingsEditor", "PropertiesEditor", "PropertyEditor", "ScriptEditor", "editor_for",
           "register_editor"]
