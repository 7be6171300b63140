"""The rule for project names: what a name may contain, and how to show an old one safely.

A project name is used as a command-line argument (``storyloom sync NAME``), printed in lists
and terminals, and suggested as a file name (``backup``). So a name is refused when it:

- is empty or only whitespace;
- is longer than :data:`MAX_NAME_LENGTH` characters;
- contains ``/`` or ``\\`` (path separators: the name would read as a path), or is ``.`` or
  ``..`` (this folder, the parent folder). Dots elsewhere (``"To be continued..."``) are fine:
  without separators no name can form a path;
- contains a control character (C0, DEL, C1: a terminal runs escape sequences), a line or
  paragraph separator, or a bidirectional override or isolate (they make a name display as
  another one);
- is not valid UTF-8 text: a command-line argument whose bytes are not UTF-8 reaches Python as
  lone surrogates (``surrogateescape``), which no store, file or terminal can hold.

:func:`name_problem` says what is wrong (the character, its position counted from 1, and why);
:func:`display_name` shows a name made before these rules without running its control characters.
"""

from __future__ import annotations

import unicodedata

MAX_NAME_LENGTH = 200

# Explicit directional formatting characters (Unicode UAX #9): they reorder the text around
# them, so a name could display as another.
_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")


def _character_problem(ch: str) -> str | None:
    if ch in "/\\":
        return "a path separator (the name would read as a path)"
    category = unicodedata.category(ch)
    if category == "Cc":
        return "a control character (terminals run them: a name must print as it reads)"
    if category in ("Zl", "Zp"):
        return "a line break (a name is one line)"
    if ch in _BIDI_CONTROLS:
        return "a bidirectional text control (it makes the name display as another)"
    return None


def _describe(ch: str) -> str:
    if ch in "/\\":
        return repr(ch)
    name = unicodedata.name(ch, "")
    return f"U+{ord(ch):04X}" + (f" ({name})" if name else "")


def name_problem(name: object) -> str | None:
    """Why ``name`` cannot be a project name (one sentence, naming the culprit), or None if it can.

    The name is judged as given; callers strip surrounding whitespace first if they mean to.
    """
    if not isinstance(name, str):
        return f"a project name must be text, got {type(name).__name__}"
    for position, ch in enumerate(name, start=1):
        if "\udc80" <= ch <= "\udcff":  # one undecodable byte, as surrogateescape carries it
            shown = "".join(f"\\x{ord(c) - 0xDC00:02x}" if "\udc80" <= c <= "\udcff" else c for c in name)
            return (
                f"the project name '{shown}' is not valid UTF-8 text (byte 0x{ord(ch) - 0xDC00:02X} at "
                f"position {position}): use a name typed in a UTF-8 terminal or locale"
            )
        if unicodedata.category(ch) == "Cs":
            return f"the project name {name!r} holds a lone surrogate (U+{ord(ch):04X}) at position {position}"
    if not name.strip():
        return "a project name cannot be empty or only whitespace"
    if len(name) > MAX_NAME_LENGTH:
        return f"a project name can have at most {MAX_NAME_LENGTH} characters; this one has {len(name)}"
    if name in (".", ".."):
        return f"a project name cannot be {name!r}: it means a folder ({'this' if name == '.' else 'the parent'} one)"
    for position, ch in enumerate(name, start=1):
        why = _character_problem(ch)
        if why:
            return (
                f"the project name {name!r} contains {_describe(ch)} at position {position}, "
                f"{why}: choose a name without it"
            )
    return None


def _unsafe_to_print(ch: str) -> bool:
    return ch not in "/\\" and (_character_problem(ch) is not None or unicodedata.category(ch) == "Cs")


def display_name(name: str) -> str:
    """``name`` as it is safe to print: control, line-break, bidirectional and undecodable
    characters escaped (``\\x1b``); anything else as it is."""
    if not any(_unsafe_to_print(ch) for ch in name):
        return name
    return "".join(ch.encode("unicode_escape").decode("ascii") if _unsafe_to_print(ch) else ch for ch in name)
