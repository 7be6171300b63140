"""storyloom.export.collections_filter.parse_collections."""

from __future__ import annotations

import pytest

from storyloom.export.collections_filter import UnknownCollections, export_keys, parse_collections
from storyloom.project.collections import EXPORT_NAMES


def test_names_are_canonicalised_deduplicated_and_ordered() -> None:
    assert parse_collections("Items, scripts ,GDD,Items") == ["GDD", "Scripts", "Items"]
    assert parse_collections(["Maps", "Variables,Scenarios"]) == ["Variables", "Scenarios", "Maps"]
    assert parse_collections("projectsettings") == ["ProjectSettings"]


def test_none_selects_the_default_or_everything() -> None:
    assert parse_collections(None, ["Kanban", "Scripts"]) == ["Scripts", "Kanban"]
    assert parse_collections(None) == list(EXPORT_NAMES)


@pytest.mark.parametrize(
    ("value", "unknown"),
    [
        ("Items,Weapons", ["Weapons"]),
        ("", [""]),
        ("Items,,Quests", [""]),
        ("Items,", [""]),
        ([], [""]),
        (["Items", " "], [""]),
        ("gdds", ["gdds"]),
    ],
)
def test_unknown_or_empty_names_list_the_valid_ones(value: object, unknown: list[str]) -> None:
    with pytest.raises(UnknownCollections) as info:
        parse_collections(value)  # type: ignore[arg-type]
    error = info.value
    assert error.unknown == unknown
    assert error.valid == list(EXPORT_NAMES)
    for name in EXPORT_NAMES:
        assert name in str(error)
    assert error.to_json()["error"] == "unknown_collections"


def test_an_invalid_default_is_refused_too() -> None:
    with pytest.raises(UnknownCollections):
        parse_collections(None, ["Nope"])


def test_export_keys() -> None:
    assert export_keys(["Items", "GDD", "ProjectSettings"]) == ["projectSettings", "gdds", "items"]


def test_names_as_the_reference_writes_them_with_spaces_around_commas() -> None:
    assert parse_collections(", ".join(EXPORT_NAMES)) == list(EXPORT_NAMES)
    assert parse_collections(" , ".join(reversed(EXPORT_NAMES))) == list(EXPORT_NAMES)
    assert parse_collections("Scripts , Items") == ["Scripts", "Items"]
