"""Screenshots of what a writer uses every day: the command palette, favourites in the sidebar,
and the styled markdown preview beside its highlighted source (light and dark), on the Drafft
garden sample."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QApplication, QWidget

from storyloom.app import Workspace
from tools.screenshots import register, settle
from tools.screenshots.main_window_shots import _overlay, _window

MARKDOWN = """# The Garden of Fading Memories

A short, quiet game about a woman who tends a garden of **memories**, and the visitor who
*might* help her remember. See the [opening scene](https://example.com/opening) for the tone.

## Pillars

- Every conversation changes what grows.
- No fail states: only *what was kept* and what was let go.
- Sound carries the mood; text stays short.

> "The flowers remember what I cannot."
> — the Woman, in the first scene

## Numbers

| Memory | Trust needed | Scene |
|---|---|---|
| The locket | 3 | Memory Room |
| The pendant | 5 | Reflection |
| The song | 7 | Ending |

Variables live under `variables.player`, for example `memories_count`:

```
@if variables.player.memories_count > 2
    ::Woman:: You remember more than you think.
@endif
```
"""


@register("command-palette")
def command_palette(workspace: Workspace, out_dir: Path) -> QWidget:
    window = _window(workspace)
    from storyloom.gui.command_palette import CommandPalette

    palette = CommandPalette(window)
    palette.query.setText("exp")
    _overlay(window, palette, top=72, fit=False)
    palette.setStyleSheet("#commandPalette { background: palette(window); border: 1px solid palette(mid);"
                          " border-radius: 8px; }")
    app = QApplication.instance()
    if isinstance(app, QApplication):
        settle(app)
    return window


@register("favourites")
def favourites(workspace: Workspace, out_dir: Path) -> QWidget:
    window = _window(workspace)
    wanted = ("Reflection (Ending)", "Woman", "Memory Room", "Game Design Document")
    by_name = {s.name: s.id for s in window.session.index.summaries()}
    starred = [by_name[name] for name in wanted if name in by_name]
    others = [s.id for s in window.session.index.summaries() if s.type in ("Gdd", "Dialogue") and s.id not in starred]
    window.favourites.toggle(starred + others[:1])
    return window


def _markdown(workspace: Workspace) -> QWidget:
    window = _window(workspace)
    doc = window.session.editor.create("Gdd", "Design Pitch", content={"gdd": MARKDOWN})
    window.sidebar.select("Gdd")
    window.navigate_to("", doc.id)
    editor = window.tabs.current_editor()
    pane = getattr(editor, "pane", None)
    if pane is not None:
        pane.splitter.setSizes([560, 700])
        pane.render_preview()
    return window


@register("markdown-preview")
def markdown_preview(workspace: Workspace, out_dir: Path) -> QWidget:
    return _markdown(workspace)
