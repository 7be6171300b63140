"""The ``collections`` filter shared by ``storyloom export``/``schema`` and the API.

Names are the collections' export names (``GDD``, ``Scripts``, ... see
:mod:`storyloom.project.collections`), matched without regard to case; the result is in the
canonical collection order, without duplicates, so the same selection always exports the same
bytes whatever order the user typed it in.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from storyloom.errors import StoryloomError
from storyloom.project import COLLECTIONS, EXPORT_NAMES

_BY_FOLDED = {name.casefold(): name for name in EXPORT_NAMES}
_ORDER = {name: index for index, name in enumerate(EXPORT_NAMES)}


class UnknownCollections(StoryloomError, ValueError):
    """An unknown or empty collection name; ``unknown`` lists the offending names (``""`` for
    an empty one) and ``valid`` the accepted export names."""

    code = "unknown_collections"

    def __init__(self, unknown: Sequence[str], valid: Sequence[str] = EXPORT_NAMES) -> None:
        self.unknown = list(unknown)
        self.valid = list(valid)
        named = [repr(name) for name in self.unknown if name]
        problems = []
        if named:
            problems.append(f"unknown collection{'s' if len(named) > 1 else ''} {', '.join(named)}")
        if len(named) < len(self.unknown):
            problems.append("an empty collection name (check for a stray or doubled comma)")
        super().__init__(f"{'; '.join(problems)}; valid collections: {', '.join(self.valid)}")

    def to_json(self) -> dict[str, object]:
        return {"error": "unknown_collections", "reason": str(self), "unknown": self.unknown, "valid": self.valid}


def canonical_order(names: Iterable[str]) -> list[str]:
    """Known export names, deduplicated, in the canonical collection order."""
    return sorted(set(names), key=_ORDER.__getitem__)


def parse_collections(
    text_or_list: str | Sequence[str] | None,
    default: Sequence[str] | None = None,
) -> list[str]:
    """The export names selected by ``text_or_list``.

    ``text_or_list`` is a comma-separated string (``"Scripts, Items"``) or a list of names
    (each may itself hold commas, as repeated query parameters do). ``None`` selects
    ``default`` (itself validated), or every collection when ``default`` is ``None``.
    Raises :class:`UnknownCollections` on an unknown name or an empty one (``""``,
    ``"Items,,Quests"``, a trailing comma).
    """
    if text_or_list is None:
        if default is None:
            return list(EXPORT_NAMES)
        return parse_collections(list(default), None)
    parts: list[str] = []
    if isinstance(text_or_list, str):
        parts = text_or_list.split(",")
    else:
        for item in text_or_list:
            if not isinstance(item, str):
                raise UnknownCollections([repr(item)])
            parts.extend(item.split(","))
    if not parts:
        raise UnknownCollections([""])
    selected: list[str] = []
    unknown: list[str] = []
    for part in parts:
        name = _BY_FOLDED.get(part.strip().casefold())
        if name is None:
            unknown.append(part.strip())
        else:
            selected.append(name)
    if unknown:
        raise UnknownCollections(unknown)
    return canonical_order(selected)


def export_keys(names: Iterable[str]) -> list[str]:
    """The game export's top-level keys for the export names, in canonical order."""
    chosen = set(names)
    return [c.export_key for c in COLLECTIONS if c.export_name in chosen]
