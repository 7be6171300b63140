"""Typed script lines and parse problems (plain data, JSON-ready through ``to_dict``)."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

from storyloom.diagnostics import Diagnostic

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
            out[f.name] = _plain(getattr(self, f.name))
        return out

    def __init_subclass__(cls) -> None:
        # A line kind's spelled-out to_dict lists that kind's fields only: a subclass that does
        # not write its own gets the generic one, so no field it adds is left out. (No super():
        # slots=True recreates the class, which breaks its zero-argument form; object's does nothing.)
        if "to_dict" not in cls.__dict__:
            cls.to_dict = ScriptLine.to_dict  # type: ignore[method-assign]


def _plain(value: Any) -> Any:
    """A field's value for ``to_dict``: lists and tuples as fresh lists, anything else as is."""
    return list(value) if isinstance(value, (list, tuple)) else value


# The line kinds below spell their ``to_dict`` out, as the generic one would build it (the
# export calls it for every line); their text fields hold strings (or None), so only
# ``params`` and ``json`` can need the list copy.


@dataclass(slots=True)
class SpeechLine(ScriptLine):
    """``[#tag]::Actor:: text [expression] {json}``."""

    kind: ClassVar[str] = "speech"
    actor: str
    text: str
    tag: str | None = None
    expression: str | None = None
    json: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": "speech",
            "line": self.line,
            "actor": self.actor,
            "text": self.text,
            "tag": self.tag,
            "expression": self.expression,
            "json": _plain(self.json),
        }


@dataclass(slots=True)
class CommandLine(ScriptLine):
    """``<Name(param, ...)> {json} // comment``; params are raw, trimmed strings."""

    kind: ClassVar[str] = "command"
    name: str
    params: list[str] = field(default_factory=list)
    json: dict[str, Any] | None = None
    comment: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": "command",
            "line": self.line,
            "name": self.name,
            "params": _plain(self.params),
            "json": _plain(self.json),
            "comment": self.comment,
        }


@dataclass(slots=True)
class CommentLine(ScriptLine):
    """``// text``; ``text`` is what follows the slashes, trimmed."""

    kind: ClassVar[str] = "comment"
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {"type": "comment", "line": self.line, "text": self.text}


@dataclass(slots=True)
class IfLine(ScriptLine):
    """``@if <condition>``."""

    kind: ClassVar[str] = "if"
    condition: str

    def to_dict(self) -> dict[str, Any]:
        return {"type": "if", "line": self.line, "condition": self.condition}


@dataclass(slots=True)
class ElseLine(ScriptLine):
    """``@else``."""

    kind: ClassVar[str] = "else"

    def to_dict(self) -> dict[str, Any]:
        return {"type": "else", "line": self.line}


@dataclass(slots=True)
class EndIfLine(ScriptLine):
    """``@endif``."""

    kind: ClassVar[str] = "endif"

    def to_dict(self) -> dict[str, Any]:
        return {"type": "endif", "line": self.line}


@dataclass(slots=True)
class SetLine(ScriptLine):
    """``@set <path> <operator> <value>``; ``path`` and ``value`` (an expression) as written.

    The value is ``value``, not ``expression``: in a speech line ``expression`` is the actor's
    facial expression, and the export must not give one key two meanings.
    """

    kind: ClassVar[str] = "set"
    path: str
    operator: str
    value: str

    @property
    def expression(self) -> str:
        """The value's text (the name this field had before export format version 1)."""
        return self.value

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": "set",
            "line": self.line,
            "path": self.path,
            "operator": self.operator,
            "value": self.value,
        }


@dataclass(slots=True)
class TextLine(ScriptLine):
    """Any other non-blank line; ``text`` keeps its indentation, trailing spaces removed."""

    kind: ClassVar[str] = "text"
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {"type": "text", "line": self.line, "text": self.text}


#: A script problem is a :class:`~storyloom.diagnostics.Diagnostic` with ``line`` and ``column``.
Problem = Diagnostic


@dataclass(frozen=True, slots=True)
class Interpolation:
    """One well-formed ``${ expression }`` found in a speech, text or command line."""

    line: int
    column: int
    expression: str
