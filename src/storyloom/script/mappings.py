"""Export mappings: rewrite a speech or command line through a per-language template.

Variables: ``%tag %actor %speech %expression %json %command %params %params(<separator>)``
and ``%%`` for a literal ``%``. See ``docs/scripting.md`` ("Export mappings") for the rules.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from storyloom.script.lines import CommandLine, ScriptLine, SpeechLine

__all__ = ["MAPPING_VARIABLES", "join_params", "render_line", "render_mapping"]

#: Variable names, longest first: at any ``%`` the longest name that matches wins.
MAPPING_VARIABLES = ("expression", "command", "speech", "params", "actor", "json", "tag")


def join_params(params: list[str], separator: str | None = None) -> str:
    """Join command params for ``%params`` (``separator`` None) or ``%params(<separator>)``.

    Without a separator, and with a separator that has no whitespace (``,`` ``;`` ``|``), one
    space follows the separator; a separator containing whitespace is used exactly as written.
    """
    if separator is None:
        separator = ","
    if separator and not any(ch.isspace() for ch in separator):
        separator += " "
    return separator.join(params)


def _compiled_template(template: str) -> tuple[tuple[str | int, ...], tuple[tuple[str, str | None], ...]]:
    """``template`` read once: ``(parts, fields)``. Each part is literal text or the index of a
    field; a field is ``(variable name, %params separator or None)``. Memoised per template."""
    compiled = _compiled.get(template)
    if compiled is None:
        compiled = _compile(template)
        if len(_compiled) >= 256:
            _compiled.clear()
        _compiled[template] = compiled
    return compiled


_compiled: dict[str, tuple[tuple[str | int, ...], tuple[tuple[str, str | None], ...]]] = {}


def _compile(template: str) -> tuple[tuple[str | int, ...], tuple[tuple[str, str | None], ...]]:
    parts: list[str | int] = []
    fields: list[tuple[str, str | None]] = []
    text: list[str] = []  # literal text since the last field
    i = 0
    n = len(template)
    while i < n:
        ch = template[i]
        if ch != "%":
            j = template.find("%", i)
            j = n if j < 0 else j
            text.append(template[i:j])
            i = j
            continue
        if template.startswith("%%", i):
            text.append("%")
            i += 2
            continue
        name = next((v for v in MAPPING_VARIABLES if template.startswith(v, i + 1)), None)
        if name is None:
            text.append("%")
            i += 1
            continue
        i += 1 + len(name)
        separator = None
        if name == "params" and i < n and template[i] == "(":
            close = template.find(")", i + 1)
            if close >= 0:
                separator = template[i + 1 : close]
                i = close + 1
        if text:
            parts.append("".join(text))
            text = []
        parts.append(len(fields))
        fields.append((name, separator))
    if text:
        parts.append("".join(text))
    return tuple(parts), tuple(fields)


def render_mapping(line: SpeechLine | CommandLine, template: str, escape: Callable[[str], str] | None = None) -> str:
    """Render ``template`` for ``line``.

    Variables that do not apply to the line's kind render empty (``%command`` on a speech line),
    as do missing parts (no tag, no expression, no JSON). ``escape``, when given, is applied to
    the text values (actor, speech, tag, expression, command, each param) but not to ``%json``.
    Raises TypeError for a line that is neither speech nor a command.
    """
    speech = isinstance(line, SpeechLine)
    if not speech and not isinstance(line, CommandLine):
        raise TypeError(f"export mappings apply to speech and command lines, not {line.kind} lines")
    parts, fields = _compiled_template(template)
    if escape is None:
        if speech:
            values = [_speech_value(line, name) for name, _ in fields]  # type: ignore[arg-type]
        else:
            values = [_command_value(line, name, sep) for name, sep in fields]  # type: ignore[arg-type]
    else:
        params = [escape(p) for p in line.params] if not speech else []  # type: ignore[union-attr]
        named = {
            "tag": escape(line.tag or "") if speech else "",  # type: ignore[union-attr]
            "actor": escape(line.actor) if speech else "",  # type: ignore[union-attr]
            "speech": escape(line.text) if speech else "",  # type: ignore[union-attr]
            "expression": escape(line.expression or "") if speech else "",  # type: ignore[union-attr]
            "command": "" if speech else escape(line.name),  # type: ignore[union-attr]
            "json": _compact_json(line.json),
        }
        values = [join_params(params, sep) if name == "params" else named[name] for name, sep in fields]
    return "".join([part if part.__class__ is str else values[part] for part in parts])  # type: ignore[index]


def _speech_value(line: SpeechLine, name: str) -> str:
    if name == "actor":
        return line.actor
    if name == "speech":
        return line.text
    if name == "tag":
        return line.tag or ""
    if name == "expression":
        return line.expression or ""
    if name == "json":
        return _compact_json(line.json)
    return ""  # %command, %params


def _command_value(line: CommandLine, name: str, separator: str | None) -> str:
    if name == "command":
        return line.name
    if name == "params":
        return join_params(line.params, separator)
    if name == "json":
        return _compact_json(line.json)
    return ""  # %tag, %actor, %speech, %expression


def render_line(line: ScriptLine, speech_template: str, command_template: str) -> str | None:
    """The mapped text of a speech or command line, or None when no (non-empty) template applies."""
    if isinstance(line, SpeechLine) and speech_template:
        return render_mapping(line, speech_template)
    if isinstance(line, CommandLine) and command_template:
        return render_mapping(line, command_template)
    return None


def _compact_json(value: object) -> str:
    if value is None:
        return ""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
