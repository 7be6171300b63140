"""A print document as one HTML page: the screenplay laid out as screenplays are (cues and
dialogue indented, branch markers centered), GDD pages as markdown-it renders them. Images are
embedded (``data:`` URLs) so the file stands alone; the PDF writer passes its own ``image_url``
(resource names its text document holds).

The same HTML is what Qt's text document draws to PDF, so it keeps to the HTML and CSS subset
Qt's rich text supports: class selectors, margins, ``text-align``, ``font-family``, tables with
a ``border`` attribute."""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping
from html import escape

from storyloom.outputs.markdown import MAX_LEVEL, page_tokens, parser
from storyloom.outputs.model import Image, Page, PrintDocument, Screenplay

STYLE = """
body { font-family: 'DejaVu Serif', Georgia, serif; font-size: 11pt; line-height: 1.4; }
h1, h2, h3, h4, h5, h6 { font-family: 'DejaVu Sans', Helvetica, Arial, sans-serif; }
pre, code { font-family: 'DejaVu Sans Mono', 'Courier New', monospace; font-size: 10pt; }
pre { background-color: #f4f4f4; padding: 6px; }
blockquote { margin-left: 24px; color: #444444; font-style: italic; }
table { border-collapse: collapse; }
th, td { padding: 4px; border: 1px solid #999999; }
th { background-color: #eeeeee; }
.missing-image { color: #996600; font-style: italic; }
.screenplay p { font-family: 'Courier Prime', 'Courier New', Courier, 'Liberation Mono', 'DejaVu Sans Mono', monospace;
                font-size: 12pt;
                margin-top: 0; margin-bottom: 0; }
.screenplay p.scene { font-weight: bold; margin-top: 24px; margin-bottom: 12px; }
.screenplay p.action { margin-top: 12px; }
.screenplay p.character { margin-left: 220px; margin-top: 12px; }
.screenplay p.parenthetical { margin-left: 160px; margin-right: 140px; }
.screenplay p.dialogue { margin-left: 100px; margin-right: 100px; }
.screenplay p.branch { text-align: center; font-weight: bold; margin-top: 12px; }
.screenplay p.note { color: #666666; font-style: italic; margin-top: 12px; }
"""


def data_url(image: Image) -> str:
    """``data:<mime>;base64,...`` of an image's bytes."""
    return f"data:{image.mime or 'application/octet-stream'};base64,{base64.b64encode(image.data or b'').decode()}"


def to_html(document: PrintDocument, images: Mapping[str, Image] | None = None, *,
            image_url: Callable[[str, Image], str] | None = None,
            name_of: Callable[[str], str | None] | None = None) -> str:
    """The whole HTML file of ``document``. ``images`` maps each image source of the pages to
    what the caller found; ``image_url(source, image)`` is the ``src`` written for an image with
    bytes (default: a ``data:`` URL)."""
    found = images or {}
    url = image_url or (lambda _source, image: data_url(image))
    body: list[str] = [f"<h1 class=\"document-title\">{escape(document.title)}</h1>"] if document.needs_title else []
    for part in document.parts:
        if isinstance(part, Screenplay):
            body.append(screenplay_html(part))
        else:
            body.append(page_html(part, found, url, name_of))
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
            f"<title>{escape(document.title)}</title><style>{STYLE}</style></head>\n<body>\n"
            + "\n".join(body) + "\n</body></html>\n")


def screenplay_html(play: Screenplay) -> str:
    lines = [f"<div class=\"screenplay\">\n<p class=\"scene\">{escape(play.title.upper())}</p>"]
    for element in play.elements:
        text = escape(element.text.upper() if element.kind == "character" else element.text)
        lines.append(f"<p class=\"{element.kind}\">{text}</p>")
    lines.append("</div>")
    return "\n".join(lines)


def page_html(page: Page, images: Mapping[str, Image], url: Callable[[str, Image], str],
              name_of: Callable[[str], str | None] | None = None) -> str:
    level = min(MAX_LEVEL, page.level)
    out = [f"<h{level}>{escape(page.title)}</h{level}>"] if page.title else []
    if page.markdown:
        tokens = page_tokens(page.markdown, below=level, name_of=name_of)
        for token in tokens:
            if token.type == "table_open":
                # Qt's rich text draws cell borders from the attribute, browsers from the style.
                token.attrSet("border", "1")
                token.attrSet("cellspacing", "0")
                token.attrSet("cellpadding", "4")
            for child in token.children or ():
                if child.type != "image":
                    continue
                source = str(child.attrGet("src") or "")
                image = images.get(source)
                if image is not None and image.data is not None:
                    child.attrSet("src", url(source, image))
                else:
                    # Not there: the image prints as a line saying so, never as a broken link.
                    note = image.note if image is not None else f"image not found: {source}"
                    child.type = "html_inline"
                    child.content = f"<span class=\"missing-image\">[{escape(note)}]</span>"
        md = parser()
        out.append(md.renderer.render(tokens, md.options, {}))
    return f"<section class=\"page\">\n{''.join(out)}\n</section>"
