"""The command palette (Ctrl+Shift+P): every menu command by name, fuzzy filtered (Qt-free).

A :class:`Command` is what the window offers: its label, where it lives (``"File"``,
``"Team › Remote"``), its keys as the platform writes them and whether it can run now. The
palette matches a query against the label with :func:`storyloom.app.views.quick_open.fuzzy_score`
(the quick open's rule, so both lists feel the same) and, when the label alone does not match,
against ``"<where> <label>"`` at a lower score, so "file save" finds File › Save. Commands that
cannot run now stay listed, after the ones that can, so the writer learns they exist."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from storyloom.app.views.quick_open import fuzzy_score

#: How much a match through the command's place (not its label) is worth less.
PLACE_PENALTY = 8.0


@dataclass(frozen=True)
class Command:
    key: str  # stable while the palette is open: which command to run
    label: str
    where: str = ""
    keys: str = ""
    enabled: bool = True


@dataclass(frozen=True)
class CommandMatch:
    command: Command
    score: float
    positions: tuple[int, ...]  # matched characters of the label (empty when matched by place)


def clean_label(text: str) -> str:
    """A menu text without its mnemonic ampersands (``&&`` stays one ``&``) or trailing ``…``."""
    text = text.replace("&&", "\0").replace("&", "").replace("\0", "&")
    return text.rstrip(".…").strip()


def rank_commands(commands: Iterable[Command], query: str) -> list[CommandMatch]:
    """The commands matching ``query``, best first; enabled ones before disabled ones. With an
    empty query every command, in the order given (the menus' order)."""
    matches: list[tuple[int, CommandMatch]] = []
    seen: set[str] = set()
    for order, command in enumerate(commands):
        if command.key in seen or not command.label:
            continue
        seen.add(command.key)
        found = fuzzy_score(query, command.label)
        if found is not None:
            matches.append((order, CommandMatch(command, found[0], found[1])))
            continue
        if command.where:
            through = fuzzy_score(query, f"{command.where} {command.label}")
            if through is not None:
                matches.append((order, CommandMatch(command, through[0] - PLACE_PENALTY, ())))
    if query.strip():
        matches.sort(key=lambda m: (not m[1].command.enabled, -m[1].score, m[1].command.label.lower(), m[0]))
    else:
        matches.sort(key=lambda m: (not m[1].command.enabled, m[0]))
    return [match for _order, match in matches]
