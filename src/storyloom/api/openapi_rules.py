"""What the OpenAPI document states about parameters beyond FastAPI's types.

A schema-driven client or fuzzer must agree with the server on which values are valid: what
the document allows is answered (2xx, 404...), what it refuses is a 400. So the document states
the checks the handlers make: the `collections` grammar, the exports' `compat` values,
`/navigate`'s required `id`, and the
`/db-dump` options that are JSON text (described by `content`, OpenAPI 3.1, so a client sends
JSON and knows which JSON). What no schema can say (`keys` together with `key`, `startkey` or
`endkey`; JSON nested deeper than ``query.MAX_JSON_DEPTH`` levels) is in the descriptions.
"""

from __future__ import annotations

from typing import Any

from storyloom.api.query import ID_OPTIONS, MAX_JSON_DEPTH
from storyloom.export import COMPAT_VALUES
from storyloom.project import EXPORT_NAMES

# /db-dump options whose value is JSON text, and the JSON each takes.
JSON_PARAMETERS: dict[str, dict[str, Any]] = {
    **{name: {"type": ["string", "null"]} for name in ID_OPTIONS},
    "keys": {"type": "array",
             "description": f"Document ids (strings); other JSON values get `not_found` rows. Arrays and "
                            f"objects nest at most {MAX_JSON_DEPTH} levels deep."},
}
# The exports' `compat` parameter: exactly one of these (anything else is a 400 `bad_request`).
EXPORT_PATHS: frozenset[str] = frozenset({"/game-export", "/schema-export"})
COMPAT_SCHEMA: dict[str, Any] = {"type": "string", "enum": list(COMPAT_VALUES)}
# Parameters a handler refuses to go without (FastAPI sees them as optional: the handler checks).
REQUIRED: frozenset[tuple[str, str]] = frozenset({("/navigate", "id")})


def collections_pattern() -> str:
    """The `collections` grammar: export names, any case, comma-separated, spaces around names.

    Names are ASCII; the API refuses non-ASCII letters that case folding would turn into ASCII
    (``ſ``, the Kelvin sign), so this pattern is exactly what the server accepts.
    """
    def any_case(name: str) -> str:
        return "".join(f"[{c.upper()}{c.lower()}]" if c.isalpha() else c for c in name)

    name = "(" + "|".join(any_case(n) for n in EXPORT_NAMES) + ")"
    return rf"^\s*{name}\s*(,\s*{name}\s*)*$"


def constrain_parameters(path: str, parameters: list[dict[str, Any]]) -> None:
    """Add to ``parameters`` (of the operation at ``path``) what FastAPI cannot say."""
    for parameter in parameters:
        name = parameter.get("name")
        if (path, name) in REQUIRED:
            parameter["required"] = True
        if path in EXPORT_PATHS and name == "compat":
            parameter["schema"] = dict(COMPAT_SCHEMA)
        if path == "/db-dump" and name in JSON_PARAMETERS:
            parameter.pop("schema", None)
            parameter["content"] = {"application/json": {"schema": JSON_PARAMETERS[name]}}
