"""Attachments whose bytes do not match the digest recorded with them.

A backup (Storyloom's, or Drafft's ``allDocs`` dump) carries each attachment's bytes (base64
``data``) beside the digest its database recorded (``digest``: CouchDB's ``md5-<base64 of the
md5>``). Bytes that do not match it were changed after the digest was taken: a damaged disk or
transfer, a file edited by hand. The store computes its own digest of the bytes it is given, so
an import or a restore that did not compare would keep the damage without a word. Both compare,
and refuse the backup (naming each document and attachment) unless told to accept the damaged
attachments, which are then kept as they are, each listed in a warning.

What counts as a match: the md5 of the bytes (PouchDB, Drafft, Storyloom), or the md5 of the
bytes gzipped as CouchDB stores the types it compresses (``text/*``, JSON, JavaScript, XML at
its default settings: zlib at level 8 by default, and at any other level), whose digest CouchDB
takes of the compressed bytes. A digest that is not ``md5-…`` (another algorithm) and an
attachment without a digest are not compared.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from storyloom.errors import Fix, StoryloomError

MD5_PREFIX = "md5-"
# CouchDB's [attachments] compressible_types by default, and its default compression_level.
COMPRESSIBLE_PREFIXES = ("text/",)
COMPRESSIBLE_TYPES = frozenset({"application/javascript", "application/json", "application/xml"})
COUCHDB_LEVEL = 8
# How many damaged attachments a message lists one per line (the rest are counted).
LISTED = 20


@dataclass(frozen=True)
class DamagedAttachment:
    """An attachment whose bytes do not match the digest recorded with it: the document (its id,
    and ``label``, what it is for people: ``Actor “Bella”``), the attachment's name, the digest
    the backup recorded and the one of the bytes it holds."""

    doc_id: str
    name: str
    recorded: str
    actual: str
    label: str = ""

    def where(self) -> str:
        """``attachment 'blob' of document 'abc' (Actor “Bella”)``."""
        what = f" ({self.label})" if self.label else ""
        return f"attachment {self.name!r} of document {self.doc_id!r}{what}"

    def describe(self) -> str:
        return f"{self.where()}: recorded digest {self.recorded}, its bytes' {self.actual}"


def md5_digest(data: bytes) -> str:
    """``md5-<base64>`` of ``data``: CouchDB's and PouchDB's form (the store's own digest)."""
    return MD5_PREFIX + base64.b64encode(hashlib.md5(data).digest()).decode()


def _compressible(content_type: Any) -> bool:
    if not isinstance(content_type, str):
        return False
    kind = content_type.split(";", 1)[0].strip().lower()
    return kind.startswith(COMPRESSIBLE_PREFIXES) or kind in COMPRESSIBLE_TYPES


def _gzipped(data: bytes, level: int) -> bytes:
    # CouchDB's gzip: zlib's deflate with a gzip wrapper (window bits 16 + 15), memory level 8.
    compressor = zlib.compressobj(level, zlib.DEFLATED, 31, 8)
    return compressor.compress(data) + compressor.flush()


def digest_matches(recorded: str, data: bytes, content_type: Any = None) -> bool:
    """Whether ``recorded`` is a digest of ``data`` (see the module's rules); a digest that is
    not ``md5-…`` is not compared (it matches)."""
    if not recorded.startswith(MD5_PREFIX):
        return True
    if md5_digest(data) == recorded:
        return True
    if _compressible(content_type):
        levels = [COUCHDB_LEVEL, *(level for level in range(1, 10) if level != COUCHDB_LEVEL)]
        return any(md5_digest(_gzipped(data, level)) == recorded for level in levels)
    return False


def damaged_attachments(doc: Mapping[str, Any], label: str = "") -> list[DamagedAttachment]:
    """The attachments of ``doc`` carrying data whose bytes do not match their recorded digest.
    Stubs, attachments without a digest and data that is not base64 (which the import or the
    store refuses on its own) are not listed."""
    attachments = doc.get("_attachments")
    if not isinstance(attachments, Mapping):
        return []
    damaged = []
    for name, att in attachments.items():
        if not isinstance(att, Mapping):
            continue
        recorded, data = att.get("digest"), att.get("data")
        if not isinstance(recorded, str) or not isinstance(data, str):
            continue
        try:
            raw = base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError):
            continue
        if not digest_matches(recorded, raw, att.get("content_type")):
            damaged.append(DamagedAttachment(str(doc.get("_id")), str(name), recorded, md5_digest(raw), label))
    return damaged


def listing(damaged: Iterable[DamagedAttachment]) -> list[str]:
    """One line per damaged attachment (at most :data:`LISTED`, then how many more)."""
    items = list(damaged)
    lines = [f"  {item.describe()}" for item in items[:LISTED]]
    if len(items) > LISTED:
        lines.append(f"  ... and {len(items) - LISTED} more")
    return lines


class DamagedAttachmentsError(StoryloomError):
    """A backup holds attachments whose bytes do not match their recorded digest; nothing was
    imported or restored. ``damaged`` lists them; the import or restore with
    ``accept_damaged=True`` keeps them as they are."""

    code = "damaged_attachments"
    fixes = ("accept_damaged",)

    def __init__(self, source: str, damaged: list[DamagedAttachment], *, verb: str = "import") -> None:
        self.source = source
        self.damaged = list(damaged)
        one = len(self.damaged) == 1
        them = "it" if one else "them"
        done = verb + ("d" if verb.endswith("e") else "ed")
        lines = [
            f"{source}: {len(self.damaged)} attachment{'' if one else 's'} of the backup "
            f"{'does' if one else 'do'} not match the digest recorded with {them} (the bytes were "
            f"changed after the backup was made), so nothing was {done}:",
            *listing(self.damaged),
        ]
        super().__init__("\n".join(lines), fix=Fix("accept_damaged", verb=verb, count=len(self.damaged)))

    def in_short(self) -> str:
        """How many, and the first, in one sentence (for a banner): ``2 attachments of
        b.json do not match the digest recorded with them (first: attachment …)``."""
        one = len(self.damaged) == 1
        return (f"{len(self.damaged)} attachment{'' if one else 's'} of {PurePath(self.source).name} "
                f"{'does' if one else 'do'} not match the digest recorded with {'it' if one else 'them'} "
                f"(first: {self.damaged[0].where()})")


def damaged_warnings(damaged: Iterable[DamagedAttachment]) -> list[str]:
    """The warnings of an import or restore that accepted damaged attachments: one each."""
    return [
        f"{item.where()} does not match the digest recorded with it ({item.recorded}); kept as it is, "
        f"with the digest of its bytes, {item.actual}"
        for item in damaged
    ]
