"""What is printed: a document of parts, each a screenplay (a script) or a page (GDD markdown, or
a folder's heading), with no format in it yet."""

from __future__ import annotations

from dataclasses import dataclass, field

#: The kinds of screenplay element, as the Fountain spec names them where it has a name.
ACTION = "action"
CHARACTER = "character"
PARENTHETICAL = "parenthetical"
DIALOGUE = "dialogue"
#: A branch marker (``@if``, ``@else``, ``@endif``): centered text in every format.
BRANCH = "branch"
#: A writer's comment (``// ...``): a Fountain note, grey italic elsewhere.
NOTE = "note"


@dataclass(frozen=True)
class Element:
    """One screenplay element. ``depth`` is how many ``@if`` blocks it is inside (0 at the top);
    ``line`` the script line it comes from."""

    kind: str
    text: str
    depth: int = 0
    line: int = 0


@dataclass
class Screenplay:
    """A script as a screenplay: its title (the document's name) and elements in order. A speech
    is three elements in a row: its character cue, an optional parenthetical, the dialogue."""

    title: str
    elements: list[Element] = field(default_factory=list)
    doc_id: str = ""


@dataclass
class Page:
    """A page of prose: a title heading at ``level`` (1 is the top) and its markdown (``None`` for
    a folder, which prints only its heading). The markdown's own headings print below the
    title's level. An empty title prints no heading (the rest of a dialogue node, after its
    script)."""

    title: str
    markdown: str | None
    level: int = 1
    doc_id: str = ""


Part = Screenplay | Page


@dataclass
class PrintDocument:
    """Everything one printed file holds, in order."""

    title: str
    parts: list[Part] = field(default_factory=list)

    @property
    def needs_title(self) -> bool:
        """Whether the file opens with the document's title: it holds more than one part, and
        the first does not already say it (one dialogue's title is its first part's)."""
        return len(self.parts) > 1 and self.parts[0].title != self.title

    @property
    def screenplays(self) -> list[Screenplay]:
        return [part for part in self.parts if isinstance(part, Screenplay)]

    @property
    def pages(self) -> list[Page]:
        return [part for part in self.parts if isinstance(part, Page)]


@dataclass(frozen=True)
class Image:
    """An image a page references, as the caller found it: its bytes and type, or ``None`` and
    ``note`` (why it is not there: printed in its place)."""

    data: bytes | None
    mime: str = ""
    note: str = ""
