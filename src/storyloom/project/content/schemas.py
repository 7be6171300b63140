"""Type inference from authored values (a JSON Schema fragment), shared by the scenario checks and
the schema export."""

from __future__ import annotations

from typing import Any

# --------------------------------------------------------------------------------------
# Type inference (shared with the schema export)

_TYPE_KEYS = ("type", "properties", "required", "additionalProperties", "items", "anyOf")


def json_type(value: Any) -> str:
    """The JSON Schema type name of a JSON value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def infer_schema(value: Any) -> dict[str, Any]:
    """A JSON Schema fragment for the type of an authored default value.

    - ``null`` constrains nothing (``{}``): a variable authored as null may take any value.
    - booleans, strings: their type; integers ``integer``; other numbers ``number`` (which
      also accepts integers): write ``0.0`` to declare a number.
    - objects: every authored property, all required, no others (``additionalProperties:
      false``), each typed recursively.
    - arrays: the merged type of their elements (``{}`` for an empty array).
    """
    kind = json_type(value)
    if kind == "null":
        return {}
    if kind == "object":
        return {
            "type": "object",
            "properties": {key: infer_schema(item) for key, item in value.items()},
            "required": list(value.keys()),
            "additionalProperties": False,
        }
    if kind == "array":
        items: dict[str, Any] | None = None
        for element in value:
            element_schema = infer_schema(element)
            items = element_schema if items is None else merge_schemas(items, element_schema)
        return {"type": "array", "items": items if items is not None else {}}
    return {"type": kind}


def _alternatives(schema: dict[str, Any]) -> list[dict[str, Any]]:
    return list(schema["anyOf"]) if set(schema) == {"anyOf"} else [schema]


def merge_schemas(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """The narrowest schema (of :func:`infer_schema`'s vocabulary) accepting both ``a`` and ``b``."""
    if a == b:
        return a
    if a == {} or b == {}:
        return {}
    ta, tb = a.get("type"), b.get("type")
    if ta == tb == "object":
        props_a, props_b = a["properties"], b["properties"]
        properties = dict(props_a)
        for key, schema in props_b.items():
            properties[key] = merge_schemas(properties[key], schema) if key in properties else schema
        required = [key for key in a["required"] if key in b["required"]]
        return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}
    if ta == tb == "array":
        return {"type": "array", "items": merge_schemas(a["items"], b["items"])}
    if {ta, tb} == {"integer", "number"} and len(a) == len(b) == 1:
        return {"type": "number"}
    options: list[dict[str, Any]] = []
    for option in [*_alternatives(a), *_alternatives(b)]:
        for i, existing in enumerate(options):
            if existing.get("type") == option.get("type") and option.get("type") in ("object", "array"):
                options[i] = merge_schemas(existing, option)
                break
            if existing == option:
                break
        else:
            options.append(option)
    return options[0] if len(options) == 1 else {"anyOf": options}


def partial_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema of an override of a value of ``schema``: objects become deep-partial (no
    property required, none unknown); arrays and scalars are replaced whole."""
    if schema.get("type") == "object":
        return {
            "type": "object",
            "properties": {key: partial_schema(sub) for key, sub in schema["properties"].items()},
            "additionalProperties": False,
        }
    return schema


def schema_matches(schema: dict[str, Any], value: Any) -> bool:
    """Whether ``value`` is valid against a schema of :func:`infer_schema`'s vocabulary."""
    if "anyOf" in schema:
        return any(schema_matches(option, value) for option in schema["anyOf"])
    expected = schema.get("type")
    if expected is None:
        return True
    actual = json_type(value)
    if expected == "integer":
        if not (actual == "integer" or (actual == "number" and float(value).is_integer())):
            return False
    elif expected == "number":
        if actual not in ("integer", "number"):
            return False
    elif expected != actual:
        return False
    if expected == "object":
        properties = schema.get("properties", {})
        if any(key not in value for key in schema.get("required", ())):
            return False
        for key, item in value.items():
            if key in properties:
                if not schema_matches(properties[key], item):
                    return False
            elif schema.get("additionalProperties") is False:
                return False
    if expected == "array":
        return all(schema_matches(schema.get("items", {}), item) for item in value)
    return True


def describe_schema(schema: dict[str, Any]) -> str:
    """A short human name for a schema: ``integer``, ``object``, ``integer or string``, ``any``."""
    if "anyOf" in schema:
        return " or ".join(describe_schema(option) for option in schema["anyOf"])
    if schema.get("type") == "array":
        items = schema.get("items", {})
        return "array" if not items else f"array of {describe_schema(items)}"
    return str(schema.get("type", "any"))
