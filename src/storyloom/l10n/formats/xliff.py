"""XLIFF 2.0 files (``.xlf``, ``.xliff``; docs/translation-files.md).

Written with the standard library's ElementTree: ``<xliff version="2.0" srcLang trgLang>``, one
``<file>`` per source document (``id``: the document's id, ``original``: its path) and one
``<unit>`` per line (``id``: the line id, encoded as an NMTOKEN when it has other characters than
letters, digits, ``_`` and ``.``), with ``<notes>`` (speaker, place, kind, the writer's notes,
the source a translation was made for) and one ``<segment>``:

- no translation: ``state="initial"``, no ``<target>``;
- a translation to review: ``state="initial"`` with its ``<target>`` and
  ``subState="storyloom:needs-review"``: a target in the initial state is what translate-toolkit
  (and so Weblate and Pootle) read as fuzzy;
- a translation: ``state="translated"``.

Read back with lxml (already a dependency through python-docx), which says the line of every
element: a translation is to review when its segment's state is ``initial`` (the schema's default)
and it has a target; ``translated``, ``reviewed`` and ``final`` are not. A character XML cannot
hold (a control character) is written as XLIFF's ``<cp hex="..."/>`` and read back as itself.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator

from lxml import etree

from storyloom.l10n.catalog import Catalog, CatalogEntry, ReadEntry, ReadFile
from storyloom.l10n.formats.common import TranslationFileError, check_unique, target_text

NS = "urn:oasis:names:tc:xliff:document:2.0"
XML_SPACE = "{http://www.w3.org/XML/1998/namespace}space"
#: The subState of a translation to review (XLIFF 2.0 has no such state: see the module's doc).
NEEDS_REVIEW = "storyloom:needs-review"

# What an id keeps as it is; every other character becomes "-<hex code point>-" (a hyphen is
# never kept, so the encoding reads back unambiguously). Drafft tags ([\w.]+) and Storyloom's
# base32 ids are made of kept characters, save a tag's non-ASCII letters.
_ID_KEPT = re.compile(r"[A-Za-z0-9_.]")
_ID_ESCAPE = re.compile(r"-([0-9a-f]{1,6})-")
# Characters XML 1.0 cannot hold, even as a character reference.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def encode_id(value: str) -> str:
    """A line id (or a document id) as an XML NMTOKEN: reversible (:func:`decode_id`)."""
    return "".join(char if _ID_KEPT.fullmatch(char) else f"-{ord(char):x}-" for char in value)


def decode_id(value: str) -> str:
    """The id :func:`encode_id` encoded (an id written by another tool, without escapes, is itself)."""
    return _ID_ESCAPE.sub(lambda match: chr(int(match.group(1), 16)), value)


def _q(name: str) -> str:
    return f"{{{NS}}}{name}"


def _plain(text: str) -> str:
    """Text for an attribute or a note, which cannot hold ``<cp>``: XML's impossible characters
    as the replacement character."""
    return _NOT_XML.sub("\ufffd", text)


def _put_text(element: ET.Element, text: str) -> None:
    """``text`` as the content of a ``<source>`` or ``<target>``, each character XML cannot hold
    as a ``<cp hex="..."/>``."""
    parts = _NOT_XML.split(text)
    element.text = parts[0]
    for char, after in zip(_NOT_XML.findall(text), parts[1:], strict=True):
        cp = ET.SubElement(element, "cp", {"hex": f"{ord(char):04X}"})
        cp.tail = after


def _notes(entry: CatalogEntry) -> list[tuple[str, str]]:
    notes: list[tuple[str, str]] = []
    if entry.speaker:
        notes.append(("speaker", entry.speaker))
    place = ":".join(part for part in (entry.document, entry.location) if part)
    if place:
        notes.append(("location", place))
    notes.append(("kind", "a choice option the player picks" if entry.kind == "option" else "a speech line"))
    notes.extend(("writer", note) for note in entry.notes if note.strip())
    if entry.needs_review and entry.previous_source is not None and entry.previous_source != entry.source:
        notes.append(("previous-source", entry.previous_source))
    return notes


def _unit(parent: ET.Element, entry: CatalogEntry) -> None:
    unit_id = encode_id(entry.line_id)
    attributes = {"id": unit_id, "canResegment": "no"}
    if unit_id != entry.line_id:
        attributes["name"] = _plain(entry.line_id)
    unit = ET.SubElement(parent, "unit", attributes)
    notes = ET.SubElement(unit, "notes")
    for category, text in _notes(entry):
        ET.SubElement(notes, "note", {"category": category}).text = _plain(text)
    if entry.target:
        state = {"state": "initial", "subState": NEEDS_REVIEW} if entry.needs_review else {"state": "translated"}
    else:
        state = {"state": "initial"}
    segment = ET.SubElement(unit, "segment", state)
    _put_text(ET.SubElement(segment, "source"), entry.source)
    if entry.target:
        _put_text(ET.SubElement(segment, "target"), entry.target)


def _indent(element: ET.Element, level: int = 0) -> None:
    """Indent the structure for people reading the file; never a source's or target's content
    (mixed with ``<cp>``), nor a note's."""
    if element.tag in ("source", "target", "note") or not len(element):
        return
    inner = "\n" + "  " * (level + 1)
    element.text = inner
    for child in element:
        _indent(child, level + 1)
        child.tail = inner
    element[-1].tail = "\n" + "  " * level


def xliff_text(catalog: Catalog) -> str:
    """The XLIFF 2.0 document of a catalog, as text."""
    return xliff_bytes(catalog).decode("utf-8")


def xliff_bytes(catalog: Catalog) -> bytes:
    """The XLIFF 2.0 document of a catalog, as UTF-8 bytes: a ``<file>`` per document (in the
    order the documents first come), each built and written by itself, so a catalog of 100,000
    lines is never one tree of a million elements (docs/benchmarks.md, "Localization")."""
    grouped: dict[str, list[CatalogEntry]] = {}
    for entry in catalog.entries:
        grouped.setdefault(entry.document_id, []).append(entry)
    root = ET.Element("xliff", {"version": "2.0", "srcLang": catalog.source_locale,
                                    "trgLang": catalog.target_locale})
    if not grouped:
        return _document(ET.tostring(root, encoding="unicode")).encode("utf-8")
    root.text = _SPLIT
    opening, closing = ET.tostring(root, encoding="unicode").split(_SPLIT)
    chunks = [_document(opening).encode("utf-8")]
    for document_id, entries in grouped.items():
        # An entry without a document goes to the file "-" (no document id encodes to it).
        attributes = {"id": encode_id(document_id) or "-", XML_SPACE: "preserve"}
        if entries[0].document:
            attributes["original"] = _plain(entries[0].document)
        file = ET.Element("file", attributes)
        for entry in entries:
            _unit(file, entry)
        _indent(file, 1)
        chunks.append(_texts("\n  " + ET.tostring(file, encoding="unicode")).encode("utf-8"))
    chunks.append(f"\n{closing}\n".encode())
    return b"".join(chunks)


# Splits the root's serialization into its opening and closing tags (a text no attribute holds).
_SPLIT = "@@files@@"


def _document(opening: str) -> str:
    """The XML declaration and the root's opening tag (or the empty root), its namespace
    declared: the elements are built without it, as ElementTree's ``default_namespace`` refuses
    the unqualified attributes XLIFF uses."""
    declared = _texts(opening.replace("<xliff ", f'<xliff xmlns="{NS}" ', 1))
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + declared + ("\n" if opening.endswith("/>") else "")


def _texts(xml: str) -> str:
    """A carriage return in a text would be read back as a line feed (XML normalizes line
    ends); a character reference keeps it. ElementTree writes one in an attribute already, and
    the indentation has none, so every raw one left is in a text."""
    return xml.replace("\r", "&#13;")


def _text_of(element: etree._Element) -> str:
    """A source's or target's text: inline elements' text in place, ``<cp>`` as its character;
    a placeholder without text (``<ph>``) adds nothing."""
    parts = [element.text or ""]
    for child in element:
        if not isinstance(child.tag, str):  # a comment or a processing instruction
            pass
        elif child.tag == _q("cp"):
            try:
                parts.append(chr(int(child.get("hex", ""), 16)))
            except ValueError:
                raise TranslationFileError(
                    f"<cp hex={child.get('hex')!r}>: expected a character's code point in hexadecimal",
                    line=child.sourceline) from None
        else:
            parts.append(_text_of(child))
        parts.append(child.tail or "")
    return "".join(parts)


def _segments(unit: etree._Element) -> Iterator[etree._Element]:
    for child in unit:
        if child.tag in (_q("segment"), _q("ignorable")):
            yield child


def _read_unit(unit: etree._Element) -> ReadEntry:
    raw_id = unit.get("id")
    if not raw_id:
        raise TranslationFileError("a <unit> without an id; expected the line id as its id attribute",
                                   line=unit.sourceline)
    parts = list(_segments(unit))
    if not any(part.tag == _q("segment") for part in parts):
        raise TranslationFileError(f"the <unit id={raw_id!r}> has no <segment>; expected one holding the "
                                   "<source> and <target>", line=unit.sourceline)
    sources: list[str] = []
    targets: list[str] = []
    translated = initial = False
    for part in parts:
        source = part.find(_q("source"))
        if source is None:
            raise TranslationFileError(f"a <{etree.QName(part).localname}> of the unit {raw_id!r} has no <source>",
                                       line=part.sourceline)
        sources.append(_text_of(source))
        target = part.find(_q("target"))
        if target is not None:
            targets.append(_text_of(target))
            translated = translated or part.tag == _q("segment")
        else:
            # An ignorable part (whitespace between segments) without a target stays as it is.
            targets.append(sources[-1] if part.tag == _q("ignorable") else "")
        initial = initial or (part.tag == _q("segment") and part.get("state", "initial") == "initial")
    target = target_text("".join(targets)) if translated else None
    return ReadEntry(line_id=decode_id(raw_id), source="".join(sources), target=target,
                     needs_review=target is not None and initial)


def read_xliff_bytes(data: bytes, path: str = "<memory>") -> ReadFile:
    """An XLIFF 2.0 document's units, in document order (those of every ``<file>`` and
    ``<group>``)."""
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, remove_comments=True)
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as exc:
        raise TranslationFileError(f"not well-formed XML ({exc.msg}); expected an XLIFF 2.0 document", path=path,
                                   line=exc.lineno or None) from None
    if root.getroottree().docinfo.doctype:
        raise TranslationFileError("the document declares a DOCTYPE; an XLIFF 2.0 document has none", path=path,
                                   line=1)
    namespace = etree.QName(root).namespace or ""
    if etree.QName(root).localname != "xliff" or not namespace.startswith("urn:oasis:names:tc:xliff:document:"):
        raise TranslationFileError(f"the root element is <{etree.QName(root).localname}>; expected an XLIFF 2.0 "
                                   f"<xliff xmlns=\"{NS}\">", path=path, line=root.sourceline)
    version = root.get("version", "")
    if namespace != NS or not version.startswith("2."):
        raise TranslationFileError(f"this is XLIFF {version or namespace.rsplit(':', 1)[-1]}; Storyloom reads XLIFF "
                                   "2.0 (the version it writes)", path=path, line=root.sourceline)
    found: list[tuple[ReadEntry, int | None]] = []
    try:
        for unit in root.iter(_q("unit")):
            found.append((_read_unit(unit), unit.sourceline))
    except TranslationFileError as exc:
        raise TranslationFileError(exc.cause, path=path, line=exc.line) from None
    return ReadFile(source_locale=root.get("srcLang") or None, target_locale=root.get("trgLang") or None,
                    entries=check_unique(found, path))
