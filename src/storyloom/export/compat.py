"""Export compatibility modes: what existing engine importers check, added on request.

Off by default: an export (and its schema) without a mode is exactly the plain Storyloom export.
A mode comes from the request (``storyloom export --compat``, ``?compat=`` of the API) or, when
the request names none, from the project's ``ProjectSettings.exportCompat``. See
``docs/export-format.md`` (Compatibility modes) and ``docs/schema.md``.

- ``drafft``: Drafft's own engine importers (the Godot 4 addon ``drafft-godot-4-plugin``) load a
  file only when its ``_meta`` has ``drafftVersion``; everything else they read (``_meta``,
  ``gdds``, ``scripts``, ``dialogues``, ``quests``, ``items``, ``grids``, ``kanban``, and in
  documents ``_id``, ``name``, ``content``) is in every export already. The mode adds
  ``_meta.drafftVersion`` (:data:`DRAFFT_VERSION`) and removes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from storyloom.errors import StoryloomError
from storyloom.project import EXPORT_COMPAT, EXPORT_COMPAT_MODES

DRAFFT = "drafft"
NONE = "none"
"""The request value that turns a mode the project's settings name off for one export."""

COMPAT_VALUES: tuple[str, ...] = (*EXPORT_COMPAT_MODES, NONE)
"""What ``--compat`` and ``?compat=`` accept (exactly, lower case)."""

DRAFFT_VERSION = "2.1.4"
"""``_meta.drafftVersion`` in ``drafft`` mode: the Drafft export format this export follows.

Drafft writes its app version there; 2.1.4 is the version whose game export our format was
checked against key for key (the same top-level keys and parsed property objects: see
docs/export-format.md, "Compared with Drafft's export"), and the one stated by the only
published Drafft 2.x game export, ``the_goddess_of_fate.json`` of the drafft-godot-4-plugin
repository (``"drafftVersion": "2.1.4"``), which is the file that addon is tested with. The
importers only check that the key is there and print it."""


class UnknownCompat(StoryloomError, ValueError):
    """A compatibility mode that is none of :data:`COMPAT_VALUES`."""

    code = "unknown_compat"

    def __init__(self, value: object) -> None:
        self.value = value
        super().__init__(
            f"unknown export compatibility mode {value!r}; allowed values: {', '.join(COMPAT_VALUES)} "
            f"({NONE}: the plain Storyloom export)"
        )


def parse_compat(value: str | None) -> str | None:
    """A request's mode: ``None`` when not given (the settings decide), else ``"drafft"`` or
    ``"none"``. Raises :class:`UnknownCompat` on any other value."""
    if value is None:
        return None
    if value not in COMPAT_VALUES:
        raise UnknownCompat(value)
    return value


def settings_compat(settings: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """``(mode, problem)`` of ``ProjectSettings.exportCompat``: the mode (``None`` when absent or
    ``null``), or ``None`` and a message when the value is not an allowed one (the editor refuses
    such settings; a replicated or imported document may still hold one)."""
    value = settings.get(EXPORT_COMPAT)
    if value is None or value in EXPORT_COMPAT_MODES:
        return value, None
    return None, (
        f"ProjectSettings.{EXPORT_COMPAT} is {value!r}, not null or one of "
        f"{', '.join(EXPORT_COMPAT_MODES)}; exported without a compatibility mode"
    )


def resolve_compat(requested: str | None, settings: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """``(mode, problem)``: the mode an export uses, ``None`` for the plain export. The request's
    value wins (``"none"`` turns the settings' mode off); without one, the project's settings."""
    requested = parse_compat(requested)
    if requested is not None:
        return (None if requested == NONE else requested), None
    return settings_compat(settings)


def apply_to_export(export: dict[str, Any], mode: str | None) -> None:
    """Add what ``mode`` adds to a finished export, in place; nothing when ``mode`` is ``None``."""
    if mode == DRAFFT:
        export["_meta"]["drafftVersion"] = DRAFFT_VERSION


def apply_to_schema(schema: dict[str, Any], mode: str | None) -> None:
    """Make a finished schema describe the export in ``mode``, in place (``drafftVersion``
    required and fixed); nothing when ``mode`` is ``None``."""
    if mode != DRAFFT:
        return
    meta = schema["properties"]["_meta"]
    meta["required"] = [*meta["required"], "drafftVersion"]
    meta["properties"]["drafftVersion"] = {
        "const": DRAFFT_VERSION,
        "description": "The Drafft export format this export follows (compat mode `drafft`): what "
        "Drafft's engine importers check before loading a file.",
    }
    schema["description"] += f" Compatibility mode: {DRAFFT} (_meta.drafftVersion {DRAFFT_VERSION})."
