"""Qt-free rules of the Attachments editor and of images in previews.

An Attachment document (``type: "Attachment"``, see docs/data-model.md) holds one file: its
bytes are the attachment ``blob`` (``_attachments.blob``), its ``mimeType`` says what they are,
``permalink`` (``storyloom://image/<id>``; Drafft wrote ``drafft://image/<id>``) is how other
documents point at it, and ``content.notes`` is free text.

- :func:`attachment_info` and :func:`detail_rows` are what the editor shows; :func:`users_of`
  lists the documents that point at an attachment (actor expressions, GDD images: the links the
  game export follows, :mod:`storyloom.export.attachments`).
- :func:`add_files` creates Attachment documents from files and :func:`replace_file` gives one
  a new file (a new revision); both write through the editor gate.
- :class:`AttachmentImages` resolves the image sources of a markdown or HTML preview
  (``![alt](storyloom://image/<id>)``, Drafft's ``drafft://image/<id>``, an attachment's id or
  name, ``data:`` URLs) to the bytes to draw, or says why there are none.
"""

from __future__ import annotations

import base64
import binascii
import mimetypes
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import unquote, urlsplit

from storyloom.errors import StoryloomError
from storyloom.export import REFERENCING_COLLECTIONS, referenced_attachments
from storyloom.project import ATTACHMENT_TYPE, Editor, WriteResult, permalink_target
from storyloom.store import NotFound
from storyloom.words import counted

BLOB = "blob"
"""The attachment name that holds an Attachment document's bytes."""

MAX_FILE_BYTES = 64 * 1024 * 1024
"""The largest file :func:`add_files` and :func:`replace_file` take (every replica stores it)."""

OCTET_STREAM = "application/octet-stream"

# Magic numbers of the formats a narrative project usually holds, checked before the file name.
_SIGNATURES: tuple[tuple[bytes, int, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", 0, "image/png"),
    (b"\xff\xd8\xff", 0, "image/jpeg"),
    (b"GIF87a", 0, "image/gif"),
    (b"GIF89a", 0, "image/gif"),
    (b"BM", 0, "image/bmp"),
    (b"%PDF-", 0, "application/pdf"),
    (b"OggS", 0, "audio/ogg"),
    (b"fLaC", 0, "audio/flac"),
    (b"ID3", 0, "audio/mpeg"),
)


class AttachmentFileError(StoryloomError):
    """A file that cannot become an attachment (unreadable, empty, too large)."""

    code = "attachment_file_refused"


# ---------------------------------------------------------------------------------- reading


@dataclass(frozen=True)
class AttachmentInfo:
    """What the editor shows of an Attachment document (from its stored revision)."""

    id: str
    rev: str
    name: str
    mime_type: str
    length: int | None
    digest: str
    notes: str
    permalink: str
    modified: str
    modified_by: str
    has_blob: bool

    @property
    def revision(self) -> int:
        """The revision's number (``3`` for ``3-ab…``; 0 when unknown)."""
        head = self.rev.split("-", 1)[0]
        return int(head) if head.isdigit() else 0

    @property
    def is_image(self) -> bool:
        return is_image_type(self.mime_type)


def is_image_type(mime_type: str) -> bool:
    """Whether ``mime_type`` names a picture the preview can try to draw."""
    return mime_type.lower().startswith("image/")


def attachment_info(doc: Mapping[str, Any]) -> AttachmentInfo:
    """The editor's view of ``doc`` (a stored Attachment document, its blob a stub)."""
    attachments = doc.get("_attachments")
    blob = attachments.get(BLOB) if isinstance(attachments, Mapping) else None
    blob = blob if isinstance(blob, Mapping) else {}
    mime = doc.get("mimeType")
    if not isinstance(mime, str) or not mime:
        mime = blob.get("content_type") if isinstance(blob.get("content_type"), str) else OCTET_STREAM
    length = blob.get("length")
    if not isinstance(length, int) and isinstance(blob.get("data"), str):
        length = len(blob["data"]) * 3 // 4 - blob["data"][-2:].count("=")
    content = doc.get("content")
    notes = content.get("notes") if isinstance(content, Mapping) else None
    return AttachmentInfo(
        id=str(doc.get("_id") or ""),
        rev=str(doc.get("_rev") or ""),
        name=str(doc.get("name") or ""),
        mime_type=str(mime),
        length=length if isinstance(length, int) else None,
        digest=str(blob.get("digest") or ""),
        notes=notes if isinstance(notes, str) else "",
        permalink=str(doc.get("permalink") or ""),
        modified=str(doc.get("modified") or doc.get("lastModified") or ""),
        modified_by=str(doc.get("modifiedBy") or ""),
        has_blob=bool(blob),
    )


def suggested_file_name(info: AttachmentInfo) -> str:
    """The file name "Save a copy" offers: the attachment's name with its type's extension."""
    stem = re.sub(r"[\\/:*?\"<>|]+", "_", info.name).strip() or "attachment"
    extension = {"image/jpeg": ".jpg", "image/svg+xml": ".svg", "audio/mpeg": ".mp3"}.get(
        info.mime_type.lower()) or mimetypes.guess_extension(info.mime_type) or ""
    return stem if extension and stem.lower().endswith(extension) else stem + extension


def read_blob(db: Any, doc_id: str, rev: str | None = None) -> bytes | None:
    """The bytes of ``doc_id``'s blob (at ``rev``, else the winning revision); ``None`` when the
    document or its blob is gone."""
    try:
        return db.get_attachment(doc_id, BLOB, rev=rev)
    except NotFound:
        return None


def human_size(length: int | None) -> str:
    """``2.4 MB``, ``310 KB``, ``512 bytes``; ``unknown`` without a length."""
    if length is None:
        return "unknown"
    if length < 1024:
        return counted(length, "byte", grouped=False)  # beside "4.0 KB": a size, not a count
    size = float(length)
    for unit in ("KB", "MB", "GB"):
        size /= 1024
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if size >= 100 else f"{size:.1f} {unit}"
    return f"{length} bytes"  # pragma: no cover - the loop always returns


def digest_text(digest: str) -> str:
    """CouchDB's ``md5-<base64>`` as ``MD5 <hex>`` (what checksum tools print); other text as is."""
    algorithm, _, encoded = digest.partition("-")
    if not encoded:
        return digest or "—"
    try:
        raw = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        return digest
    return f"{algorithm.upper()} {raw.hex()}"


def detail_rows(info: AttachmentInfo, dimensions: tuple[int, int] | None = None) -> list[tuple[str, str]]:
    """``(label, value)`` rows of the editor's details: type, size (and the image's dimensions
    when the caller could read them), digest, revision, permalink."""
    size = human_size(info.length)
    if info.length is not None and info.length >= 1024:
        size += f" ({info.length:,} bytes)"
    rows = [("Type", info.mime_type), ("Size", size if info.has_blob else "no file stored")]
    if dimensions is not None:
        rows.append(("Dimensions", f"{dimensions[0]} × {dimensions[1]} px"))
    rows.append(("Digest", digest_text(info.digest)))
    revision = f"{info.revision}"
    if info.modified:
        revision += f" · {info.modified[:16].replace('T', ' ')}"
        if info.modified_by:
            revision += f" by {info.modified_by}"
    rows.append(("Revision", revision))
    rows.append(("Permalink", info.permalink or "—"))
    return rows


@dataclass(frozen=True)
class AttachmentUser:
    """A document that points at an attachment: ``how`` says where (an expression, an image)."""

    id: str
    name: str
    collection: str
    how: str


def users_of(db: Any, index: Any, doc_id: str) -> list[AttachmentUser]:
    """The documents that point at attachment ``doc_id``: actors whose expressions show it and
    GDD pages whose text shows it (by its permalink), sorted by name. These are the links the
    game export follows; it reads only the Actor and GDD documents."""
    found: list[AttachmentUser] = []
    for collection in sorted(REFERENCING_COLLECTIONS):
        for other_id in index.ids_of_type(collection):
            try:
                doc = db.get(other_id)
            except NotFound:
                continue
            if doc_id in referenced_attachments(doc, collection, {doc_id}):
                how = "expression image" if collection == "Actor" else "image in the page"
                found.append(AttachmentUser(other_id, str(doc.get("name") or ""), collection, how))
    return sorted(found, key=lambda u: (u.name.casefold(), u.id))


# ---------------------------------------------------------------------------------- writing


def guess_type(file_name: str, data: bytes) -> str:
    """The MIME type of a file: from its first bytes when they say it, else from its name."""
    head = data[:64]
    for magic, offset, mime in _SIGNATURES:
        if head[offset:offset + len(magic)] == magic:
            return mime
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    if head[:4] == b"RIFF" and head[8:12] == b"WAVE":
        return "audio/wav"
    stripped = head.lstrip()
    if stripped.startswith(b"<svg") or (stripped.startswith(b"<?xml") and b"<svg" in data[:1024]):
        return "image/svg+xml"
    guessed, _ = mimetypes.guess_type(file_name)
    return guessed or OCTET_STREAM


def read_file(path: Path) -> bytes:
    """The bytes of ``path``, or :class:`AttachmentFileError` saying why not."""
    try:
        size = path.stat().st_size
        if not path.is_file():
            raise AttachmentFileError(f"{path.name} is not a file (a folder?); choose files to add")
        if size > MAX_FILE_BYTES:
            raise AttachmentFileError(
                f"{path.name} is {human_size(size)}; attachments are limited to {human_size(MAX_FILE_BYTES)} "
                "(every copy of the project stores them)")
        data = path.read_bytes()
    except OSError as exc:
        raise AttachmentFileError(f"cannot read {path.name}: {exc.strerror or exc}") from None
    if not data:
        raise AttachmentFileError(f"{path.name} is empty; there is nothing to attach")
    return data


def _blob(data: bytes, mime: str) -> dict[str, Any]:
    return {BLOB: {"content_type": mime, "data": base64.b64encode(data).decode("ascii")}}


def attachment_name(path: Path) -> str:
    """The name a new attachment takes from its file: the file name without its extension."""
    return path.stem or path.name


@dataclass(frozen=True)
class AddedFile:
    """One file of :func:`add_files`: the document created (``doc_id``) or why not (``error``)."""

    path: Path
    doc_id: str | None = None
    error: str | None = None


def add_files(editor: Editor, paths: Iterable[Path | str]) -> list[AddedFile]:
    """Create one Attachment document per file (its name without the extension, its MIME type
    from its bytes or name), each through the gate. A file that cannot be read or is refused is
    reported in its entry; the others are still added."""
    results: list[AddedFile] = []
    for raw in paths:
        path = Path(raw)
        try:
            data = read_file(path)
            mime = guess_type(path.name, data)
            result = editor.create(ATTACHMENT_TYPE, attachment_name(path), mimeType=mime,
                                   _attachments=_blob(data, mime))
        except StoryloomError as exc:
            results.append(AddedFile(path, error=str(exc)))
            continue
        results.append(AddedFile(path, doc_id=result.id))
    return results


def added_summary(results: list[AddedFile]) -> str:
    """One line on what :func:`add_files` did, for the panel: what was added and what was not."""
    added = [r for r in results if r.doc_id]
    failed = [r for r in results if r.error]
    parts = []
    if added:
        parts.append(f"Added {counted(len(added), 'file')}.")
    if failed:
        first = failed[0].error
        more = f" (and {len(failed) - 1} more)" if len(failed) > 1 else ""
        parts.append(f"Not added: {first}{more}.")
    return " ".join(parts) or "No files to add."


def replace_file(editor: Editor, doc_id: str, path: Path | str, rev: str | None = None) -> WriteResult:
    """Give attachment ``doc_id`` the bytes of ``path`` (a new revision; ``mimeType`` follows the
    new file, the name and notes stay). ``rev`` is the revision the user saw: a change made
    meanwhile makes this a conflict instead of a silent overwrite."""
    path = Path(path)
    data = read_file(path)
    mime = guess_type(path.name, data)
    return editor.patch(doc_id, {"mimeType": mime, "_attachments": _blob(data, mime)}, rev=rev)


# ---------------------------------------------------------------------------------- images in previews


@dataclass(frozen=True)
class ImageSource:
    """What an image source of a preview leads to.

    ``kind`` is ``attachment`` (``doc_id``, ``rev``, ``data``), ``data`` (an inline ``data:``
    URL, its bytes in ``data``), ``external`` (a web address, not fetched: the preview works
    offline) or ``missing`` (``reason`` says why). ``source`` is the text as written."""

    kind: str
    source: str
    doc_id: str | None = None
    rev: str | None = None
    data: bytes | None = None
    reason: str = ""

    @property
    def placeholder(self) -> str:
        """The text a preview draws in place of an image it cannot show."""
        if self.kind == "external":
            return f"Web image not loaded in the preview: {self.source}"
        return f"Image not shown: {self.reason}" if self.reason else f"Image not shown: {self.source}"


_DATA_URL = re.compile(r"^data:(?P<mime>[\w.+-]+/[\w.+-]+)?(?P<params>(;[^,;]*)*?)(?P<b64>;base64)?,(?P<body>.*)$",
                       re.DOTALL | re.IGNORECASE)


def _decode_data_url(source: str) -> bytes | None:
    match = _DATA_URL.match(source)
    if match is None:
        return None
    body = unquote(match["body"])
    try:
        data = base64.b64decode("".join(body.split()), validate=True) if match["b64"] else body.encode("utf-8")
    except (binascii.Error, ValueError):
        return None
    return data or None


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


class AttachmentImages:
    """Resolves the image sources of a preview against the project's Attachment documents.

    A source is a permalink (``storyloom://image/<id>``, ``drafft://image/<id>``), an
    attachment's id, its name (with or without a file extension, case-insensitive), a ``data:``
    URL, or a web address (not fetched)."""

    def __init__(self, db: Any, index: Any) -> None:
        self.db = db
        self.index = index

    def _attachments(self) -> dict[str, str]:
        """``{id: name}`` of every Attachment document."""
        names: dict[str, str] = {}
        for doc_id in self.index.ids_of_type(ATTACHMENT_TYPE):
            summary = self.index.get(doc_id)
            if summary is not None:
                names[doc_id] = summary.name if isinstance(summary.name, str) else ""
        return names

    def resolve(self, source: str) -> ImageSource:
        """Where ``source`` leads, without reading the bytes of an attachment."""
        text = (source or "").strip()
        if not text:
            return ImageSource("missing", text, reason="an image without a source")
        if text[:5].lower() == "data:":
            data = _decode_data_url(text)
            if data is None:
                return ImageSource("missing", text, reason="an inline image (data: URL) that does not decode")
            return ImageSource("data", text, data=data)
        if urlsplit(text).scheme.lower() in ("http", "https", "ftp"):
            return ImageSource("external", text)
        attachments = self._attachments()
        target = permalink_target(text)
        if target is not None:
            for candidate in (target, unquote(target)):
                if candidate in attachments:
                    return ImageSource("attachment", text, doc_id=candidate)
            return ImageSource("missing", text, reason=f"no attachment with id “{_short(unquote(target))}”")
        plain = unquote(text)
        for candidate in (text, plain):
            if candidate in attachments:
                return ImageSource("attachment", text, doc_id=candidate)
        wanted = plain.casefold()
        stem = PurePosixPath(plain).stem.casefold()
        by_name = sorted((name.casefold(), doc_id) for doc_id, name in attachments.items())
        for key in (wanted, PurePosixPath(plain).name.casefold(), stem):
            for name, doc_id in by_name:
                if name == key:
                    return ImageSource("attachment", text, doc_id=doc_id)
        return ImageSource("missing", text, reason=f"no attachment named “{_short(plain)}”")

    def load(self, source: str) -> ImageSource:
        """:meth:`resolve`, with the bytes of an attachment read (and its revision, for caches)."""
        found = self.resolve(source)
        if found.kind != "attachment" or found.doc_id is None:
            return found
        summary = self.index.get(found.doc_id)
        rev = summary.rev if summary is not None else None
        data = read_blob(self.db, found.doc_id, rev)
        if data is None:
            return ImageSource("missing", found.source, doc_id=found.doc_id,
                               reason=f"the attachment “{_short(found.doc_id)}” holds no file")
        return ImageSource("attachment", found.source, doc_id=found.doc_id, rev=rev, data=data)

    def revision(self, doc_id: str) -> str | None:
        """The current revision of attachment ``doc_id`` (a cached image of another is stale)."""
        summary = self.index.get(doc_id)
        return summary.rev if summary is not None else None
