"""Where a window opens, and where it was left (per user and machine: ``<config dir>/windows.json``).

A window the app opens beside the project window (the player) opens where the writer last left
it, when that place is still on a screen; otherwise centred on the window it belongs to. Either
way it is made to fit the screen's available area (without the taskbar), never partly off it.
The project windows share one place (the last one closed): a maximized window is remembered as
maximized, with the place it had before (where "restore" puts it back).
Rectangles are ``(x, y, width, height)`` in screen pixels, the window's frame. The file is small,
rewritten atomically, and a broken file reads as empty: a forgotten place never stops a window.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from storyloom import paths
from storyloom.output_files import atomic_write

WINDOWS_FILE = "windows.json"
#: How much of a remembered window must lie on a screen for it to open there again (its title
#: bar must be reachable): the rest of the time it opens centred instead.
MIN_VISIBLE = 48


class Rect(NamedTuple):
    x: int
    y: int
    width: int
    height: int

    @property
    def right(self) -> int:
        return self.x + self.width

    @property
    def bottom(self) -> int:
        return self.y + self.height

    def overlap(self, other: Rect) -> tuple[int, int]:
        """The width and height of what this rectangle shares with ``other`` (0 when nothing)."""
        return (max(0, min(self.right, other.right) - max(self.x, other.x)),
                max(0, min(self.bottom, other.bottom) - max(self.y, other.y)))


def fit(rect: Rect, screen: Rect) -> Rect:
    """``rect`` made no larger than ``screen`` and moved (not resized further) to lie inside it."""
    width, height = min(rect.width, screen.width), min(rect.height, screen.height)
    x = min(max(rect.x, screen.x), screen.right - width)
    y = min(max(rect.y, screen.y), screen.bottom - height)
    return Rect(x, y, width, height)


def centred(size: tuple[int, int], over: Rect, screen: Rect) -> Rect:
    """A window of ``size`` centred on ``over``, fitted into ``screen``."""
    width, height = min(size[0], screen.width), min(size[1], screen.height)
    return fit(Rect(over.x + (over.width - width) // 2, over.y + (over.height - height) // 2, width, height), screen)


def place(size: tuple[int, int], over: Rect, screen: Rect, saved: Rect | None = None,
          screens: Sequence[Rect] = ()) -> Rect:
    """Where a window of ``size`` opens: at ``saved`` (fitted into the screen it is on) when its
    top still shows on one of ``screens`` (``screen`` when none are given), else centred on
    ``over`` within ``screen`` (the screen ``over`` is on)."""
    if saved is not None and saved.width > 0 and saved.height > 0:
        for candidate in screens or (screen,):
            top = Rect(saved.x, saved.y, saved.width, min(saved.height, MIN_VISIBLE))
            width, height = top.overlap(candidate)
            if width >= min(MIN_VISIBLE, saved.width) and height > 0:
                return fit(saved, candidate)
    return centred(size, over, screen)


class WindowPlaces:
    """The remembered places, by window name, in ``file`` (default: the config directory's
    ``windows.json``)."""

    def __init__(self, file: Path | str | None = None) -> None:
        self._file = Path(file) if file is not None else None

    @property
    def file(self) -> Path:
        return self._file or paths.config_dir() / WINDOWS_FILE

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def get(self, name: str) -> Rect | None:
        """Where ``name`` was left; ``None`` when never (or unreadably) recorded."""
        value = self._read().get(name)
        if (isinstance(value, list) and len(value) == 4
                and all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
            return Rect(*value)
        return None

    def maximized(self, name: str) -> bool:
        """Whether ``name`` was left maximized (:meth:`get` is then its place before)."""
        return self._read().get(f"{name}.maximized") is True

    def remember(self, name: str, rect: Rect, *, maximized: bool = False) -> None:
        """Record where ``name`` is (its place before it was maximized, when ``maximized``); a
        file that cannot be written is let go (a place is a comfort)."""
        data = self._read()
        data[name] = list(rect)
        if maximized:
            data[f"{name}.maximized"] = True
        else:
            data.pop(f"{name}.maximized", None)
        try:
            atomic_write(self.file, json.dumps(data, indent=2, sort_keys=True) + "\n")
        except OSError:
            pass
