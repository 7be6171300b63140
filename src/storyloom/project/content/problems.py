"""The languages of property text, and what content checks report: :class:`ContentError` (text
that does not parse) and :class:`ContentProblem`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from storyloom.errors import StoryloomError

LANGUAGES: tuple[str, ...] = ("json", "hjson", "yaml", "toml", "text")
"""The property languages a document's ``editorLanguage`` may name."""

STRUCTURED_LANGUAGES: tuple[str, ...] = ("json", "hjson", "yaml", "toml")

SID_PATTERN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
"""A ``_sid`` must be addressable from scripts as ``variables.<_sid>.<prop>``."""


# --------------------------------------------------------------------------------------
# Errors and problems


class ContentError(StoryloomError, ValueError):
    """Content that cannot be used; ``line``/``column`` are 1-based (``None`` when unknown)."""

    def __init__(
        self,
        message: str,
        line: int | None = None,
        column: int | None = None,
        *,
        language: str | None = None,
    ) -> None:
        self.message = message
        self.line = line
        self.column = column
        self.language = language
        super().__init__(self.__str__())

    def __str__(self) -> str:
        where = ""
        if self.line is not None:
            where = f"line {self.line}"
            if self.column is not None:
                where += f", column {self.column}"
            where += ": "
        return f"{where}{self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "message": self.message,
            "line": self.line,
            "column": self.column,
            "language": self.language,
        }


@dataclass(frozen=True)
class ContentProblem:
    """One finding about a document's content.

    ``code`` is stable and machine-readable (``parse-error``, ``not-an-object``, ``missing-sid``,
    ``bad-sid``, ``duplicate-sid``, ``unknown-state``, ``unknown-property``, ``type-changed``,
    ``sid-override``, ``bad-dimension``, ``bad-key``, ``out-of-bounds``, ``bad-entry``,
    ``missing-type``, ``duplicate-edge``, ``bad-marker``); ``path`` locates the finding inside
    the content (``player.courage``, ``cells["3,4"]``); ``line``/``column`` point into the
    source text when known (best effort for keys, exact for parse errors).
    """

    code: str
    message: str
    path: str = ""
    line: int | None = None
    column: int | None = None
    doc_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "message": self.message,
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "docId": self.doc_id,
        }

    def __str__(self) -> str:
        where = f"{self.path}: " if self.path else ""
        if self.line is not None:
            where = f"line {self.line}" + (f", column {self.column}" if self.column else "") + f": {where}"
        return f"{where}{self.message}"
