"""What the GDD editor colours as a writer types markdown (Qt-free).

:func:`highlight_line` reads one line and says which spans are headings, emphasis, strong text,
code, links, list markers, quotes and fenced code, so the editor's ``QSyntaxHighlighter`` only
paints. A fenced code block (````` ``` ````` or ``~~~``) spans lines: the state of the line before
goes in and the state after comes out, as a highlighter's block state does. The rules follow
CommonMark closely enough for colouring; they never change the text."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Kind = Literal["heading", "emphasis", "strong", "code", "link", "url", "list", "quote", "fence", "rule"]

#: The line ends outside a fenced code block.
NORMAL = 0
#: The line ends inside a fenced code block.
IN_FENCE = 1


@dataclass(frozen=True)
class Span:
    start: int
    length: int
    kind: Kind


_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r"^ {0,3}#{1,6}(?:[ \t].*)?$")
_RULE = re.compile(r"^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$")
_QUOTE = re.compile(r"^ {0,3}(?:>[ \t]?)+")
_LIST = re.compile(r"[ \t]*(?:[-*+]|\d{1,9}[.)])(?=[ \t]|$)(?:[ \t]+\[[ xX]\](?=[ \t]|$))?")
_CODE = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+\"[^\"]*\")?\)")
_AUTOLINK = re.compile(r"<(?:https?|storyloom|drafft|mailto):[^>\s]+>|\bhttps?://[^\s)<>]+")
_STRONG = re.compile(r"(?<![*_\w])(\*\*|__)(?=\S)(.+?)(?<=\S)\1(?![*_\w])")
_EMPHASIS = re.compile(r"(?<![*_\w])([*_])(?=[^\s*_])(.+?)(?<=[^\s*_])\1(?![*_\w])")


def highlight_line(line: str, state: int = NORMAL) -> tuple[list[Span], int]:
    """The spans of ``line`` to colour, and the state for the next line."""
    fence = _FENCE.match(line)
    if state == IN_FENCE:
        return [Span(0, len(line), "fence")], NORMAL if fence else IN_FENCE
    if fence:
        return [Span(0, len(line), "fence")], IN_FENCE
    if _HEADING.match(line):
        return [Span(0, len(line), "heading")], NORMAL
    if _RULE.match(line):
        return [Span(0, len(line), "rule")], NORMAL
    spans: list[Span] = []
    body = 0
    quote = _QUOTE.match(line)
    if quote:
        # The whole quoted line reads as a quote; its inline markup is coloured over it.
        spans.append(Span(0, len(line), "quote"))
        body = quote.end()
    marker = _LIST.match(line, body)
    if marker:
        spans.append(Span(marker.start(), marker.end() - marker.start(), "list"))
        body = marker.end()
    spans.extend(_inline(line, body))
    return spans, NORMAL


def _inline(line: str, start: int) -> list[Span]:
    """Code spans first (nothing inside them is markup), then links, then strong and emphasis
    outside both."""
    spans: list[Span] = []
    taken: list[tuple[int, int]] = []

    def free(begin: int, end: int) -> bool:
        return all(end <= a or begin >= b for a, b in taken)

    for pattern, kind in ((_CODE, "code"), (_LINK, "link"), (_AUTOLINK, "url")):
        for match in pattern.finditer(line, start):
            if free(match.start(), match.end()):
                taken.append((match.start(), match.end()))
                spans.append(Span(match.start(), match.end() - match.start(), kind))  # type: ignore[arg-type]
    emphasis_taken = list(taken)
    for pattern, kind in ((_STRONG, "strong"), (_EMPHASIS, "emphasis")):
        for match in pattern.finditer(line, start):
            if all(match.end() <= a or match.start() >= b for a, b in emphasis_taken):
                emphasis_taken.append((match.start(), match.end()))
                spans.append(Span(match.start(), match.end() - match.start(), kind))  # type: ignore[arg-type]
    spans.sort(key=lambda s: s.start)
    return spans


def highlight_text(text: str) -> list[list[Span]]:
    """Every line's spans, carrying the fence state down the text (what the tests read)."""
    state = NORMAL
    lines: list[list[Span]] = []
    for line in text.split("\n"):
        spans, state = highlight_line(line, state)
        lines.append(spans)
    return lines
