"""Voice-over recording scripts: :func:`recording_script` and :func:`write_recording_csv`
(docs/localization.md, "Voice-over recording scripts").

One row per speech line of every Script, in the catalog's order (:mod:`storyloom.l10n.gather`):
the line id, the actor (the Actor document's name when the name written resolves to one), the
line's ``[expression]``, the text, what the text is (the source, or with a locale the
translation, the translation to review, or the source for want of one), the context (the
previous speech line of the same script, its actor and text, so an actor knows what they
answer), and the audio file a game loads: the project's ``voiceOverPath`` pattern
(``{actor}/{lineId}.ogg`` by default) with the actor, the line id, the locale and the document's
path made file-safe (:func:`file_safe`).

Choice options are not recorded: an option is a menu label the player reads, and a game that
has the player's character say the chosen option writes that as a speech line of the script the
option leads to, which is recorded like any other.
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from storyloom.errors import StoryloomError
from storyloom.l10n.gather import SCRIPT, actor_names, placed_documents, places, script_lines
from storyloom.l10n.translations import needs_review
from storyloom.project import source_locale, speaker_key, voice_over_path

#: What a row's text is (the ``text_from`` column).
FROM_SOURCE = "source"
FROM_TRANSLATION = "translation"
FROM_REVIEW = "translation (to review)"
FROM_FALLBACK = "source (untranslated)"

#: The CSV's columns, in order.
HEADER = ("line_id", "actor", "expression", "text", "text_from", "context_actor", "context_text",
          "audio_file", "document", "line")

# Characters no file name may hold on Windows, macOS or Linux, and the names Windows reserves.
_UNSAFE = re.compile(r'[<>:"/\\|?*\x00-\x1f\x7f]')
_SPACES = re.compile(r"\s+")
_RESERVED = re.compile(r"(?:CON|PRN|AUX|NUL|COM[0-9]|LPT[0-9])(?:\..*)?", re.IGNORECASE)
#: A file-safe name keeps at most this many characters (file names are limited to 255 bytes).
MAX_NAME = 100


class UnknownActor(StoryloomError):
    """``--actor`` names no actor who speaks in the project."""

    code = "vo_unknown_actor"

    def __init__(self, actor: str, known: list[str]) -> None:
        self.actor = actor
        self.known = known
        listed = ", ".join(known) if known else "none: the project has no speech lines"
        super().__init__(f"no actor named {actor!r} speaks in the project; the actors who speak are: {listed}")


@dataclass(frozen=True, slots=True)
class VoLine:
    """One row of a recording script."""

    line_id: str
    actor: str
    expression: str
    text: str
    text_from: str
    context_actor: str
    context_text: str
    audio_file: str
    document: str
    document_id: str
    line: int

    def row(self) -> tuple[str, ...]:
        return (self.line_id, self.actor, self.expression, self.text, self.text_from, self.context_actor,
                self.context_text, self.audio_file, self.document, str(self.line))


def file_safe(name: str) -> str:
    """``name`` as a file or folder name every system accepts: Unicode NFC, each run of
    whitespace one ``_``, each character Windows, macOS or Linux refuses (``< > : " / \\ | ? *``
    and control characters) ``_``, leading and trailing dots and underscores dropped (a leading
    dot hides a file; Windows drops a trailing one), a name Windows reserves (``CON``, ``NUL``,
    ``COM1``...) followed by ``_``, at most 100 characters, and ``_`` for nothing left. Letters of
    every script are kept: ``Zoë Ström`` is ``Zoë_Ström``."""
    text = _UNSAFE.sub("_", _SPACES.sub("_", unicodedata.normalize("NFC", name).strip()))
    text = text.strip("._")[:MAX_NAME].rstrip("._")
    if _RESERVED.fullmatch(text):
        text += "_"
    return text or "_"


def audio_file(pattern: str, *, actor: str, line_id: str, locale: str, document: str) -> str:
    """``pattern`` (a valid ``voiceOverPath``) with its placeholders filled in, each value made
    :func:`file_safe` (the document's path folder by folder, so ``{document}`` makes folders)."""
    return pattern.format_map({
        "actor": file_safe(actor), "lineId": file_safe(line_id), "locale": file_safe(locale),
        "document": "/".join(file_safe(part) for part in document.split("/")),
    })


def recording_script(project: Any, *, actor: str | None = None, locale: str | None = None) -> list[VoLine]:
    """The recording script of ``project``: every speech line (only ``actor``'s when given: the
    Actor document's name or an alias, or a name as written in a script, in any case;
    :class:`UnknownActor`, listing the actors who speak, when none of them is it), with its text
    in ``locale`` when given (a target locale of the project, checked by the caller)."""
    rows = list(lines(project, locale=locale))
    if actor is None:
        return rows
    speakers = actor_names(project.db, project.editor.index.ids_of_type("Actor"))
    wanted = speakers.get(speaker_key(actor), actor.strip()).casefold()
    chosen = [row for row in rows if row.actor.casefold() == wanted]
    if not chosen:
        known = {row.actor.casefold(): row.actor for row in rows if row.actor}
        raise UnknownActor(actor, sorted(known.values(), key=str.casefold))
    return chosen


def lines(project: Any, *, locale: str | None = None) -> Iterator[VoLine]:
    """Every row of :func:`recording_script`, one document at a time."""
    settings = project.editor.settings()
    pattern = voice_over_path(settings)
    file_locale = locale or source_locale(settings)
    db = project.db
    index = project.editor.index
    speakers = actor_names(db, index.ids_of_type("Actor"))
    found = [p for p in places(index) if p.type == SCRIPT]
    for place, doc, held in placed_documents(db, found, (locale,) if locale else ()):
        stored = held.get(locale or "", {})
        previous: tuple[str, str] = ("", "")
        for line in script_lines(doc, speakers):
            text, text_from = line.source, FROM_SOURCE
            if locale:
                entry = stored.get(line.line_id)
                if entry is not None and entry.text.strip():
                    text = entry.text
                    text_from = FROM_REVIEW if needs_review(entry, line.source) else FROM_TRANSLATION
                else:
                    text_from = FROM_FALLBACK
            speaker = line.speaker or ""
            yield VoLine(
                line.line_id, speaker, line.expression or "", text, text_from, previous[0], previous[1],
                audio_file(pattern, actor=speaker, line_id=line.line_id, locale=file_locale, document=place.path),
                place.path, place.id, int(line.location),
            )
            previous = (speaker, text)


def recording_csv(rows: list[VoLine]) -> bytes:
    """The recording script as CSV (the csv module's dialect, UTF-8, a header row first)."""
    out = io.StringIO(newline="")
    writer = csv.writer(out)
    writer.writerow(HEADER)
    writer.writerows(row.row() for row in rows)
    return out.getvalue().encode("utf-8")


def write_recording_csv(rows: list[VoLine], path: Path) -> None:
    """Write :func:`recording_csv` to ``path`` atomically (the file is never half written)."""
    from storyloom.output_files import atomic_write

    atomic_write(path, recording_csv(rows))
