"""How markdown looks: the styled preview and the source's highlighting, in light and dark.

:func:`style_markdown` dresses a document that :meth:`QTextDocument.setMarkdown` filled (Qt's
own CommonMark reader, with GitHub tables): headings get room above and below, paragraphs a
comfortable line height and space between them, quotes an indent, a tinted background and
muted italic text, code spans and code blocks the editor font on a code background, tables
borders and padding with a bold, tinted header row, links the accent colour. Qt's rich text
has no CSS for markdown, so the formats are set on the document's blocks and fragments; the
colours come from the theme in use (:func:`storyloom.gui.theme.colors`).

:class:`MarkdownHighlighter` colours the source as it is typed, from the Qt-free rules of
:mod:`storyloom.app.views.markdown_highlight` (one line at a time; the fenced-code state is the
block state)."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QSyntaxHighlighter,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
    QTextFrameFormat,
    QTextLength,
    QTextTable,
)

from storyloom.app.views.markdown_highlight import NORMAL, highlight_line
from storyloom.gui import theme
from storyloom.gui.appearance import editor_font

#: Space above a heading by level (px); the first block of the page gets none.
HEADING_TOP = {1: 24, 2: 20, 3: 16, 4: 12, 5: 12, 6: 12}
HEADING_BOTTOM = 8
PARAGRAPH_BOTTOM = 10
LINE_HEIGHT = 135  # percent: prose reads easier with air between its lines
QUOTE_INDENT = 16
CODE_PADDING = 10  # px left and right of a code block's text
TABLE_PADDING = 6


@dataclass(frozen=True)
class MarkdownColors:
    text: str
    muted: str
    accent: str
    border: str
    code_bg: str  # code spans and blocks
    quote_bg: str
    header_bg: str  # a table's header row


def markdown_colors(colours: theme.ThemeColors | None = None) -> MarkdownColors:
    """The preview's colours for a theme (the one in use by default)."""
    c = colours or theme.colors()
    if c.dark:
        return MarkdownColors(c.text, c.muted, c.accent, "#45454d", code_bg="#2e2e35", quote_bg="#26262c",
                              header_bg="#2b2b31")
    return MarkdownColors(c.text, c.muted, c.accent, "#d6d6de", code_bg="#f0f0f4", quote_bg="#f5f5f8",
                          header_bg="#f3f3f6")


def style_markdown(document: QTextDocument, colours: MarkdownColors | None = None) -> None:
    """Give a document filled by ``setMarkdown`` the preview's look (see the module's text)."""
    c = colours or markdown_colors()
    mono = editor_font().families()
    cursor = QTextCursor(document)
    cursor.beginEditBlock()
    try:
        block = document.begin()
        first = True
        previous_code = False
        while block.isValid():
            fmt = block.blockFormat()
            code = fmt.hasProperty(QTextFormat.Property.BlockCodeFence)
            quote = fmt.intProperty(QTextFormat.Property.BlockQuoteLevel)
            in_table = QTextCursor(block).currentTable() is not None
            changed = QTextBlockFormat()
            if fmt.headingLevel():
                level = fmt.headingLevel()
                changed.setTopMargin(0 if first else HEADING_TOP.get(level, 12))
                changed.setBottomMargin(HEADING_BOTTOM)
            elif code:
                following = block.next()
                last = not (following.isValid()
                            and following.blockFormat().hasProperty(QTextFormat.Property.BlockCodeFence))
                changed.setBackground(QColor(c.code_bg))
                changed.setTopMargin(0 if previous_code else 4)
                changed.setBottomMargin(PARAGRAPH_BOTTOM if last else 0)
                changed.setNonBreakableLines(True)
                changed.setTextIndent(CODE_PADDING)
            elif quote:
                changed.setBackground(QColor(c.quote_bg))
                changed.setLeftMargin(QUOTE_INDENT * quote)
                changed.setTopMargin(4)
                changed.setBottomMargin(PARAGRAPH_BOTTOM)
                changed.setLineHeight(LINE_HEIGHT, QTextBlockFormat.LineHeightTypes.ProportionalHeight.value)
            elif not in_table and not fmt.hasProperty(QTextFormat.Property.BlockTrailingHorizontalRulerWidth):
                changed.setBottomMargin(4 if block.textList() is not None else PARAGRAPH_BOTTOM)
                changed.setLineHeight(LINE_HEIGHT, QTextBlockFormat.LineHeightTypes.ProportionalHeight.value)
            if fmt.hasProperty(QTextFormat.Property.BlockTrailingHorizontalRulerWidth):
                changed.setProperty(QTextFormat.Property.BlockTrailingHorizontalRulerWidth,
                                    QTextLength(QTextLength.Type.PercentageLength, 100))
                changed.setForeground(QColor(c.border))
            cursor.setPosition(block.position())
            cursor.mergeBlockFormat(changed)
            _style_fragments(cursor, block, c, mono, code=code, quote=bool(quote), heading=fmt.headingLevel())
            previous_code = code
            first = False
            block = block.next()
        for frame in document.rootFrame().childFrames():
            if isinstance(frame, QTextTable):
                _style_table(frame, c)
    finally:
        cursor.endEditBlock()


def _style_fragments(cursor: QTextCursor, block: object, c: MarkdownColors, mono: list[str], *,
                     code: bool, quote: bool, heading: int) -> None:
    it = block.begin()  # type: ignore[attr-defined]
    while not it.atEnd():
        fragment = it.fragment()
        it += 1
        if not fragment.isValid():
            continue
        char = fragment.charFormat()
        changed = QTextCharFormat()
        if code or char.fontFixedPitch():
            changed.setFontFamilies(mono)
            changed.setFontFixedPitch(True)
            if not code:  # a code span: its own background; a block has the block's
                changed.setBackground(QColor(c.code_bg))
        if char.isAnchor():
            changed.setForeground(QColor(c.accent))
            changed.setFontUnderline(True)
        elif quote:
            changed.setForeground(QColor(c.muted))
            changed.setFontItalic(True)
        elif heading:
            changed.setForeground(QColor(c.text))
            changed.setFontWeight(QFont.Weight.Bold if heading > 1 else QFont.Weight.ExtraBold)
        cursor.setPosition(fragment.position())
        cursor.setPosition(fragment.position() + fragment.length(), QTextCursor.MoveMode.KeepAnchor)
        cursor.mergeCharFormat(changed)


def _style_table(table: QTextTable, c: MarkdownColors) -> None:
    fmt = table.format()
    fmt.setBorder(1)
    fmt.setBorderBrush(QBrush(QColor(c.border)))
    fmt.setBorderStyle(QTextFrameFormat.BorderStyle.BorderStyle_Solid)
    fmt.setBorderCollapse(True)
    fmt.setCellPadding(TABLE_PADDING)
    fmt.setCellSpacing(0)
    fmt.setBottomMargin(PARAGRAPH_BOTTOM)
    table.setFormat(fmt)
    for column in range(table.columns()):
        cell = table.cellAt(0, column)
        cell_format = cell.format()
        cell_format.setBackground(QColor(c.header_bg))
        cell_format.setFontWeight(QFont.Weight.DemiBold)
        cell.setFormat(cell_format)


# ---------------------------------------------------------------------- the source


def _format(colour: str | None = None, *, bold: bool = False, italic: bool = False, underline: bool = False,
            background: str | None = None, mono: bool = False) -> QTextCharFormat:
    fmt = QTextCharFormat()
    if colour:
        fmt.setForeground(QColor(colour))
    if bold:
        fmt.setFontWeight(QFont.Weight.Bold)
    if italic:
        fmt.setFontItalic(True)
    if underline:
        fmt.setFontUnderline(True)
    if background:
        fmt.setBackground(QColor(background))
    if mono:
        fmt.setFontFixedPitch(True)
    return fmt


def source_formats(colours: theme.ThemeColors | None = None) -> dict[str, QTextCharFormat]:
    """The source's format of each kind of span, for a theme (the one in use by default)."""
    t = colours or theme.colors()
    m = markdown_colors(t)
    heading = "#8b8df5" if t.dark else "#3f42b8"
    return {
        "heading": _format(heading, bold=True),
        "strong": _format(None, bold=True),
        "emphasis": _format(None, italic=True),
        "code": _format("#e58f65" if t.dark else "#a8431b", background=m.code_bg),
        "fence": _format(m.muted, background=m.code_bg),
        "link": _format(t.accent, underline=True),
        "url": _format(t.accent, underline=True),
        "list": _format(t.accent, bold=True),
        "quote": _format(m.muted, italic=True),
        "rule": _format(m.muted),
    }


class MarkdownHighlighter(QSyntaxHighlighter):
    """Colours markdown as it is typed: headings, emphasis, code, links, lists, quotes, fences."""

    def __init__(self, document: QTextDocument) -> None:
        super().__init__(document)
        self.formats = source_formats()
        self._dark = theme.colors().dark
        self.enabled = True

    def set_enabled(self, enabled: bool) -> None:
        """Off for text that is not markdown (a rich-text GDD's HTML)."""
        if enabled != self.enabled:
            self.enabled = enabled
            self.rehighlight()

    def restyle(self) -> None:
        """The theme changed (light to dark or back): new colours for every line."""
        if theme.colors().dark == self._dark:
            return
        self._dark = theme.colors().dark
        self.formats = source_formats()
        self.rehighlight()

    def highlightBlock(self, text: str) -> None:
        if not self.enabled:
            return
        state = self.previousBlockState()
        spans, after = highlight_line(text, NORMAL if state < 0 else state)
        self.setCurrentBlockState(after)
        for span in spans:
            fmt = self.formats.get(span.kind)
            if fmt is None:
                continue
            if span.kind == "quote":
                self.setFormat(span.start, span.length, fmt)
                continue
            # Inline spans over a quote keep the quote's colour where they set none.
            merged = QTextCharFormat(self.format(span.start))
            merged.merge(fmt)
            self.setFormat(span.start, span.length, merged)
