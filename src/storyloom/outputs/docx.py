"""A print document as a Word file, with python-docx: real Heading styles, List Bullet and List
Number paragraphs, Word tables, a Quote style for quotes and a Code style for code, images
embedded; a screenplay in paragraph styles named after its elements (``Character``,
``Dialogue``, ``Parenthetical``, ``Action``, ``Branch``, ``Script Note``, ``Scene Heading``) in
Courier 12 with a screenplay's indents, so a writer restyles them in one place."""

from __future__ import annotations

import copy
import io
import re
from collections.abc import Callable, Mapping
from typing import IO, Any

from docx import Document
from docx.enum.style import WD_STYLE_TYPE
from docx.enum.text import WD_ALIGN_PARAGRAPH, WD_BREAK
from docx.image.exceptions import UnrecognizedImageError
from docx.shared import Inches, Pt, RGBColor
from docx.text.paragraph import Paragraph
from markdown_it.token import Token

from storyloom.outputs.markdown import heading_level, page_tokens
from storyloom.outputs.model import Image, Page, PrintDocument, Screenplay

MONO = "Courier New"
MAX_IMAGE_WIDTH = Inches(6)
MAX_HEADING = 9
_TAG = re.compile(r"<[^>]*>")
# (style name, left indent, right indent, alignment, bold, italic, space before) of each element.
_SCREENPLAY_STYLES: dict[str, tuple[str, float, float, Any, bool, bool, int]] = {
    "scene": ("Scene Heading", 0, 0, None, True, False, 24),
    "action": ("Action", 0, 0, None, False, False, 12),
    "character": ("Character", 2.2, 0, None, False, False, 12),
    "parenthetical": ("Parenthetical", 1.6, 1.4, None, False, False, 0),
    "dialogue": ("Dialogue", 1.0, 1.0, None, False, False, 0),
    "branch": ("Branch", 0, 0, WD_ALIGN_PARAGRAPH.CENTER, True, False, 12),
    "note": ("Script Note", 0, 0, None, False, True, 12),
}


def write_docx(document: PrintDocument, target: IO[bytes], images: Mapping[str, Image] | None = None, *,
               name_of: Callable[[str], str | None] | None = None) -> None:
    """Write ``document`` as a .docx to ``target``; ``images`` maps the pages' image sources to
    what the caller found."""
    doc = Document()
    doc.core_properties.title = document.title
    if document.needs_title:
        doc.add_heading(document.title, 0)
    styles = _Styles(doc)
    for part in document.parts:
        if isinstance(part, Screenplay):
            _screenplay(doc, styles, part)
        else:
            _PageWriter(doc, styles, images or {}, name_of).write(part)
    doc.save(target)


def docx_bytes(document: PrintDocument, images: Mapping[str, Image] | None = None, *,
               name_of: Callable[[str], str | None] | None = None) -> bytes:
    buffer = io.BytesIO()
    write_docx(document, buffer, images, name_of=name_of)
    return buffer.getvalue()


# ---------------------------------------------------------------------------------- screenplay


class _Styles:
    """A document's paragraph styles by name, each looked up (or added) once: python-docx finds a
    style by walking every style's XML, which per paragraph made a long script take seconds."""

    def __init__(self, doc: Any) -> None:
        self.doc = doc
        self.found: dict[str, Any] = {}

    def get(self, name: str) -> Any:
        style = self.found.get(name)
        if style is None:
            style = self.found[name] = self.doc.styles[name]
        return style

    def screenplay(self, kind: str) -> Any:
        name, left, right, align, bold, italic, before = _SCREENPLAY_STYLES[kind]
        if name in self.found:
            return self.found[name]
        style = self.doc.styles.add_style(name, WD_STYLE_TYPE.PARAGRAPH)
        style.base_style = self.get("Normal")
        style.font.name = MONO
        style.font.size = Pt(12)
        style.font.bold = bold
        style.font.italic = italic
        if kind == "note":
            style.font.color.rgb = RGBColor(0x66, 0x66, 0x66)
        fmt = style.paragraph_format
        fmt.left_indent = Inches(left)
        fmt.right_indent = Inches(right)
        fmt.space_before = Pt(before)
        fmt.space_after = Pt(0)
        if align is not None:
            fmt.alignment = align
        if kind == "character":
            fmt.keep_with_next = True
        self.found[name] = style
        return style

    def code(self) -> Any:
        if "Code" in self.found:
            return self.found["Code"]
        style = self.doc.styles.add_style("Code", WD_STYLE_TYPE.PARAGRAPH)
        style.base_style = self.get("No Spacing")
        style.font.name = MONO
        style.font.size = Pt(9.5)
        style.paragraph_format.left_indent = Inches(0.3)
        style.paragraph_format.space_after = Pt(8)
        self.found["Code"] = style
        return style


def _screenplay(doc: Any, styles: _Styles, play: Screenplay) -> None:
    # add_paragraph looks the style up among all the styles and finds the body's end anew for
    # every paragraph: 6 s for a 1,000-line script. A screenplay's paragraphs are copies of one
    # styled paragraph per element kind, put where add_paragraph puts them (before the section
    # properties) and given their text with python-docx's own run API.
    templates: dict[str, Paragraph] = {}
    body = doc.element.body
    end = body.sectPr

    def add(kind: str, text: str) -> None:
        template = templates.get(kind)
        if template is None:
            template = templates[kind] = doc.add_paragraph("", style=styles.screenplay(kind))
            body.remove(template._p)
        element = copy.deepcopy(template._p)
        if end is not None:
            end.addprevious(element)
        else:  # pragma: no cover - python-docx's template always ends with its section properties
            body.append(element)
        Paragraph(element, template._parent).add_run(text)

    add("scene", play.title.upper())
    for element in play.elements:
        add(element.kind, element.text.upper() if element.kind == "character" else element.text)


# ---------------------------------------------------------------------------------- pages


class _PageWriter:
    """Walks a page's markdown tokens into paragraphs, lists, tables and images."""

    def __init__(self, doc: Any, styles: _Styles, images: Mapping[str, Image],
                 name_of: Callable[[str], str | None] | None) -> None:
        self.doc = doc
        self.styles = styles
        self.images = images
        self.name_of = name_of
        self.lists: list[str] = []  # "bullet" or "number", innermost last
        self.item_started = False  # the next paragraph is the first of a list item
        self.quotes = 0

    def write(self, page: Page) -> None:
        if page.title:
            self.doc.add_heading(page.title, min(MAX_HEADING, page.level))
        if not page.markdown:
            return
        tokens = page_tokens(page.markdown, below=min(MAX_HEADING, page.level), name_of=self.name_of)
        index = 0
        while index < len(tokens):
            index = self.block(tokens, index)

    def block(self, tokens: list[Token], index: int) -> int:
        token = tokens[index]
        kind = token.type
        if kind == "heading_open":
            paragraph = self.doc.add_heading("", min(MAX_HEADING, heading_level(token)))
            self.inline(paragraph, tokens[index + 1])
            return index + 3
        if kind == "paragraph_open":
            paragraph = self.doc.add_paragraph(style=self.paragraph_style())
            if self.lists and not self.item_started:
                paragraph.paragraph_format.left_indent = Inches(0.25 * (len(self.lists) + 1))
            self.item_started = False
            self.inline(paragraph, tokens[index + 1])
            return index + 3
        if kind in ("bullet_list_open", "ordered_list_open"):
            self.lists.append("bullet" if kind == "bullet_list_open" else "number")
        elif kind in ("bullet_list_close", "ordered_list_close"):
            self.lists.pop()
        elif kind == "list_item_open":
            self.item_started = True
        elif kind == "blockquote_open":
            self.quotes += 1
        elif kind == "blockquote_close":
            self.quotes -= 1
        elif kind in ("fence", "code_block"):
            self.code(token.content)
        elif kind == "hr":
            self.doc.add_paragraph("* * *").alignment = WD_ALIGN_PARAGRAPH.CENTER
        elif kind == "html_block":
            text = _TAG.sub("", token.content).strip()
            if text:
                self.doc.add_paragraph(text, style=self.paragraph_style())
        elif kind == "table_open":
            return self.table(tokens, index)
        return index + 1

    def paragraph_style(self) -> Any:
        if self.lists and self.item_started:
            depth = len(self.lists)
            base = "List Bullet" if self.lists[-1] == "bullet" else "List Number"
            return self.styles.get(base if depth == 1 else f"{base} {min(depth, 3)}")
        return self.styles.get("Quote" if self.quotes else "Normal")

    def code(self, text: str) -> None:
        # Lines as breaks inside one paragraph: the block stays one block, spaced once.
        paragraph = self.doc.add_paragraph(style=self.styles.code())
        for number, line in enumerate(text.rstrip("\n").split("\n")):
            if number:
                paragraph.add_run().add_break(WD_BREAK.LINE)
            paragraph.add_run(line)

    def table(self, tokens: list[Token], index: int) -> int:
        rows: list[tuple[bool, list[Token]]] = []
        header = False
        while tokens[index].type != "table_close":
            token = tokens[index]
            if token.type == "thead_open":
                header = True
            elif token.type == "thead_close":
                header = False
            elif token.type == "tr_open":
                rows.append((header, []))
            elif token.type == "inline" and rows:
                rows[-1][1].append(token)
            index += 1
        columns = max((len(cells) for _, cells in rows), default=0)
        if rows and columns:
            table = self.doc.add_table(rows=len(rows), cols=columns)
            table.style = self.styles.get("Table Grid")
            for row_index, (is_header, cells) in enumerate(rows):
                for column, inline in enumerate(cells):
                    paragraph = table.cell(row_index, column).paragraphs[0]
                    self.inline(paragraph, inline, bold=is_header)
            self.doc.add_paragraph()
        return index + 1

    def inline(self, paragraph: Any, token: Token, *, bold: bool = False) -> None:
        state = {"bold": bold, "italic": False, "strike": False}
        href = ""
        for child in token.children or ():
            kind = child.type
            if kind == "text":
                self.run(paragraph, child.content, state)
            elif kind in ("softbreak",):
                self.run(paragraph, " ", state)
            elif kind == "hardbreak":
                paragraph.add_run().add_break(WD_BREAK.LINE)
            elif kind in ("strong_open", "strong_close"):
                state["bold"] = kind == "strong_open" or bold
            elif kind in ("em_open", "em_close"):
                state["italic"] = kind == "em_open"
            elif kind in ("s_open", "s_close"):
                state["strike"] = kind == "s_open"
            elif kind == "code_inline":
                self.run(paragraph, child.content, state).font.name = MONO
            elif kind == "link_open":
                href = str(child.attrGet("href") or "")
            elif kind == "link_close":
                if href.startswith(("http://", "https://", "mailto:")):
                    self.run(paragraph, f" ({href})", state)
                href = ""
            elif kind == "image":
                self.image(paragraph, child)
            elif kind == "html_inline":
                text = _TAG.sub("", child.content)
                if text:
                    self.run(paragraph, text, state)

    @staticmethod
    def run(paragraph: Any, text: str, state: Mapping[str, bool]) -> Any:
        run = paragraph.add_run(text)
        run.bold = state["bold"] or None
        run.italic = state["italic"] or None
        if state["strike"]:
            run.font.strike = True
        return run

    def image(self, paragraph: Any, token: Token) -> None:
        source = str(token.attrGet("src") or "")
        image = self.images.get(source)
        note = image.note if image is not None else f"image not found: {source}"
        if image is not None and image.data is not None:
            try:
                run = paragraph.add_run()
                shape = run.add_picture(io.BytesIO(image.data))
                if shape.width > MAX_IMAGE_WIDTH:
                    shape.height = int(shape.height * MAX_IMAGE_WIDTH / shape.width)
                    shape.width = MAX_IMAGE_WIDTH
                return
            except (UnrecognizedImageError, ValueError, ZeroDivisionError):
                note = f"image in a format Word files do not hold: {source}"
        run = paragraph.add_run(f"[{note}]")
        run.italic = True
