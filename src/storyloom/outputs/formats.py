"""Which format a printed file is written in: from its extension, the one choice a writer makes."""

from __future__ import annotations

from pathlib import PurePath

from storyloom.errors import StoryloomError

#: Extension -> format, in the order the formats are offered.
FORMATS: dict[str, str] = {".pdf": "pdf", ".docx": "docx", ".html": "html", ".fountain": "fountain"}
#: What a format is, in the words of a save dialog.
FORMAT_LABELS: dict[str, str] = {
    "pdf": "PDF document",
    "docx": "Word document",
    "html": "Web page",
    "fountain": "Fountain screenplay",
}


class UnsupportedFormat(StoryloomError):
    """A file to print whose extension names no format Storyloom writes."""

    code = "print_format_unsupported"


class NotPrintable(StoryloomError):
    """A document that cannot be printed in the format asked (a GDD page as a screenplay, a
    document of a kind with no printed form)."""

    code = "not_printable"


def supported_extensions() -> str:
    """``.pdf, .docx, .html or .fountain``."""
    names = list(FORMATS)
    return ", ".join(names[:-1]) + " or " + names[-1]


def format_of(path: str | PurePath) -> str:
    """The format of a file to print, from its extension (case-insensitive); raises
    :class:`UnsupportedFormat` naming the supported ones."""
    suffix = PurePath(path).suffix.lower()
    found = FORMATS.get(suffix)
    if found is None:
        shown = f"“{suffix}”" if suffix else "no extension"
        raise UnsupportedFormat(f"Cannot print to {PurePath(path).name}: {shown} is not a format Storyloom prints; "
                                f"name the file with {supported_extensions()}.")
    return found
