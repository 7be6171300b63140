"""Screenplays as Fountain (https://fountain.io/syntax, version 1.1), the plain-text screenplay
format Highland, Final Draft's importer, screenplain and many others read.

- A title page (``Title:``, and ``Source: Storyloom``), then each script under a forced scene
  heading (``.NAME``): a script is a scene of the game. A folder is a section (``#`` at its
  depth), which Fountain apps show in their outline and do not print.
- A speech is a character cue in capitals (forced with ``@`` when it has no letter to
  capitalise), an optional parenthetical, the dialogue.
- Action lines are forced with ``!``: a line in capitals or starting with ``@`` or ``>`` is
  still action, never read as a cue or a transition.
- A branch marker is centered text (``> IF condition <``); a comment a note (``[[...]]``), which
  Fountain apps show or hide as the writer chooses.
- ``*`` and ``_`` mark emphasis in Fountain only in pairs: a line holding two or more of one is
  escaped with ``\\`` (as the spec says), a line with one is left as written.
"""

from __future__ import annotations

from storyloom.outputs.formats import NotPrintable
from storyloom.outputs.model import (
    ACTION,
    BRANCH,
    CHARACTER,
    DIALOGUE,
    NOTE,
    PARENTHETICAL,
    Element,
    Page,
    PrintDocument,
    Screenplay,
)


def to_fountain(document: PrintDocument) -> str:
    """The Fountain text of ``document``; raises :class:`NotPrintable` for a page with text (prose
    has no screenplay form; a folder's heading is a section)."""
    for part in document.parts:
        if isinstance(part, Page) and part.markdown is not None:
            raise NotPrintable(f"“{part.title}” is a page, not a script: a .fountain file holds screenplays only; "
                               "print it to .pdf, .docx or .html.")
    out = [f"Title: {_one_line(document.title)}", "Source: Storyloom", ""]
    for part in document.parts:
        if isinstance(part, Page):  # a folder: a section, which Fountain apps show in their outline
            out.extend([f"{'#' * max(1, part.level)} {_one_line(part.title)}", ""])
        else:
            out.extend(_screenplay(part))
    return "\n".join(out).rstrip("\n") + "\n"


def _screenplay(play: Screenplay) -> list[str]:
    out = [f".{_one_line(play.title).upper()}", ""]
    elements = play.elements
    index = 0
    while index < len(elements):
        element = elements[index]
        if element.kind == CHARACTER:
            block = [_cue(element.text)]
            index += 1
            while index < len(elements) and elements[index].kind in (PARENTHETICAL, DIALOGUE):
                block.append(_escape(_one_line(elements[index].text)))
                index += 1
            out.extend([*block, ""])
            continue
        out.extend([_single(element), ""])
        index += 1
    return out


def _single(element: Element) -> str:
    text = _one_line(element.text)
    if element.kind == BRANCH:
        return f"> {_escape(text)} <"
    if element.kind == NOTE:
        return f"[[{text.replace(']]', '] ]')}]]"
    if element.kind in (ACTION, DIALOGUE, PARENTHETICAL):
        return f"!{_escape(text)}"
    return f"!{_escape(text)}"  # pragma: no cover - a cue is handled by the caller


def _cue(name: str) -> str:
    upper = _one_line(name).upper()
    # A cue is a line of capitals; a name with no letter (``R2``? ``42``) is forced with @.
    return upper if any(ch.isalpha() for ch in upper) else f"@{upper}"


def _escape(text: str) -> str:
    for mark in ("*", "_"):
        if text.count(mark) >= 2:
            text = text.replace(mark, "\\" + mark)
    return text


def _one_line(text: str) -> str:
    return " ".join(str(text).split())
