"""GDD markdown read for printing, with markdown-it-py (CommonMark, plus GitHub's tables and
strikethrough): the tokens the HTML and DOCX writers walk.

Drafft's document references (``:doc{#id}``) print as the document's name (a printed page has
no links into the project), and a page's headings move below its title's level."""

from __future__ import annotations

import re
from collections.abc import Callable

from markdown_it import MarkdownIt
from markdown_it.token import Token

_DOC_REF = re.compile(r":doc\{#([^}\s]+)\}")
#: The deepest heading HTML has.
MAX_LEVEL = 6


def parser() -> MarkdownIt:
    """A markdown-it parser as Storyloom prints with: CommonMark, tables, strikethrough, raw HTML
    kept (a Drafft 1 GDD is HTML)."""
    return MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])


def name_refs(markdown: str, name_of: Callable[[str], str | None]) -> str:
    """``:doc{#id}`` as the document's name (its id when unknown)."""
    return _DOC_REF.sub(lambda match: name_of(match[1]) or match[1], markdown)


def page_tokens(markdown: str, *, below: int = 0, name_of: Callable[[str], str | None] | None = None) -> list[Token]:
    """The block tokens of ``markdown``, each heading ``below`` levels deeper (at most h6)."""
    text = name_refs(markdown, name_of or (lambda _id: None))
    tokens = parser().parse(text)
    if below:
        for token in tokens:
            if token.type in ("heading_open", "heading_close"):
                token.tag = f"h{min(MAX_LEVEL, int(token.tag[1:]) + below)}"
    return tokens


def heading_level(token: Token) -> int:
    """The level of a ``heading_open`` token (``h2`` -> 2)."""
    return int(token.tag[1:])


def image_sources(tokens: list[Token]) -> list[str]:
    """Every image source the tokens reference, in order (repeats kept once)."""
    found: list[str] = []
    for token in tokens:
        for child in token.children or ():
            if child.type == "image":
                src = str(child.attrGet("src") or "")
                if src not in found:
                    found.append(src)
    return found
