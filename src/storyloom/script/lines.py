"""Typed script lines and parse problems (plain data, JSON-ready through ``to_dict``)."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

__all__ = [
    "CommandLine",
    "CommentLine",
    "ElseLine",
    "EndIfLine",
    "IfLine",
    "Interpolation",
    "Problem",
    "ScriptLine",
    "SetLine",
    "SpeechLine",
    "TextLine",
]


@dataclass(slots=True)
class ScriptLine:
    """Base of every line kind; ``line`` is 1-based."""

    kind: ClassVar[str] = "line"
    line: int

    def to_dict(self) -> dict[str, Any]:
        """``{"type": kind, "line": n, <fields>}`` for JSON export."""
        out: dict[str, Any] = {"type": self.kind}
        for f in fields(self):
            value = getattr(self, f.name)
            out[f.name] = list(value) if isinstance(value, (list, tuple)) else value
        return out


@dataclass(slots=True)
class SpeechLine(ScriptLine):
    """``[#tag]::Actor:: text [expression] {json}``."""

    kind: ClassVar[str] = "speech"
    actor: str
    text: str
    tag: str | None = None
    expression: str | None = None
    json: dict[str, Any] | None = None


@dataclass(slots=True)
class CommandLine(ScriptLine):
    """``<Name(param, ...)> {json} // comment``; params are raw, trimmed strings."""

    kind: ClassVar[str] = "command"
    name: str
    params: list[str] = field(default_factory=list)
    json: dict[str, Any] | None = None
    comment: str | None = None


@dataclass(slots=True)
class CommentLine(ScriptLine):
    """``// text``; ``text`` is what follows the slashes, trimmed."""

    kind: ClassVar[str] = "comment"
    text: str


@dataclass(slots=True)
class IfLine(ScriptLine):
    """``@if <condition>``."""

    kind: ClassVar[str] = "if"
    condition: str


@dataclass(slots=True)
class ElseLine(ScriptLine):
    """``@else``."""

    kind: ClassVar[str] = "else"


@dataclass(slots=True)
class EndIfLine(ScriptLine):
    """``@endif``."""

    kind: ClassVar[str] = "endif"


@dataclass(slots=True)
class SetLine(ScriptLine):
    """``@set <path> <operator> <expression>``; ``path`` and ``expression`` as written."""

    kind: ClassVar[str] = "set"
    path: str
    operator: str
    expression: str


@dataclass(slots=True)
class TextLine(ScriptLine):
    """Any other non-blank line; ``text`` keeps its indentation, trailing spaces removed."""

    kind: ClassVar[str] = "text"
    text: str


@dataclass(frozen=True, slots=True)
class Problem:
    """Something wrong in a script: 1-based ``line`` and ``column``, a stable ``code``."""

    line: int
    column: int
    code: str
    message: str
    severity: str = "error"

    def to_dict(self) -> dict[str, Any]:
        """Plain dict for JSON."""
        return {
            "line": self.line,
            "column": self.column,
            "code": self.code,
            "message": self.message,
            "severity": self.severity,
        }


@dataclass(frozen=True, slots=True)
class Interpolation:
    """One well-formed ``${ expression }`` found in a speech, text or command line."""

    line: int
    column: int
    expression: str
