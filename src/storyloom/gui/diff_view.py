"""A field-level diff, shown: one section per field that differs, text fields as a line diff
(removed lines red, added lines green, unchanged context grey), other fields as their old and
new values. The diff itself comes from :func:`storyloom.project.revisions.diff_documents`."""

from __future__ import annotations

import html

from PySide6.QtGui import QColor, QFontDatabase
from PySide6.QtWidgets import QTextBrowser, QWidget

from storyloom.gui import theme
from storyloom.project import FieldDiff, value_text


def _colours() -> dict[str, str]:
    c = theme.colors()
    if c.dark:
        return {"del_bg": "#4a2326", "del_fg": "#ffb8b8", "add_bg": "#1f3d2b", "add_fg": "#a8e6bf",
                "muted": c.muted, "text": c.text, "border": c.border}
    return {"del_bg": "#fde8e8", "del_fg": "#9b1c1c", "add_bg": "#e3f6ea", "add_fg": "#17603a",
            "muted": c.muted, "text": c.text, "border": c.border}


def diff_html(diffs: list[FieldDiff], *, old_label: str = "Before", new_label: str = "Now",
              empty: str = "No differences.") -> str:
    """The diffs as the HTML a :class:`DiffView` shows."""
    c = _colours()
    mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont).family()
    if not diffs:
        return f"<p style='color:{c['muted']}'>{html.escape(empty)}</p>"
    parts = []
    for diff in diffs:
        verb = {"added": "added", "removed": "removed", "changed": "changed"}[diff.kind]
        parts.append(f"<p style='margin:12px 0 4px 0'><b>{html.escape(diff.label)}</b> "
                     f"<span style='color:{c['muted']}'>{verb}</span></p>")
        if diff.text:
            rows = []
            for line in diff.lines:
                text = html.escape(line.text) or "&nbsp;"
                if line.kind == "-":
                    style = f"background:{c['del_bg']}; color:{c['del_fg']}"
                    text = "− " + text
                elif line.kind == "+":
                    style = f"background:{c['add_bg']}; color:{c['add_fg']}"
                    text = "+ " + text
                elif line.kind == "…":
                    style = f"color:{c['muted']}"
                    text = "⋯"
                else:
                    style = f"color:{c['muted']}"
                    text = "&nbsp;&nbsp;" + text
                rows.append(f"<tr><td style='{style}; padding:1px 6px; white-space:pre-wrap'>{text}</td></tr>")
            parts.append(f"<table width='100%' cellspacing='0' style='font-family:\"{mono}\"'>"
                         + "".join(rows) + "</table>")
            continue
        rows = []
        if diff.kind != "added":
            rows.append((old_label, value_text(diff.old), c["del_bg"], c["del_fg"]))
        if diff.kind != "removed":
            rows.append((new_label, value_text(diff.new), c["add_bg"], c["add_fg"]))
        parts.append("<table width='100%' cellspacing='0'>" + "".join(
            f"<tr><td style='color:{c['muted']}; padding:2px 8px 2px 0' width='64'>{html.escape(label)}</td>"
            f"<td style='background:{bg}; color:{fg}; padding:2px 6px; white-space:pre-wrap'>"
            f"{_swatch(text)}{html.escape(text)}</td></tr>"
            for label, text, bg, fg in rows) + "</table>")
    return "".join(parts)


def _swatch(text: str) -> str:
    """A square of the colour a value names (``#rrggbb``), before it."""
    if text.startswith("#") and QColor.isValidColorName(text):
        return f"<span style='color:{text}'>■</span>&nbsp;"
    return ""


class DiffView(QTextBrowser):
    """Read-only; :meth:`show_diffs` replaces what it shows."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("diffView")
        self.setOpenLinks(False)
        self.diffs: list[FieldDiff] = []

    def show_diffs(self, diffs: list[FieldDiff], **labels: str) -> None:
        self.diffs = list(diffs)
        self.setHtml(diff_html(self.diffs, **labels))
