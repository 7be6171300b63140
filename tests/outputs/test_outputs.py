"""The printed forms, read back by independent tools: screenplain parses the .fountain, the
standard library's html.parser the .html, python-docx the .docx."""

from __future__ import annotations

import base64
import io
from html.parser import HTMLParser

import docx
import pytest
from screenplain.parsers import fountain as screenplain

from storyloom.outputs.docx import docx_bytes
from storyloom.outputs.formats import NotPrintable, UnsupportedFormat, format_of
from storyloom.outputs.fountain import to_fountain
from storyloom.outputs.html import to_html
from storyloom.outputs.model import Image, Page, PrintDocument
from storyloom.outputs.screenplay import screenplay_of

SCRIPT = """// Mara waits at the gate
::mara:: Who goes there? [wary]
<PlaySound(gate_creak.ogg, 0.5)>
THE GATE SWINGS OPEN.
@if variables.trust > 3
  ::Mara:: Come in, friend.
  @set variables.trust += 1
@else
  ::Mara:: Stay where you are. [angry]
@endif
::R2:: Beep.
"""

# A 1x1 PNG.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)

PAGE = """# Vision

Some **bold** and `code`.

- first
- second
  - nested

1. one
2. two

| Name | Role |
| ---- | ---- |
| Mara | Guard |

> A quote.

```
print("hi")
```

![the gate](gate.png) ![gone](missing.png)

See :doc{#actor-mara}.
"""


def _play() -> PrintDocument:
    return PrintDocument("Gate", [screenplay_of("The Gate", SCRIPT, "s1")])


def test_a_script_becomes_screenplay_elements() -> None:
    elements = [(e.kind, e.text, e.depth) for e in screenplay_of("The Gate", SCRIPT).elements]
    assert elements == [
        ("note", "Mara waits at the gate", 0),
        ("character", "mara", 0), ("parenthetical", "(wary)", 0), ("dialogue", "Who goes there?", 0),
        ("action", "[PlaySound(gate_creak.ogg, 0.5)]", 0),
        ("action", "THE GATE SWINGS OPEN.", 0),
        ("branch", "IF variables.trust > 3", 0),
        ("character", "Mara", 1), ("dialogue", "Come in, friend.", 1),
        ("action", "[@set variables.trust += 1]", 1),
        ("branch", "ELSE (not variables.trust > 3)", 0),
        ("character", "Mara", 1), ("parenthetical", "(angry)", 1), ("dialogue", "Stay where you are.", 1),
        ("branch", "END IF (variables.trust > 3)", 0),
        ("character", "R2", 0), ("dialogue", "Beep.", 0),
    ]


def test_the_fountain_file_reads_back_in_screenplain() -> None:
    text = to_fountain(_play())
    parsed = screenplain.parse(io.StringIO(text))
    assert parsed.title_page["Title"] == ["Gate"]
    kinds = [(type(p).__name__, p) for p in parsed.paragraphs]
    assert [k for k, _ in kinds] == ["Slug", "Dialog", "Action", "Action", "Action", "Dialog", "Action", "Action",
                                     "Dialog", "Action", "Dialog"]
    slug = kinds[0][1]
    assert str(slug.line) == "THE GATE"
    cue = kinds[1][1]
    assert str(cue.character) == "MARA"
    assert [(is_paren, str(text)) for is_paren, text in cue.blocks] == [(True, "(wary)"), (False, "Who goes there?")]
    # A line in capitals is forced action, never a character cue.
    assert [str(line) for line in kinds[3][1].lines] == ["THE GATE SWINGS OPEN."]
    branches = [str(p.lines[0]) for _, p in kinds if getattr(p, "centered", False)]
    assert branches == ["IF variables.trust > 3", "ELSE (not variables.trust > 3)", "END IF (variables.trust > 3)"]
    # The comment is a note, which screenplain (like most Fountain apps by default) leaves out.
    assert "[[Mara waits at the gate]]" in text
    assert str(kinds[-1][1].character) == "R2"


def test_fountain_escapes_emphasis_pairs_only() -> None:
    play = PrintDocument("X", [screenplay_of("X", "@if a_b and c_d\n::A:: one_two\n@endif\n")])
    text = to_fountain(play)
    assert "> IF a\\_b and c\\_d <" in text  # two underscores: a pair Fountain would underline
    assert "\none_two\n" in text  # one: left as written


def test_a_page_is_not_a_screenplay() -> None:
    with pytest.raises(NotPrintable, match=r"“Vision” is a page.*\.pdf, \.docx or \.html"):
        to_fountain(PrintDocument("V", [Page("Vision", PAGE)]))


@pytest.mark.parametrize(("name", "fmt"), [("a.PDF", "pdf"), ("x/y.docx", "docx"), ("b.html", "html"),
                                           ("c.fountain", "fountain")])
def test_the_format_is_the_extension(name: str, fmt: str) -> None:
    assert format_of(name) == fmt


@pytest.mark.parametrize("name", ["notes.txt", "script", "a.md"])
def test_other_extensions_are_refused_naming_the_supported_ones(name: str) -> None:
    with pytest.raises(UnsupportedFormat, match=r"\.pdf, \.docx, \.html or \.fountain"):
        format_of(name)


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.stack: list[str] = []
        self.text: dict[str, list[str]] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag not in ("img", "hr", "meta", "br"):
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in self.stack:
            while self.stack.pop() != tag:
                pass

    def handle_data(self, data: str) -> None:
        if self.stack and data.strip():
            self.text.setdefault(self.stack[-1], []).append(data.strip())

    def classes(self, name: str) -> list[str]:
        return [str(attrs.get("class")) for tag, attrs in self.tags if tag == name]


def _html(document: PrintDocument, images: dict[str, Image] | None = None) -> _Tags:
    parsed = _Tags()
    parsed.feed(to_html(document, images, name_of={"actor-mara": "Mara"}.get))
    return parsed


def test_the_html_screenplay_has_an_element_per_line() -> None:
    parsed = _html(_play())
    classes = parsed.classes("p")
    assert classes[:5] == ["scene", "note", "character", "parenthetical", "dialogue"]
    assert classes.count("branch") == 3 and classes.count("character") == 4
    assert "MARA" in parsed.text["p"] and "IF variables.trust &gt; 3" not in parsed.text["p"]
    assert "IF variables.trust > 3" in parsed.text["p"]


def test_the_html_page_has_real_structure_and_embeds_images() -> None:
    images = {"gate.png": Image(PNG, "image/png"), "missing.png": Image(None, note="no attachment named “missing”")}
    parsed = _html(PrintDocument("Vision", [Page("Vision", PAGE)]), images)
    tags = [tag for tag, _ in parsed.tags]
    # The page title is h1; the page's own headings print below it.
    assert parsed.text["h1"] == ["Vision"] and parsed.text["h2"] == ["Vision"]
    assert tags.count("ul") == 2 and tags.count("ol") == 1 and tags.count("li") == 5
    assert parsed.text["th"] == ["Name", "Role"] and parsed.text["td"] == ["Mara", "Guard"]
    assert "blockquote" in tags and "pre" in tags and "strong" in tags
    src = [attrs["src"] for tag, attrs in parsed.tags if tag == "img"]
    assert src == ["data:image/png;base64," + base64.b64encode(PNG).decode()]
    assert parsed.text["span"] == ["[no attachment named “missing”]"]
    assert any("See Mara." in text for text in parsed.text["p"])  # :doc{#id} prints the name


def test_the_docx_page_has_headings_lists_tables_quotes_code_and_images() -> None:
    images = {"gate.png": Image(PNG, "image/png")}
    data = docx_bytes(PrintDocument("Vision", [Page("Vision", PAGE)]), images, name_of={"actor-mara": "Mara"}.get)
    doc = docx.Document(io.BytesIO(data))
    styled = [(p.style.name, p.text) for p in doc.paragraphs if p.text.strip()]
    assert styled[:2] == [("Heading 1", "Vision"), ("Heading 2", "Vision")]
    assert ("List Bullet", "first") in styled and ("List Bullet", "second") in styled
    assert ("List Bullet 2", "nested") in styled
    assert ("List Number", "one") in styled and ("List Number", "two") in styled
    assert ("Quote", "A quote.") in styled and ("Code", 'print("hi")') in styled
    bold = [run.text for p in doc.paragraphs for run in p.runs if run.bold]
    assert "bold" in bold
    (table,) = doc.tables
    assert [[cell.text for cell in row.cells] for row in table.rows] == [["Name", "Role"], ["Mara", "Guard"]]
    assert len(doc.inline_shapes) == 1
    assert any("[image not found: missing.png]" in text for _, text in styled)
    assert any("See Mara." in text for _, text in styled)


def test_the_docx_screenplay_uses_a_style_per_element() -> None:
    doc = docx.Document(io.BytesIO(docx_bytes(_play())))
    styled = [(p.style.name, p.text) for p in doc.paragraphs]
    assert styled[:5] == [("Scene Heading", "THE GATE"), ("Script Note", "Mara waits at the gate"),
                          ("Character", "MARA"), ("Parenthetical", "(wary)"), ("Dialogue", "Who goes there?")]
    assert [t for s, t in styled if s == "Branch"] == ["IF variables.trust > 3", "ELSE (not variables.trust > 3)",
                                                      "END IF (variables.trust > 3)"]
    character = doc.styles["Character"]
    assert character.font.name == "Courier New" and character.paragraph_format.left_indent > 0


def test_a_screenplay_and_a_page_keep_their_order_in_one_docx() -> None:
    both = PrintDocument("Gate", [screenplay_of("The Gate", SCRIPT), Page("Notes", "After the *gate*.")])
    doc = docx.Document(io.BytesIO(docx_bytes(both)))
    styled = [(p.style.name, p.text) for p in doc.paragraphs]
    assert styled[:2] == [("Title", "Gate"), ("Scene Heading", "THE GATE")]
    assert styled[-3:] == [("Dialogue", "Beep."), ("Heading 1", "Notes"), ("Normal", "After the gate.")]
    # The section's properties stay the body's last element, as Word requires.
    assert doc.element.body[-1].tag.endswith("}sectPr") and len(doc.sections) == 1
