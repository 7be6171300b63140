"""Schema export: a JSON Schema (draft 2020-12) of exactly the game export of a project.

``storyloom schema``, ``storyloom export --schema-sidecar`` and ``GET /schema-export`` use
:func:`build_schema`; see ``docs/schema.md``. The schema is built from the same documents and
the same rules as the export (:mod:`storyloom.project.content`), so an export always
validates against the schema built from the same project state, and a hand-edited export
that breaks a rule does not:

- generic collections: ``$defs/BaseDocument`` (``_id``, ``collection``, derived ``children``
  and ``path``, attachment stubs; ``_rev`` and lock fields forbidden);
- Variables: one ``$defs/Variable_<_sid>`` per variable document, types inferred recursively
  from the authored defaults; the ``variables`` array is a union discriminated on ``_sid``
  (``const``);
- Scenarios: each override must have the type of the variable it overrides; unknown state ids
  and properties are rejected (``additionalProperties: false``);
- Maps: dimensions, key patterns bounded by each map's width and height, typed cells and edges,
  named markers inside the map.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any

import storyloom
from storyloom.collector import gc_paused
from storyloom.export.attachments import (
    ATTACHMENT_PERMALINK,
    ATTACHMENT_URL,
    META_ATTACHMENTS_KEY,
    REFERENCING_COLLECTIONS,
    is_attachment_document,
    referenced_attachments,
)
from storyloom.export.cache import ContentCache, cache_for
from storyloom.export.collections_filter import parse_collections
from storyloom.export.compat import apply_to_schema, resolve_compat
from storyloom.export.game_export import (
    FORMAT_VERSION,
    LEGACY_EDITOR_FIELDS,
    META_WARNINGS_LIMIT,
    STRIPPED_FIELDS,
    _project_attr,
    analyse_variables,
    build_game_export,
    collection_of,
    default_collections,
    read_documents,
)
from storyloom.project import (
    BY_EXPORT_NAME,
    COLLECTIONS,
    EXPORT_NAMES,
    FOLDER_TYPE,
    LOCAL_ONLY_PREFIXES,
    LOCAL_ONLY_SETTINGS,
    SECRET_WORDS,
    SETTINGS_ID,
    ProjectLike,
)
from storyloom.project.content import (
    ContentError,
    check_map_content,
    infer_schema,
    parse_scenario_doc,
    partial_schema,
)

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"

_SCRIPT_LINE_FIELDS: dict[str, tuple[str, ...]] = {
    "speech": ("actor", "text", "lineId"),
    "command": ("name", "params"),
    "comment": ("text",),
    "if": ("condition",),
    "set": ("path", "operator", "value"),
    "text": ("text",),
}



_COUNT = {"type": "integer", "minimum": 0}
# ``_meta.localization``: only in an export asked for a locale (storyloom.export.localized).
_LOCALIZATION: dict[str, Any] = {
    "type": "object",
    "description": "Only in a localized export (`--locale`, `?locale=`): its language and how many "
    "translatable lines (speech lines, choice options) have their translation in place. `translated` "
    "includes `needsReview` (translations made from an older source, or marked to review: exported all "
    "the same); `untranslated` lines hold the source text.",
    "required": ["locale", "sourceLocale", "lines", "translated", "needsReview", "untranslated"],
    "additionalProperties": False,
    "properties": {"locale": {"type": "string"}, "sourceLocale": {"type": "string"}, "lines": _COUNT,
                   "translated": _COUNT, "needsReview": _COUNT, "untranslated": _COUNT},
}

def _never() -> dict[str, Any]:
    """A field that must be absent. (``{"not": {}}`` rather than ``false``: validators report
    it at the field's own path.)"""
    return {"not": {}}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/$defs/{name}"}


def _is_folder() -> dict[str, Any]:
    return {"properties": {"type": {"const": FOLDER_TYPE}}, "required": ["type"]}


def _one_of(values: Iterable[str]) -> dict[str, Any]:
    """A value that must be one of ``values``. None at all is ``{"not": {}}``: an empty
    ``enum`` is invalid JSON Schema, which ajv (and any validator checking the meta-schema)
    refuses to compile."""
    allowed = sorted(set(values))
    return {"enum": allowed} if allowed else _never()


def _id_in(ids: Sequence[str]) -> dict[str, Any]:
    return {"properties": {"_id": _one_of(ids)}, "required": ["_id"]}


def _any_case(word: str) -> str:
    """A regex matching ``word`` in any case (JSON Schema patterns have no ``(?i)``)."""
    return "".join(f"[{c.upper()}{c.lower()}]" if c.isalpha() else re.escape(c) for c in word)


def _local_only_patterns() -> dict[str, Any]:
    """``patternProperties`` forbidding the keys ``public_settings`` strips by name."""
    patterns = [f"^{_any_case(prefix)}" for prefix in LOCAL_ONLY_PREFIXES]
    patterns += [_any_case(word) for word in SECRET_WORDS]
    return {pattern: _never() for pattern in patterns}


def int_range_pattern(highest: int) -> str:
    """A regex (no anchors) matching the decimal integers ``0..highest`` written without
    leading zeros, e.g. ``37`` -> ``(?:[0-9]|[1-2][0-9]|3[0-7])``."""
    if highest < 0:
        raise ValueError("highest must be >= 0")
    text = str(highest)
    last = len(text) - 1
    parts: list[str] = []
    for length in range(1, len(text)):  # every shorter number
        parts.append("[0-9]" if length == 1 else "[1-9][0-9]" if length == 2 else f"[1-9][0-9]{{{length - 1}}}")
    for i, ch in enumerate(text):  # same length: text[:i], then a smaller digit, then anything
        digit = int(ch)
        low = 1 if i == 0 and last > 0 else 0
        top = digit if i == last else digit - 1
        if top < low:
            continue
        span = str(low) if top == low else f"[{low}-{top}]"
        rest = last - i
        tail = "" if rest == 0 else "[0-9]" if rest == 1 else f"[0-9]{{{rest}}}"
        parts.append(f"{text[:i]}{span}{tail}")
    return "(?:" + "|".join(parts) + ")"


# --------------------------------------------------------------------------------------
# Fixed definitions


def _fixed_defs() -> dict[str, Any]:
    nullable_string = {"type": ["string", "null"]}
    nullable_int = {"type": ["integer", "null"]}
    forbidden = {name: _never() for name in sorted(STRIPPED_FIELDS)}
    return {
        "Warning": {
            "type": "object",
            "description": "Something the export could not use as authored, and what it did instead.",
            "required": ["code", "message", "docId", "collection", "field", "line", "column"],
            "additionalProperties": False,
            "properties": {
                "code": {"type": "string"},
                "message": {"type": "string"},
                "docId": nullable_string,
                "collection": nullable_string,
                "field": nullable_string,
                "line": nullable_int,
                "column": nullable_int,
            },
        },
        "AttachmentStub": {
            "type": "object",
            "description": f"An attachment without its data: {ATTACHMENT_PERMALINK} names it, the local "
            f"API serves its bytes at {ATTACHMENT_URL} (both parts URL-quoted).",
            "required": ["stub", "permalink", "url"],
            "properties": {
                "stub": {"const": True},
                "permalink": {"type": "string", "pattern": "^storyloom://attachment/[^/]+/[^/]+$"},
                "url": {"type": "string", "pattern": "^/attachments/[^/]+/[^/]+$"},
                "content_type": {"type": "string"},
                "digest": {"type": "string"},
                "length": {"type": "integer", "minimum": 0},
                "revpos": {"type": "integer", "minimum": 1},
                "data": _never(),
            },
        },
        "BaseDocument": {
            "type": "object",
            "description": "A document of any collection: whole, with derived children and path; "
            "revision and lock fields stripped.",
            "required": ["_id", "collection", "children", "path"],
            "properties": {
                "_id": {"type": "string", "minLength": 1},
                **forbidden,
                "type": {"type": "string"},
                "collection": {"type": "string"},
                "name": {"type": "string"},
                "parent": nullable_string,
                "sortKey": {"type": "string"},
                "children": {"type": "array", "items": {"type": "string"}},
                "path": {"type": "string"},
                "_attachments": {"type": "object", "additionalProperties": _ref("AttachmentStub")},
            },
            "patternProperties": {"^_(?!(id|attachments|rev)$)": _never()},
        },
        "AttachmentDocument": {
            "type": "object",
            "description": "An Attachment document that exported documents point at (actor expressions "
            "through `attachmentId`, images in a GDD): metadata and stubs, never the data.",
            "required": ["_id", "_attachments"],
            "additionalProperties": False,
            "properties": {
                "_id": {"type": "string", "minLength": 1},
                "name": {"type": "string"},
                "mimeType": {"type": "string"},
                "content": {
                    "type": "object",
                    "required": ["notes"],
                    "additionalProperties": False,
                    "properties": {"notes": {"type": "string", "minLength": 1}},
                },
                "_attachments": {"type": "object", "additionalProperties": _ref("AttachmentStub")},
            },
        },
        "ScriptLine": _script_line_def(),
    }


def _script_line_def() -> dict[str, Any]:
    branches = [
        {
            "if": {"properties": {"type": {"const": kind}}, "required": ["type"]},
            "then": {"required": list(fields)},
        }
        for kind, fields in _SCRIPT_LINE_FIELDS.items()
    ]
    return {
        "type": "object",
        "description": "One parsed script line; `mapped` is the line rewritten by the project's "
        "export mapping for the script's editorMode, when one is set.",
        "required": ["type", "line"],
        "properties": {
            "type": {"type": "string"},
            "line": {"type": "integer", "minimum": 1},
            "mapped": {"type": "string"},
            "lineId": {"type": "string", "minLength": 1,
                       "description": "A speech line's stable id (docs/localization.md): its Drafft tag, "
                       "else the id Storyloom keeps for it through edits, moves and merges."},
        },
        "allOf": branches,
    }


def _collection_doc(app_name: str, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {
        "$ref": "#/$defs/BaseDocument",
        "properties": {"collection": {"const": app_name}},
    }
    for key, value in (extra or {}).items():
        if key == "properties":
            schema["properties"].update(value)
        else:
            schema[key] = value
    return schema


def _folder_doc(app_name: str) -> dict[str, Any]:
    """A folder of collection ``app_name``."""
    return _collection_doc(app_name, {"properties": {"type": {"const": FOLDER_TYPE}}})


def _text_content_doc(app_name: str, key: str, schema: Mapping[str, Any],
                      description: str | None = None) -> dict[str, Any]:
    """A document of ``app_name`` whose ``content`` holds exactly one property, ``key``."""
    extra: dict[str, Any] = {} if description is None else {"description": description}
    extra["required"] = ["content"]
    extra["properties"] = {
        "content": {
            "type": "object",
            "required": [key],
            "additionalProperties": False,
            "properties": {key: schema},
        }
    }
    return _collection_doc(app_name, extra)


# --------------------------------------------------------------------------------------
# Typed collections


def _memo(cache: ContentCache | None, doc: Mapping[str, Any], kind: str, compute: Callable[[], Any]) -> Any:
    rev = doc.get("_rev")
    if cache is None or not isinstance(rev, str):
        return compute()
    return cache.memo((kind, doc.get("_id"), rev), compute)


def _scenario_parses(doc: Mapping[str, Any]) -> bool:
    try:
        parse_scenario_doc(doc)
    except ContentError:
        return False
    return True


def _map_size(doc: Mapping[str, Any]) -> list[int] | None:
    content = doc.get("content")
    exported, _ = check_map_content(content if isinstance(content, Mapping) else {})
    return [exported["width"], exported["height"]] if exported is not None else None


def _variables_defs(
    docs: Sequence[Mapping[str, Any]],
    cache: ContentCache | None = None,
) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """``(defs, states)`` for Variables: ``VariablesEntry`` and one ``Variable_<sid>`` each."""
    states, _, failures = analyse_variables(docs, cache)
    defs: dict[str, Any] = {}
    defs["VariableFolder"] = _folder_doc("Variable")
    defs["VariableBase"] = _text_content_doc(
        "Variable",
        "variables",
        {
            "type": "object",
            "description": "The authored default state; `_sid` names it.",
            "required": ["_sid"],
            "properties": {"_sid": _one_of(states)},
        },
    )
    discriminated: list[dict[str, Any]] = []
    for sid in sorted(states):
        state_schema = infer_schema(states[sid])
        state_schema["properties"]["_sid"] = {"const": sid}
        defs[f"Variable_{sid}"] = {
            "$ref": "#/$defs/VariableBase",
            "description": f"The variable document of state `{sid}`; types inferred from its defaults.",
            "properties": {"content": {"properties": {"variables": state_schema}}},
        }
        discriminated.append(
            {
                "if": {
                    "properties": {
                        "content": {
                            "properties": {"variables": {"properties": {"_sid": {"const": sid}}, "required": ["_sid"]}},
                            "required": ["variables"],
                        }
                    },
                    "required": ["content"],
                },
                "then": _ref(f"Variable_{sid}"),
            }
        )
    typed: dict[str, Any] = {"$ref": "#/$defs/VariableBase"}
    if discriminated:
        typed["allOf"] = discriminated
    if failures:
        defs["VariableUnparsed"] = _text_content_doc(
            "Variable",
            "variables",
            {"type": "string"},
            "A variable document whose source did not parse (see _meta.warnings).",
        )
        typed = {"if": _id_in(list(failures)), "then": _ref("VariableUnparsed"), "else": typed}
    defs["VariablesEntry"] = {"if": _is_folder(), "then": _ref("VariableFolder"), "else": typed}
    return defs, states


def _scenarios_defs(states: Mapping[str, Mapping[str, Any]], failed: Sequence[str]) -> dict[str, Any]:
    defs: dict[str, Any] = {}
    overrides: dict[str, Any] = {}
    for sid in sorted(states):
        state_schema = infer_schema(dict(states[sid]))
        del state_schema["properties"]["_sid"]
        state_schema["required"] = [key for key in state_schema["required"] if key != "_sid"]
        defs[f"ScenarioOverride_{sid}"] = {
            "description": f"Overrides of state `{sid}`: each property keeps the type of its default.",
            **partial_schema(state_schema),
        }
        overrides[sid] = _ref(f"ScenarioOverride_{sid}")
    defs["ScenarioDiff"] = {
        "type": "object",
        "description": "A diff over the default state, keyed by `_sid`.",
        "properties": overrides,
        "additionalProperties": False,
    }
    defs["ScenarioFolder"] = _folder_doc("Scenario")
    defs["ScenarioDocument"] = _text_content_doc("Scenario", "scenario", _ref("ScenarioDiff"))
    typed: dict[str, Any] = _ref("ScenarioDocument")
    if failed:
        defs["ScenarioUnparsed"] = _text_content_doc(
            "Scenario",
            "scenario",
            {"type": "string"},
            "A scenario whose source did not parse (see _meta.warnings).",
        )
        typed = {"if": _id_in(list(failed)), "then": _ref("ScenarioUnparsed"), "else": typed}
    defs["ScenariosEntry"] = {"if": _is_folder(), "then": _ref("ScenarioFolder"), "else": typed}
    return defs


def _maps_defs(by_size: Mapping[tuple[int, int] | None, list[str]]) -> dict[str, Any]:
    cell_key = "^(0|[1-9][0-9]*),(0|[1-9][0-9]*)$"
    edge_key = "^(0|[1-9][0-9]*),(0|[1-9][0-9]*):[NESW]$"
    defs: dict[str, Any] = {
        "MapEntry": {
            "type": "object",
            "description": "A cell or an edge: a `type` and free properties.",
            "required": ["type"],
            "properties": {"type": {"type": "string", "minLength": 1}},
        },
        "MapMarker": {
            "type": "object",
            "description": "A named position on the map, with free properties.",
            "required": ["x", "y"],
            "properties": {"x": {"type": "integer", "minimum": 0}, "y": {"type": "integer", "minimum": 0}},
        },
        "MapContent": {
            "type": "object",
            "required": ["width", "height", "cells", "edges", "markers", "properties"],
            "additionalProperties": False,
            "properties": {
                "width": {"type": "integer", "minimum": 1},
                "height": {"type": "integer", "minimum": 1},
                "cells": {
                    "type": "object",
                    "description": 'Cells keyed "x,y" (x right, y down, from 0).',
                    "propertyNames": {"pattern": cell_key},
                    "additionalProperties": _ref("MapEntry"),
                },
                "edges": {
                    "type": "object",
                    "description": 'Edges keyed "x,y:N|E|S|W": the side of cell x,y.',
                    "propertyNames": {"pattern": edge_key},
                    "additionalProperties": _ref("MapEntry"),
                },
                "markers": {
                    "type": "object",
                    "description": "Named markers keyed by name.",
                    "propertyNames": {"minLength": 1},
                    "additionalProperties": _ref("MapMarker"),
                },
                "properties": {"type": "object", "description": "Free properties of the map."},
            },
        },
        "MapFolder": _folder_doc("Map"),
        "MapDocument": _collection_doc(
            "Map",
            {
                "required": ["content"],
                "properties": {
                    "content": {
                        "type": ["object", "null"],
                        "description": "null when the map's width or height is unusable (see _meta.warnings).",
                        "if": {"type": "object"},
                        "then": _ref("MapContent"),
                    }
                },
            },
        ),
    }
    branches: list[dict[str, Any]] = []
    for size in sorted(by_size, key=lambda s: (s is not None, s or (0, 0))):
        ids = by_size[size]
        if size is None:
            name = "Map_withoutContent"
            defs[name] = {
                "description": "Maps whose width or height is unusable: content not exported.",
                "properties": {"content": {"type": "null"}},
            }
        else:
            width, height = size
            xs, ys = int_range_pattern(width - 1), int_range_pattern(height - 1)
            name = f"Map_{width}x{height}"
            defs[name] = {
                "description": f"Maps of {width} x {height} cells: every key inside the map.",
                "properties": {
                    "content": {
                        "type": "object",
                        "properties": {
                            "width": {"const": width},
                            "height": {"const": height},
                            "cells": {"propertyNames": {"pattern": f"^{xs},{ys}$"}},
                            "edges": {"propertyNames": {"pattern": f"^{xs},{ys}:[NESW]$"}},
                            "markers": {
                                "additionalProperties": {
                                    "properties": {
                                        "x": {"maximum": width - 1},
                                        "y": {"maximum": height - 1},
                                    }
                                }
                            },
                        },
                    }
                },
            }
        branches.append({"if": _id_in(ids), "then": _ref(name)})
    typed: dict[str, Any] = _ref("MapDocument")
    if branches:
        typed = {"$ref": "#/$defs/MapDocument", "allOf": branches}
    defs["MapsEntry"] = {"if": _is_folder(), "then": _ref("MapFolder"), "else": typed}
    return defs


class SchemaFacts:
    """What the schema needs to know of the documents, gathered one document at a time (so a
    streamed reading holds none of them): the Variable documents, the scenarios that do not
    parse, the maps by size, and the Attachment documents that the documents of each referencing
    collection point at. ``attachment_ids`` are the ids of every Attachment document. Each
    document goes through :meth:`add` before the export transforms it."""

    def __init__(self, attachment_ids: Collection[str], cache: ContentCache | None = None) -> None:
        self.attachment_ids = attachment_ids
        self.cache = cache
        self.variable_docs: list[Mapping[str, Any]] = []
        self.failed_scenarios: list[str] = []
        self.maps_by_size: dict[tuple[int, int] | None, list[str]] = {}
        self.references: dict[str, set[str]] = {app: set() for app in REFERENCING_COLLECTIONS}

    @classmethod
    def of(cls, docs: Iterable[Mapping[str, Any]], cache: ContentCache | None = None) -> SchemaFacts:
        """The facts of a list of documents."""
        docs = list(docs)
        facts = cls({str(d["_id"]) for d in docs if is_attachment_document(d)}, cache)
        for doc in docs:
            facts.add(doc, collection_of(doc))
        return facts

    def add(self, doc: Mapping[str, Any], app: str | None) -> None:
        if app == "Variable":
            self.variable_docs.append(doc)
        elif doc.get("type") == FOLDER_TYPE:
            return
        elif app == "Scenario":
            if not _memo(self.cache, doc, "scenario-parses", lambda: _scenario_parses(doc)):
                self.failed_scenarios.append(str(doc["_id"]))
        elif app == "Map":
            found = _memo(self.cache, doc, "map-size", lambda: _map_size(doc))
            size = (found[0], found[1]) if found is not None else None
            self.maps_by_size.setdefault(size, []).append(str(doc["_id"]))
        elif app in self.references and self.attachment_ids:
            self.references[app] |= referenced_attachments(doc, app, self.attachment_ids)


# --------------------------------------------------------------------------------------
# The schema


def schema_from_docs(
    docs: Sequence[Mapping[str, Any]],
    settings: Mapping[str, Any],
    collections: str | Sequence[str] | None = None,
    *,
    project_id: str | None = None,
    project_name: str | None = None,
    cache: ContentCache | None = None,
    compat: str | None = None,
) -> dict[str, Any]:
    """The JSON Schema of the export of ``docs`` for ``collections`` (see :func:`build_schema`);
    ``cache`` memoises per-revision parses; ``compat`` as for the export."""
    return schema_from_facts(SchemaFacts.of(docs, cache), settings, collections, project_id=project_id,
                             project_name=project_name, cache=cache, compat=compat)


def schema_from_facts(
    facts: SchemaFacts,
    settings: Mapping[str, Any],
    collections: str | Sequence[str] | None = None,
    *,
    project_id: str | None = None,
    project_name: str | None = None,
    cache: ContentCache | None = None,
    compat: str | None = None,
) -> dict[str, Any]:
    """The JSON Schema of the export whose documents ``facts`` gathered (see :func:`schema_from_docs`)."""
    mode, _ = resolve_compat(compat, settings)
    selected = parse_collections(collections, default_collections(settings))
    chosen = [BY_EXPORT_NAME[name] for name in selected]
    chosen_apps = {c.app_name for c in chosen}
    defs = _fixed_defs()
    properties: dict[str, Any] = {}

    states: dict[str, dict[str, Any]] = {}
    if "Variable" in chosen_apps or "Scenario" in chosen_apps:
        variable_defs, states = _variables_defs(facts.variable_docs, cache)
        if "Variable" in chosen_apps:
            defs.update(variable_defs)
    if "Scenario" in chosen_apps:
        defs.update(_scenarios_defs(states, facts.failed_scenarios))
    if "Map" in chosen_apps:
        defs.update(_maps_defs(facts.maps_by_size))
    references = {app: refs for app, refs in facts.references.items() if app in chosen_apps}

    for c in COLLECTIONS:
        if c.app_name not in chosen_apps:
            continue
        if c.app_name == "Variable":
            item = _ref("VariablesEntry")
        elif c.app_name == "Scenario":
            item = _ref("ScenariosEntry")
        elif c.app_name == "Map":
            item = _ref("MapsEntry")
        elif c.app_name == "Kanban":
            # A folder of boards is a folder (as in every collection), a board holds its columns.
            defs["KanbanFolder"] = _folder_doc("Kanban")
            defs["KanbanDocument"] = _collection_doc("Kanban", {
                "required": ["content"],
                "properties": {
                    "type": {"const": "Kanban"},
                    "content": {"type": "object", "required": ["columns"],
                                "properties": {"columns": {"type": "array"}}},
                    **{key: _never() for key in LEGACY_EDITOR_FIELDS["Kanban"]},
                },
            })
            defs["KanbanEntry"] = {"if": _is_folder(), "then": _ref("KanbanFolder"), "else": _ref("KanbanDocument")}
            item = _ref("KanbanEntry")
        else:
            def_name = f"{c.app_name}Document"
            if c.app_name == SETTINGS_ID:
                defs[def_name] = _collection_doc(
                    SETTINGS_ID,
                    {
                        "properties": {
                            "_id": {"const": SETTINGS_ID},
                            **{k: _never() for k in sorted(LOCAL_ONLY_SETTINGS)},
                        },
                        "patternProperties": _local_only_patterns(),
                    },
                )
            elif c.app_name == "Script":
                defs[def_name] = _collection_doc(
                    "Script",
                    {
                        "if": _is_folder(),
                        "else": {
                            "properties": {
                                "content": {
                                    "type": "object",
                                    "properties": {
                                        "script": {"type": "string"},
                                        "lines": {"type": "array", "items": _ref("ScriptLine")},
                                        "lineIds": _never(),  # the side table stays in the project
                                    },
                                }
                            }
                        },
                    },
                )
            elif c.app_name == "Actor":
                defs[def_name] = _collection_doc(
                    "Actor",
                    {
                        "properties": {
                            "content": {
                                "properties": {
                                    "expressions": {
                                        "items": {
                                            "properties": {
                                                "attachmentId": {
                                                    "description": "The Attachment document (in "
                                                    "`_meta.attachments`) the expression's image resolves to.",
                                                    **_one_of(references.get("Actor", ())),
                                                }
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    },
                )
            elif c.app_name in LEGACY_EDITOR_FIELDS:
                defs[def_name] = _collection_doc(
                    c.app_name,
                    {"properties": {key: _never() for key in LEGACY_EDITOR_FIELDS[c.app_name]}},
                )
            else:
                defs[def_name] = _collection_doc(c.app_name)
            item = _ref(def_name)
        properties[c.export_key] = {
            "type": "array",
            "description": f"The {c.export_name} collection: documents and folders, sorted by _id.",
            "items": item,
        }

    referenced = sorted(set().union(*references.values()))
    attachments: dict[str, Any] = {
        "type": "array",
        "description": "The Attachment documents the exported documents point at (actor expressions' "
        "`attachmentId`, images in a GDD), sorted by _id.",
        "items": {"$ref": "#/$defs/AttachmentDocument", "properties": {"_id": _one_of(referenced)}},
    }
    if not referenced:
        attachments["maxItems"] = 0
    properties["_meta"] = {
        "type": "object",
        "required": [
            "exportedAt", "exportedBy", "appVersion", "formatVersion", "collections", "warningCount", "warnings",
            META_ATTACHMENTS_KEY,
        ],
        "properties": {
            "exportedAt": {"type": "string", "format": "date-time"},
            "exportedBy": {"type": ["string", "null"]},
            "appVersion": {"type": "string"},
            "formatVersion": {"const": FORMAT_VERSION},
            "collections": {"const": list(selected), "items": {"enum": list(EXPORT_NAMES)}},
            "projectId": {"type": ["string", "null"]},
            "projectName": {"type": ["string", "null"]},
            "warningCount": {"type": "integer", "minimum": 0,
                             "description": "How many warnings the export has (warnings lists the first ones)."},
            "warnings": {"type": "array", "items": _ref("Warning"), "maxItems": META_WARNINGS_LIMIT},
            META_ATTACHMENTS_KEY: attachments,
            "localization": _LOCALIZATION,
        },
    }
    if not any(c.app_name == "Script" for c in chosen):
        del defs["ScriptLine"]
    schema: dict[str, Any] = {
        "$schema": SCHEMA_DIALECT,
        "title": f"Storyloom game export{f': {project_name}' if project_name else ''}",
        "description": (
            f"The game export of Storyloom {storyloom.__version__} (format {FORMAT_VERSION}) for the "
            f"collections {', '.join(selected)}. Built from the project's documents: see docs/schema.md."
        ),
        "type": "object",
        "required": [*(c.export_key for c in chosen), "_meta"],
        "additionalProperties": False,
        "properties": properties,
        "$defs": defs,
    }
    apply_to_schema(schema, mode)
    return schema


def build_schema(
    project: ProjectLike, collections: str | Sequence[str] | None = None, compat: str | None = None
) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of ``build_game_export(project, collections, compat=compat)``.

    Same filter, same defaults, same compatibility mode, same rules; raises
    :class:`~storyloom.export.collections_filter.UnknownCollections` on a bad name and
    :class:`~storyloom.export.compat.UnknownCompat` on a bad mode.
    """
    settings = project.settings() or {}
    cache = cache_for(project.db)
    with gc_paused():
        schema = schema_from_docs(
            read_documents(project.db),
            settings,
            collections,
            project_id=_project_attr(project, "id"),
            project_name=_project_attr(project, "name"),
            cache=cache,
            compat=compat,
        )
    if cache is not None:
        cache.trim()
    return schema


def build_export_and_schema(
    project: ProjectLike,
    collections: str | Sequence[str] | None = None,
    exported_by: str | None = None,
    compat: str | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(game export, its schema)`` from **one** reading of the store (``export
    --schema-sidecar``): an edit landing between two readings could otherwise make the schema
    describe another state of the project than the export. The settings come from the same
    reading (the ``ProjectSettings`` document among the documents)."""
    docs = read_documents(project.db)
    found = next((doc for doc in docs if doc.get("_id") == SETTINGS_ID), None)
    settings: dict[str, Any] = copy.deepcopy(found) if found is not None else {}
    name = settings.get("projectName")
    project_name = name if isinstance(name, str) and name else _project_attr(project, "name")
    cache = cache_for(project.db)
    with gc_paused():
        # The schema only reads the documents; the export then transforms them in place.
        schema = schema_from_docs(
            docs,
            settings,
            collections,
            project_id=_project_attr(project, "id"),
            project_name=project_name,
            cache=cache,
            compat=compat,
        )
    export = build_game_export(
        project, collections, exported_by, docs=docs, settings=settings, project_name=project_name, compat=compat
    )
    return export, schema


def sidecar_path(export_path: str) -> str:
    """``game.json`` -> ``game.schema.json`` (any other name gets ``.schema.json`` appended)."""
    return re.sub(r"\.json$", "", export_path, flags=re.IGNORECASE) + ".schema.json"
