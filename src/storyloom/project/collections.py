"""The 15 collections of a project, with the names each surface uses.

- ``app_name``: singular, as written in documents' ``collection``/``type`` and in routes.
- ``export_name``: the name used by the export options, the API's ``collections`` parameter
  and ``storyloom export --collections``.
- ``export_key``: the top-level key of the game export.
- ``route``: ``/<route>/<id>`` opens a document in the app.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Collection:
    app_name: str
    export_name: str
    export_key: str

    @property
    def route(self) -> str:
        return self.app_name.lower()


COLLECTIONS: tuple[Collection, ...] = (
    Collection("ProjectSettings", "ProjectSettings", "projectSettings"),
    Collection("Gdd", "GDD", "gdds"),
    Collection("Script", "Scripts", "scripts"),
    Collection("Dialogue", "Dialogues", "dialogues"),
    Collection("Actor", "Actors", "actors"),
    Collection("Quest", "Quests", "quests"),
    Collection("Item", "Items", "items"),
    Collection("Variable", "Variables", "variables"),
    Collection("Scenario", "Scenarios", "scenarios"),
    Collection("Scene", "Scenes", "scenes"),
    Collection("Misc", "Misc", "misc"),
    Collection("Grid", "Grids", "grids"),
    Collection("Kanban", "Kanban", "kanban"),
    Collection("Canvas", "Canvas", "canvas"),
    Collection("Map", "Maps", "maps"),
)

BY_APP_NAME: dict[str, Collection] = {c.app_name: c for c in COLLECTIONS}
BY_EXPORT_NAME: dict[str, Collection] = {c.export_name: c for c in COLLECTIONS}
EXPORT_NAMES: tuple[str, ...] = tuple(c.export_name for c in COLLECTIONS)

# Document ``type`` values that are not a collection of their own.
FOLDER_TYPE = "Folder"
ATTACHMENT_TYPE = "Attachment"
USER_TYPE = "User"
# A translation of one document's lines into one target locale (docs/localization.md): a
# document like any other (replicated, locked, validated), in no tree and in no export.
TRANSLATION_TYPE = "Translation"
#: The types a document link (a kanban card's, a grid cell's, a canvas node's) never points at:
#: none is a document a writer opens in a tab (an attachment is linked as an image instead).
NOT_LINKABLE_TYPES = frozenset({FOLDER_TYPE, ATTACHMENT_TYPE, USER_TYPE, TRANSLATION_TYPE})
SETTINGS_ID = "ProjectSettings"
DIALOGUE_FOLDER_ID = "DialogueFolder"


def collection_for(app_name: str) -> Collection | None:
    """The collection whose app name is ``app_name`` (case-sensitive, as documents store it)."""
    return BY_APP_NAME.get(app_name)
