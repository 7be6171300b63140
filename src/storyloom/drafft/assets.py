"""Attachments of a Drafft backup: decoded, stored once, and actors' expression images turned
into Attachment documents."""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Callable, MutableMapping
from typing import Any

from storyloom.drafft.report import (
    HOTKEYS_COLLECTION,
    Created,
    DrafftImportError,
    ImportReport,
    Skipped,
    note,
    stable_id,
    type_label,
)
from storyloom.project import (
    ATTACHMENT_TYPE,
    FOLDER_TYPE,
    DamagedAttachment,
    Spool,
    digest_matches,
    md5_digest,
    new_document,
    permalink,
    permalink_target,
)


def convert_attachments(doc: dict[str, Any], notes: list[str], report: ImportReport) -> None:
    attachments = doc.get("_attachments")
    if attachments is None:
        return
    if not isinstance(attachments, dict):
        report.warnings.append(f"{doc['_id']}: _attachments is not an object; dropped")
        del doc["_attachments"]
        return
    kept: dict[str, Any] = {}
    for att_name, att in attachments.items():
        if not isinstance(att, dict) or not isinstance(att.get("data"), str):
            report.warnings.append(
                f"{doc['_id']}: attachment {att_name!r} has no data in the backup (a dump made without "
                "attachments); it cannot be imported"
            )
            report.skipped.append(
                Skipped(f"{doc['_id']}/{att_name}", "attachment",
                        "no data in the backup (a dump made without attachments)", lost=True)
            )
            continue
        try:
            raw = base64.b64decode(att["data"], validate=True)
        except (binascii.Error, ValueError) as exc:
            # Kept as it is, the store would refuse it; dropped, the image would be lost.
            raise DrafftImportError(
                f"{report.source}: document {doc['_id']!r} ({type_label(doc)}): attachment {att_name!r} "
                f"is not valid base64 ({exc}); the attachment cannot be imported, so nothing was imported"
            ) from None
        recorded = att.get("digest")
        if isinstance(recorded, str) and not digest_matches(recorded, raw, att.get("content_type")):
            label = type_label(doc) + (f" “{doc['name']}”" if isinstance(doc.get("name"), str) else "")
            report.damaged_attachments.append(DamagedAttachment(doc["_id"], att_name, recorded, md5_digest(raw), label))
        report.attachments += 1
        report.attachment_bytes += len(raw)
        content_type = att.get("content_type")
        if not isinstance(content_type, str) or not content_type:
            content_type = doc.get("mimeType") if isinstance(doc.get("mimeType"), str) else "application/octet-stream"
            notes.append("attachment content_type filled from mimeType")
        kept[att_name] = {"content_type": content_type, "data": att["data"]}
    if kept:
        doc["_attachments"] = kept
    else:
        del doc["_attachments"]


def image_key(att: Any) -> tuple[str, str] | None:
    """What makes two images the same: the SHA-256 of the bytes and the content type."""
    data = att.get("data") if isinstance(att, dict) else None
    if not isinstance(data, str):
        return None
    return hashlib.sha256(base64.b64decode(data)).hexdigest(), str(att.get("content_type") or "")


def extract_expressions(docs: Spool, report: ImportReport, images: dict[tuple[str, str], str],
                        actors: list[str], keep: Callable[[dict[str, Any]], None]) -> None:
    """v1 actor expression images (``_attachments.expression_<name>``) -> Attachment documents
    listed in ``content.expressions`` (unless the actor already lists that expression).

    ``images`` maps each image of the backup's Attachment documents (:func:`image_key`) to the
    first such document, ``actors`` lists the actors holding ``expression_`` attachments (both
    in the backup's order); ``keep`` takes each document this creates. An image is stored once:
    when its bytes (and content type) are those of an Attachment document of the backup, or of
    one this import already created, the expression points at that document instead of a copy
    (``report.shared_images`` says which)."""
    for actor_id in actors:
        actor = docs.get(actor_id)
        attachments = actor.get("_attachments") or {}
        content = actor["content"]
        listed = {e.get("name") for e in content.get("expressions", []) if isinstance(e, dict)}
        moved = 0
        for att_name in list(attachments):
            if not att_name.startswith("expression_"):
                continue
            expression = att_name[len("expression_") :]
            if expression in listed:
                continue
            att = attachments.pop(att_name)
            actor_name = str(actor.get("name") or "actor")
            key = image_key(att)
            existing = images.get(key) if key is not None else None
            if existing is not None:
                image = docs.get(existing)
                link = image.get("permalink") if permalink_target(image.get("permalink", "")) == existing else None
                content["expressions"].append(
                    {"name": expression, "permalink": link or permalink(existing), "_id": existing}
                )
                report.attachment_moves[(actor["_id"], att_name)] = (existing, "blob")
                report.shared_images.append(
                    f"expression {expression!r} of actor {actor_name!r} (its attachment {att_name}) uses "
                    f"{existing} ({image.get('name')!r}), which holds the same image"
                )
            else:
                att_id = stable_id("expression", actor["_id"], att_name)
                image = new_document(
                    ATTACHMENT_TYPE,
                    f"{actor_name.lower()}_expression_{expression}",
                    doc_id=att_id,
                    mimeType=att["content_type"],
                    permalink=permalink(att_id),
                    _attachments={"blob": att},
                )
                for date_key in ("created", "modified"):
                    if actor.get(date_key):
                        image[date_key] = actor[date_key]
                keep(image)
                if key is not None:
                    images[key] = att_id
                content["expressions"].append({"name": expression, "permalink": image["permalink"], "_id": att_id})
                report.attachment_moves[(actor["_id"], att_name)] = (att_id, "blob")
                report.created.append(
                    Created(
                        att_id,
                        ATTACHMENT_TYPE,
                        f"expression {expression!r} of actor {actor_name!r} (was its attachment {att_name})",
                    )
                )
            listed.add(expression)
            moved += 1
        if moved:
            if not attachments:
                actor.pop("_attachments", None)
            note(report, actor["_id"], "expression attachments -> Attachment documents in content.expressions")
            docs.put(actor)


def group_hotkeys(docs: MutableMapping[str, dict[str, Any]], report: ImportReport,
                  keep: Callable[[dict[str, Any]], None]) -> None:
    """The converted Hotkeys documents (``docs``: their summaries, each set again once changed)
    go into one Misc folder, which ``keep`` takes."""
    hotkeys = [
        d for d in docs.values() if d.get("originalCollection") == HOTKEYS_COLLECTION and d.get("type") == "Misc"
    ]
    if not hotkeys:
        return
    folder_id = stable_id("hotkeys-folder")
    folder = new_document(FOLDER_TYPE, "Hotkeys", collection="Misc", doc_id=folder_id)
    keep(folder)
    for doc in hotkeys:
        doc["parent"] = folder_id
        docs[doc["_id"]] = doc
    report.created.append(
        Created(folder_id, FOLDER_TYPE, f"Misc folder 'Hotkeys' holding the {len(hotkeys)} converted Hotkeys documents")
    )
