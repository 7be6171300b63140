"""The player's transcript: what was played, as a read-only rich-text view.

Speech shows the actor's expression picture (when the actor has one for that expression), the
actor's name in a colour of its own, the expression, and the line; narration, commands, events,
the choices made, problems and the end each have their own quiet look. Each entry from a script
line or a node links to it (``entry:<n>``): a click asks to open it."""

from __future__ import annotations

import html
import zlib
from collections.abc import Callable

from PySide6.QtCore import QUrl, Signal
from PySide6.QtGui import QImage, QTextDocument
from PySide6.QtWidgets import QTextBrowser, QWidget

from storyloom.gui import theme
from storyloom.play.player import Entry

AVATAR = 36
# Actor name colours: readable on both themes' surfaces.
_ACTOR_COLOURS = {False: ("#3b5bdb", "#b35900", "#2b8a3e", "#a61e4d", "#5f3dc4", "#0b7285", "#9c36b5"),
                  True: ("#8ea2ff", "#ffb366", "#69db7c", "#f783ac", "#b197fc", "#66d9e8", "#e599f7")}


def actor_colour(actor: str, dark: bool) -> str:
    """A stable colour for ``actor`` (the same name always gets the same one)."""
    palette = _ACTOR_COLOURS[dark]
    return palette[zlib.crc32(actor.strip().lower().encode("utf-8")) % len(palette)]


class Transcript(QTextBrowser):
    """The played entries. ``open_requested(index)`` when an entry's link is clicked.
    ``images(actor, expression) -> bytes | None`` gives the expression pictures."""

    open_requested = Signal(int)

    def __init__(self, images: Callable[[str | None, str | None], bytes | None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("playerTranscript")
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.anchorClicked.connect(self._clicked)
        self.images = images
        self._avatars: dict[tuple[str, str], str | None] = {}
        self.entries: list[Entry] = []
        self.document().setDocumentMargin(theme.XL)

    def _clicked(self, url: QUrl) -> None:
        text = url.toString()
        if text.startswith("entry:"):
            try:
                self.open_requested.emit(int(text.split(":", 1)[1]))
            except ValueError:
                pass

    def _avatar(self, actor: str | None, expression: str | None) -> str | None:
        key = ((actor or "").lower(), (expression or "").lower())
        if key not in self._avatars:
            url = None
            data = self.images(actor, expression)
            image = QImage.fromData(data) if data else QImage()
            if not image.isNull():
                url = f"avatar:{len(self._avatars)}"
                self.document().addResource(QTextDocument.ResourceType.ImageResource, QUrl(url), image)
            self._avatars[key] = url
        return self._avatars[key]

    def show_entries(self, entries: list[Entry], waiting: str = "") -> None:
        """Show ``entries`` (the whole play so far) and, under them, ``waiting`` (a hint)."""
        self.entries = list(entries)
        c = theme.colors()
        parts = [f"<div style='color:{c.text};'>"]
        for index, entry in enumerate(entries):
            parts.append(self._entry_html(index, entry, c, last=index == len(entries) - 1))
        if waiting:
            parts.append(f"<p style='color:{c.muted}; margin-top:16px;'>{html.escape(waiting)}</p>")
        if not entries and not waiting:
            parts.append(f"<p style='color:{c.muted};'>Nothing played yet.</p>")
        parts.append("</div>")
        self.setHtml("".join(parts))
        bar = self.verticalScrollBar()
        bar.setValue(bar.maximum())

    def _link(self, index: int, entry: Entry, c: theme.ThemeColors) -> str:
        if not (entry.script or entry.node):
            return ""
        where = f"line {entry.line}" if entry.line else "node"
        return (f"&nbsp;&nbsp; <a href='entry:{index}' style='color:{c.muted}; text-decoration:none; font-size:small;'>"
                f"{where} ↗</a>")

    def _entry_html(self, index: int, entry: Entry, c: theme.ThemeColors, *, last: bool) -> str:
        text = html.escape(entry.text)
        link = self._link(index, entry, c)
        if entry.kind == "speech":
            actor = html.escape(entry.actor or "")
            colour = actor_colour(entry.actor or "", c.dark)
            mood = (f" <span style='color:{c.muted};'>· {html.escape(entry.expression)}</span>"
                    if entry.expression else "")
            avatar = self._avatar(entry.actor, entry.expression)
            picture = (f"<img src='{avatar}' width='{AVATAR}' height='{AVATAR}'>" if avatar else
                       f"<table cellpadding='0' cellspacing='0'><tr><td width='{AVATAR}' height='{AVATAR}' "
                       f"align='center' style='background:{c.surface_alt}; color:{colour}; font-weight:600;'>"
                       f"{html.escape((entry.actor or '?')[:1].upper())}</td></tr></table>")
            weight = "font-size:large;" if last else ""
            return (f"<table cellspacing='0' cellpadding='0' style='margin-top:12px;'><tr>"
                    f"<td width='{AVATAR + 12}' valign='top'>{picture}</td>"
                    f"<td valign='top'><span style='color:{colour}; font-weight:600;'>{actor}</span>{mood}{link}"
                    f"<br><span style='{weight}'>{text}</span></td></tr></table>")
        if entry.kind == "text":
            return (f"<p style='margin:12px 0 0 {AVATAR + 12}px; font-style:italic; color:{c.text};'>"
                    f"{text}{link}</p>")
        if entry.kind == "command":
            return (f"<p style='margin:8px 0 0 {AVATAR + 12}px; color:{c.muted}; font-family:monospace;'>"
                    f"&lt;{text}&gt;{link}</p>")
        if entry.kind == "event":
            return (f"<p style='margin:8px 0 0 {AVATAR + 12}px; color:{c.accent};'>⚑ Event "
                    f"<b>{text}</b>{link}</p>")
        if entry.kind == "choice":
            return (f"<p align='right' style='margin:12px 0 0 0; color:{c.accent}; font-weight:600;'>"
                    f"→ {text}</p>")
        if entry.kind == "section":
            return (f"<p style='margin:24px 0 4px 0; color:{c.muted}; font-weight:600; letter-spacing:1px;'>"
                    f"{text.upper()}</p><hr style='color:{c.border};'>")
        if entry.kind == "problem":
            return f"<p style='margin:8px 0 0 {AVATAR + 12}px; color:{c.danger};'>⚠ {text}{link}</p>"
        if entry.kind == "end":
            return (f"<p align='center' style='margin:24px 0 8px 0; color:{c.muted}; font-weight:600;'>"
                    f"— {text} —{link}</p>")
        return f"<p>{text}</p>"
