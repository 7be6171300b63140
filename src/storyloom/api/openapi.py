"""The OpenAPI document: ``/openapi.json``, the pieces endpoints declare with (error responses,
parameter patterns) and :func:`build_openapi`, which adjusts FastAPI's document."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.openapi.utils import get_openapi
from starlette.responses import Response

from storyloom.api import errors as E
from storyloom.api.models import ERROR_EXAMPLES, ErrorBody, NavigateErrorBody
from storyloom.api.openapi_rules import collections_pattern, constrain_parameters
from storyloom.api.protection import API_KEY_HEADER
from storyloom.api.responses import JsonResponse
from storyloom.api.state import State, route

# Documented in the OpenAPI document; the handler's own parser gives the error messages.
BOOLEAN_PATTERN = "^([Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee])$"
INTEGER_PATTERN = "^([+]?[0-9]+|-0+)$"
LAST_EVENT_ID_PATTERN = "^[0-9]{0,18}$"  # empty: as if not sent
DOCUMENT_ID_PATTERN = "^[^_]"  # not empty, and not a design, _local or other reserved (`_`) id
COLLECTIONS_PATTERN = collections_pattern()
COMMON = (401, 403, 405, 500)  # the statuses every endpoint but /openapi.json can answer


def error_responses(*statuses: int, navigate: bool = False) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` for the error statuses an endpoint can answer."""
    out: dict[int | str, dict[str, Any]] = {}
    for status in sorted(set(statuses)):
        specs = [s for s in E.ERRORS if s.status == status]
        model = NavigateErrorBody if navigate else ErrorBody
        description = " ".join(f"`{s.code}`: {s.description}" for s in specs) or "Error"
        examples = {s.code: {"value": _example(s.code, navigate)} for s in specs if s.code in ERROR_EXAMPLES}
        entry: dict[str, Any] = {"model": model, "description": description}
        if examples:
            entry["content"] = {"application/json": {"examples": examples}}
        out[status] = entry
    return out


def _example(code: str, navigate: bool) -> dict[str, Any]:
    example = ERROR_EXAMPLES[code]
    return {**example, "success": False} if navigate and "success" not in example else example


@route(
    "/openapi.json",
    summary="This OpenAPI document",
    description="Public (no key): it describes the API and nothing about the loaded project.",
    responses={200: {"content": {"application/json": {"schema": {"type": "object"}}}},
               **error_responses(403, 405)},
    openapi_extra={"security": []},
    tags=["meta"],
)
async def openapi_document(request: Request, state: State) -> Response:
    if state.openapi_body is None:
        state.openapi_body = bytes(JsonResponse(build_openapi(request.app)).body)
    return Response(state.openapi_body, media_type="application/json")


def build_openapi(app: FastAPI) -> dict[str, Any]:
    """FastAPI's document, adjusted: key scheme, no 422s, our error schemas."""
    doc = get_openapi(
        title=app.title,
        version=app.version,
        description=app.description,
        routes=app.routes,
    )
    components = doc.setdefault("components", {})
    schemas = components.setdefault("schemas", {})
    schemas.pop("HTTPValidationError", None)
    schemas.pop("ValidationError", None)
    schemas["AllDocs"] = {
        "type": "object",
        "description": "CouchDB `_all_docs` output.",
        "properties": {
            "total_rows": {"type": "integer"},
            "offset": {"type": ["integer", "null"]},
            "update_seq": {},
            "rows": {"type": "array", "items": {"type": "object"}},
        },
        "required": ["rows"],
    }
    components["securitySchemes"] = {
        "apiKey": {"type": "apiKey", "in": "header", "name": API_KEY_HEADER,
                   "description": "The key shown in Storyloom's options, or given to `storyloom serve`."}
    }
    doc["security"] = [{"apiKey": []}]
    for path, path_item in doc.get("paths", {}).items():
        for method, operation in path_item.items():
            operation.get("responses", {}).pop("422", None)
            for parameter in operation.get("parameters", []):
                parameter["schema"] = _plain_parameter_schema(parameter.get("schema", {}))
            constrain_parameters(path, operation.get("parameters", []))
            if method == "head":
                # The same statuses and headers as GET, never a body.
                operation["summary"] = f"{operation.get('summary', '')} (headers only)".strip()
                operation["description"] = (
                    "HEAD: the status and headers GET would answer, without the body. "
                    + operation.get("description", "")
                ).strip()
                for response in operation.get("responses", {}).values():
                    response.pop("content", None)
    return doc


def _plain_parameter_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """``{"anyOf": [{"type": "string"}, {"type": "null"}], ...}`` → ``{"type": "string", ...}``.

    A query parameter is absent or a string; "null" only describes the Python default.
    """
    out = {k: v for k, v in schema.items() if k not in ("anyOf", "title", "description")}
    members = [m for m in schema.get("anyOf", []) if m.get("type") != "null"]
    if len(members) == 1:
        out.update(members[0])
    elif "anyOf" in schema:
        out["anyOf"] = members
    return out
