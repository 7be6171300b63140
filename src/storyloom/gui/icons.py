"""Icons by role, from qtawesome's Phosphor set: one icon and one colour per collection (the
way Drafft users find a collection at a glance), and one icon per action, in the theme's text
colour unless a colour is asked for. Vector icons stay crisp at any device pixel ratio."""

from __future__ import annotations

import qtawesome
from PySide6.QtGui import QColor, QIcon

from storyloom.gui import theme
from storyloom.project import BY_APP_NAME, BY_EXPORT_NAME

#: Every collection (by its app name), Attachments and the project settings: icon and colour.
COLLECTIONS: dict[str, tuple[str, str]] = {
    "Gdd": ("ph.book-open", "#4c84f0"),
    "Script": ("ph.file-text", "#5457d6"),
    "Dialogue": ("ph.chats", "#1fa394"),
    "Actor": ("ph.user", "#e07833"),
    "Quest": ("ph.flag", "#d64545"),
    "Item": ("ph.sword", "#b88a1b"),
    "Variable": ("ph.sliders", "#8e62d9"),
    "Scenario": ("ph.flask", "#c2559b"),
    "Scene": ("ph.film-strip", "#2f97cf"),
    "Misc": ("ph.archive", "#7c8591"),
    "Grid": ("ph.table", "#2a9a5c"),
    "Kanban": ("ph.columns", "#d9912a"),
    "Canvas": ("ph.palette", "#df5b7c"),
    "Map": ("ph.map-trifold", "#3f9f66"),
    "Attachment": ("ph.paperclip", "#7c8591"),
    "ProjectSettings": ("ph.gear-six", "#7c8591"),
}

#: Actions and states: the same icon for the same intent everywhere.
ROLES: dict[str, str] = {
    "app": "ph.books",
    "project": "ph.books",
    "new": "ph.plus",
    "open": "ph.folder-open",
    "folder": "ph.folder",
    "new-folder": "ph.folder-simple-plus",
    "document": "ph.file",
    "import": "ph.download-simple",
    "export": "ph.upload-simple",
    "backup": "ph.floppy-disk",
    "restore": "ph.clock-counter-clockwise",
    "auto-backup": "ph.clock-clockwise",
    "salvage": "ph.first-aid-kit",
    "recent": "ph.clock-counter-clockwise",
    "rename": "ph.pencil-simple",
    "delete": "ph.trash",
    "search": "ph.magnifying-glass",
    "close": "ph.x",
    "info": "ph.info",
    "warning": "ph.warning",
    "error": "ph.warning-circle",
    "success": "ph.check-circle",
    "help": "ph.question",
    "api": "ph.broadcast",
    "sync": "ph.cloud-arrow-up",
    "settings": "ph.gear-six",
    "code": "ph.brackets-curly",
    "external": "ph.arrow-square-out",
}

_STATE_COLORS = {"error": "danger", "warning": "warning", "success": "success"}


def _collection_key(collection: str) -> str:
    if collection in COLLECTIONS:
        return collection
    if collection in BY_EXPORT_NAME:
        return BY_EXPORT_NAME[collection].app_name
    for key in COLLECTIONS:  # "Attachments", "scripts"...: forgiving of plural and case
        if collection.casefold() in (key.casefold(), key.casefold() + "s"):
            return key
    if collection in BY_APP_NAME:
        return collection
    raise KeyError(f"no icon for collection {collection!r}")


def collection_color(collection: str) -> QColor:
    """The collection's colour (by app name like ``Script`` or export name like ``Scripts``)."""
    return QColor(COLLECTIONS[_collection_key(collection)][1])


def collection_icon(collection: str) -> QIcon:
    """The collection's icon in its colour."""
    name, color = COLLECTIONS[_collection_key(collection)]
    return qtawesome.icon(name, color=color)


def icon(role: str, color: str | QColor | None = None) -> QIcon:
    """The icon of an action or state (see :data:`ROLES`); states take their theme colour."""
    colours = theme.colors()
    if color is None:
        color = getattr(colours, _STATE_COLORS[role]) if role in _STATE_COLORS else colours.text
    # Selected rows are drawn in the accent colour: their icons turn to the accent's text colour.
    return qtawesome.icon(ROLES[role], color=color, color_disabled=colours.disabled,
                          color_selected=colours.accent_text)
