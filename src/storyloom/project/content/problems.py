"""The languages of property text, and what content checks report: :class:`ContentError` (text
that does not parse) and :class:`ContentProblem`."""

from __future__ import annotations

import re
from typing import Any

from storyloom.diagnostics import Diagnostic
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

    code = "bad_content"

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


#: A finding of the content rules is a :class:`~storyloom.diagnostics.Diagnostic`; its ``field``
#: (also readable as ``path``) locates it inside the content (``player.courage``,
#: ``cells["3,4"]``). Codes: ``parse-error``, ``not-an-object``, ``missing-sid``, ``bad-sid``,
#: ``duplicate-sid``, ``unknown-state``, ``unknown-property``, ``type-changed``, ``sid-override``,
#: ``bad-dimension``, ``bad-key``, ``out-of-bounds``, ``bad-entry``, ``missing-type``,
#: ``duplicate-edge``, ``bad-marker``.
ContentProblem = Diagnostic


def content_problem(code: str, message: str, path: str = "", line: int | None = None,
                    column: int | None = None, doc_id: str | None = None) -> Diagnostic:
    """A finding of the content rules, located at ``path`` inside the content."""
    return Diagnostic(message, code, doc_id=doc_id, field=path, line=line, column=column)
