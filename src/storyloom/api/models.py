"""Pydantic models of the JSON bodies, used only to describe them in the OpenAPI document.

Handlers build plain dicts (no validation round trip on the hot path); tests check the bodies
against these schemas through the OpenAPI document.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from storyloom.api import errors as E


class ErrorBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    error: str = Field(description="Stable error code.", examples=[E.UNAUTHORIZED])
    reason: str = Field(description="What went wrong and what to do about it.")


class NavigateErrorBody(BaseModel):
    """Every ``/navigate`` error, whatever its status: an error body with ``success: false``."""

    error: str = Field(description="Stable error code.")
    reason: str = Field(description="What went wrong and what to do about it.")
    success: Literal[False] = Field(description="Always false on an error.")
    id: str | None = Field(None, description="The requested id, when one was given.")
    collection: str | None = Field(None, description="409 only: the document's collection.")
    route: str | None = Field(None, description="409 only: the route the app would have opened.")


class AppInfo(BaseModel):
    name: str
    version: str


class UserInfo(BaseModel):
    username: str | None


class ProjectInfo(BaseModel):
    id: str
    name: str
    description: str | None
    version: str | None
    settings: dict[str, Any] = Field(
        description="The project settings without CouchDB metadata, secrets or machine-local data."
    )


class InfoBody(BaseModel):
    app: AppInfo
    apiVersion: str
    user: UserInfo
    project: ProjectInfo
    collections: list[str] = Field(description="Every export name accepted by `collections`.")


class NavigateBody(BaseModel):
    success: Literal[True] = True
    id: str
    collection: str = Field(description="As the app writes it, e.g. `Gdd`.")
    route: str = Field(description="`/<collection lowercase>/<id>`.")


ERROR_EXAMPLES: dict[str, dict[str, Any]] = {
    E.UNAUTHORIZED: {"error": E.UNAUTHORIZED, "reason": E.REASON_UNAUTHORIZED},
    E.NO_PROJECT: {"error": E.NO_PROJECT, "reason": E.REASON_NO_PROJECT},
    E.BAD_REQUEST: {"error": E.BAD_REQUEST,
                    "reason": "invalid query parameter 'limit': expected a non-negative integer, got 'ten'"},
    E.FORBIDDEN_HOST: {"error": E.FORBIDDEN_HOST,
                       "reason": "Host 'evil.example:9001' is not allowed: use http://127.0.0.1:9001 or "
                                 "http://localhost:9001 (requests for other host names are refused to "
                                 "protect against DNS rebinding)"},
    E.FORBIDDEN_ORIGIN: {"error": E.FORBIDDEN_ORIGIN,
                         "reason": "Origin 'https://evil.example' is not allowed: browsers may only call this "
                                   "API from origins the user allowed explicitly (none by default)"},
    E.NOT_FOUND: {"error": E.NOT_FOUND,
                  "reason": "no endpoint at '/nope'; the endpoints are /info, /game-export, ..."},
    E.UNKNOWN_COLLECTIONS: {"error": E.UNKNOWN_COLLECTIONS,
                            "reason": "collections: unknown collection 'Scenes2'; valid collections: "
                                      "ProjectSettings, GDD, Scripts, Dialogues, Actors, Quests, Items, "
                                      "Variables, Scenarios, Scenes, Misc, Grids, Kanban, Canvas, Maps"},
    E.NOT_NAVIGABLE: {"error": E.NOT_NAVIGABLE, "success": False, "id": "_design/idx-1",
                      "reason": "only documents can be navigated to: '_design/idx-1' is a design document"},
    E.NAVIGATION_UNAVAILABLE: {"error": E.NAVIGATION_UNAVAILABLE, "success": False, "id": "doc_123",
                               "collection": "Gdd", "route": "/gdd/doc_123",
                               "reason": "no desktop app is attached to this server (headless `storyloom "
                                         "serve`): nothing can open the document"},
    E.INTERNAL_ERROR: {"error": E.INTERNAL_ERROR,
                       "reason": "unexpected error (RuntimeError); see Storyloom's log"},
    E.METHOD_NOT_ALLOWED: {"error": E.METHOD_NOT_ALLOWED,
                           "reason": "POST is not allowed on /info; every endpoint answers GET and HEAD only"},
}
