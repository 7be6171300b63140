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


def render_mapping(line: SpeechLine | CommandLine, template: str, escape: Callable[[str], str] | None = None) -> str:
    """Render ``template`` for ``line``.

    Variables that do not apply to the line's kind render empty (``%command`` on a speech line),
    as do missing parts (no tag, no expression, no JSON). ``escape``, when given, is applied to
    the text values (actor, speech, tag, expression, command, each param) but not to ``%json``.
    Raises TypeError for a line that is neither speech nor a command.
    """
    if not isinstance(line, (SpeechLine, CommandLine)):
        raise TypeError(f"export mappings apply to speech and command lines, not {line.kind} lines")
    esc = escape or (lambda value: value)
    speech = isinstance(line, SpeechLine)
    params = [esc(p) for p in line.params] if isinstance(line, CommandLine) else []
    values = {
        "tag": esc(line.tag or "") if isinstance(line, SpeechLine) else "",
        "actor": esc(line.actor) if isinstance(line, SpeechLine) else "",
        "speech": esc(line.text) if isinstance(line, SpeechLine) else "",
        "expression": esc(line.expression or "") if isinstance(line, SpeechLine) else "",
        "command": "" if speech else esc(line.name),  # type: ignore[union-attr]
        "json": _compact_json(line.json),
    }
    out: list[str] = []
    i = 0
    n = len(template)
    while i < n:
        ch = template[i]
        if ch != "%":
            j = template.find("%", i)
            j = n if j < 0 else j
            out.append(template[i:j])
            i = j
            continue
        if template.startswith("%%", i):
            out.append("%")
            i += 2
            continue
        name = next((v for v in MAPPING_VARIABLES if template.startswith(v, i + 1)), None)
        if name is None:
            out.append("%")
            i += 1
            continue
        i += 1 + len(name)
        if name == "params":
            separator = None
            if i < n and template[i] == "(":
                close = template.find(")", i + 1)
                if close >= 0:
                    separator = template[i + 1 : close]
                    i = close + 1
            out.append(join_params(params, separator))
        else:
            out.append(values[name])
    return "".join(out)


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
