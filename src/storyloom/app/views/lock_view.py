"""How locks read in the app: a stable colour per person, "locked by X since T", what an open
editor does with its document's lock (read-only with a banner, a lock button, the hint that the
first edit takes the lock), the rows of the "My locks" dashboard and the words of a settled
provisional lock. Qt-free: the desktop app's widgets show what these functions say.

The rules themselves (who may write, what a lock is) are :mod:`storyloom.project.locks` and
:class:`storyloom.app.locks.LockService`; this module only presents them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from typing import Any

from storyloom.app.locks import LockNotice
from storyloom.project import LOCK_FIELDS, BrokenLock, LockInfo, broken_lock, lock_info

#: One colour per person, readable on the light and the dark theme alike.
PERSON_COLORS: tuple[str, ...] = (
    "#d9534f", "#e07833", "#b88a1b", "#2a9a5c", "#1fa394",
    "#2f97cf", "#5457d6", "#8e62d9", "#c2559b", "#7c8c2a",
)


def person_color(name: str) -> str:
    """The colour of ``name``: the same on every machine and every run (a hash of the name,
    not Python's per-process ``hash``)."""
    digest = hashlib.sha1(name.strip().casefold().encode("utf-8")).digest()
    return PERSON_COLORS[int.from_bytes(digest[:4], "big") % len(PERSON_COLORS)]


def parse_time(value: object) -> datetime | None:
    """An ISO-8601 time as documents store it (``...Z``), or None."""
    if not isinstance(value, str) or not value:
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def when_text(value: object, *, now: datetime | None = None, tz: tzinfo | None = None) -> str:
    """A time for people, in local time (``tz``; None: the machine's): ``14:02`` today,
    ``25 Nov 14:02`` another day of this year, ``25 Nov 2024 14:02`` before; the text as
    stored when it is not a time, ``""`` when there is none."""
    moment = parse_time(value) if not isinstance(value, datetime) else value
    if moment is None:
        return value if isinstance(value, str) else ""
    local = moment.astimezone(tz)
    today = (now or datetime.now(UTC)).astimezone(tz)
    if local.date() == today.date():
        return local.strftime("%H:%M")
    if local.year == today.year:
        return f"{local.day} {local.strftime('%b %H:%M')}"
    return f"{local.day} {local.strftime('%b %Y %H:%M')}"


def _who(holder: str, me: str) -> str:
    return "you" if holder == me else holder


def lock_tooltip(info: LockInfo, me: str, *, now: datetime | None = None, tz: tzinfo | None = None) -> str:
    """``locked by X since T`` (``you`` for the holder here), and what provisional means."""
    since = when_text(info.since, now=now, tz=tz)
    text = f"locked by {_who(info.holder, me)}" + (f" since {since}" if since else "")
    if info.provisional:
        text += " (provisional: the server has not confirmed it yet)"
    return text


@dataclass(frozen=True)
class LockBadge:
    """A lock as a tree row or a tab shows it: the holder's name in their colour."""

    doc_id: str
    holder: str
    mine: bool
    provisional: bool
    color: str
    label: str
    tooltip: str


def lock_badge(info: LockInfo | None, me: str, *, now: datetime | None = None,
               tz: tzinfo | None = None) -> LockBadge | None:
    """The badge of ``info`` (None: the document is free)."""
    if info is None:
        return None
    mine = info.holder == me
    return LockBadge(info.doc_id, info.holder, mine, info.provisional, person_color(info.holder),
                     "you" if mine else info.holder, lock_tooltip(info, me, now=now, tz=tz))


# ---------------------------------------------------------------------------------- the editor
@dataclass(frozen=True)
class EditorLock:
    """What an open editor shows for its document's lock.

    ``mode`` is ``free``, ``mine`` or ``theirs``; ``read_only`` when someone else holds it;
    ``button`` and ``button_tip`` are the lock button's text and tooltip; ``banner`` (with
    ``banner_kind``) the strip over the editor, or None."""

    mode: str
    read_only: bool
    holder: str | None
    color: str | None
    button: str
    button_tip: str
    banner: str | None = None
    banner_kind: str = "info"
    #: The lock held here is not confirmed by the server yet.
    provisional: bool = False


def editor_lock(doc: dict[str, Any] | None, me: str, *, require_lock: bool = False, provisional: bool = False,
                now: datetime | None = None, tz: tzinfo | None = None) -> EditorLock:
    """The lock state an editor of ``doc`` shows to ``me`` (the lock holder's name here).
    ``require_lock``: the project requires a lock to edit (the first edit takes it);
    ``provisional``: the lock held here is not yet confirmed by the server."""
    info = lock_info(doc)
    if info is not None and info.holder != me:
        since = when_text(info.since, now=now, tz=tz)
        at = f" since {since}" if since else ""
        return EditorLock(
            "theirs", True, info.holder, person_color(info.holder), info.holder,
            f"Locked by {info.holder}{at}. Break the lock only if it is stale (the break is recorded).",
            f"{info.holder} is editing this document (locked{at}). It is read-only here until "
            f"{info.holder} unlocks it; if the lock is stale you can break it.",
            "warning",
        )
    if info is not None:
        since = when_text(info.since, now=now, tz=tz)
        tip = f"You hold the lock{' since ' + since if since else ''}: nobody else can edit this document. " \
              "F2 unlocks it."
        if provisional:
            tip += " It is provisional until the server confirms it (taken offline, or by your first edit)."
        return EditorLock("mine", False, me, person_color(me), "Locked by you", tip, provisional=provisional)
    tip = "Lock this document so nobody else edits it while you do (F2)."
    if require_lock:
        tip += " This project requires a lock to edit: your first edit takes it."
    banner = None
    record = broken_lock(doc)
    if record is not None and record.holder == me:
        at = when_text(record.at, now=now, tz=tz)
        banner = (f"Your lock was broken by {record.by}{' at ' + at if at else ''}. Lock the document again "
                  "before you go on editing if you still need it.")
    return EditorLock("free", False, None, None, "Lock", tip, banner, "warning" if banner else "info")


def lock_only_change(old: dict[str, Any] | None, new: dict[str, Any] | None) -> bool:
    """Whether ``new`` differs from ``old`` only in its lock (a lock, unlock or break: the
    editor keeps what is typed and moves to the new revision)."""
    if not old or not new or old.get("_deleted") or new.get("_deleted"):
        return False

    def rest(doc: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in doc.items() if k not in LOCK_FIELDS and k not in ("_rev", "_revisions")}

    return rest(old) == rest(new)


# ---------------------------------------------------------------------------------- every lock
class LockTable:
    """Who holds which lock in the open project, kept current from document changes (the
    tree and the tabs read it). Not thread-safe: the GUI thread owns it."""

    def __init__(self) -> None:
        self._locks: dict[str, LockInfo] = {}

    def reset(self, locks: Iterable[LockInfo]) -> None:
        self._locks = {info.doc_id: info for info in locks}

    def apply(self, doc_id: str, doc: dict[str, Any] | None, *, provisional: bool = False) -> bool:
        """Follow ``doc`` (its current revision; None when deleted). True when the lock changed."""
        info = lock_info(doc)
        if info is not None:
            info = LockInfo(doc_id, info.holder, info.since, provisional)
        before = self._locks.get(doc_id)
        if info is None:
            self._locks.pop(doc_id, None)
        else:
            self._locks[doc_id] = info
        return before != info

    def get(self, doc_id: str) -> LockInfo | None:
        return self._locks.get(doc_id)

    def locks(self) -> list[LockInfo]:
        return sorted(self._locks.values(), key=lambda info: (info.holder, info.doc_id))

    def __len__(self) -> int:
        return len(self._locks)


@dataclass(frozen=True)
class LockRow:
    """One row of the "My locks" dashboard."""

    doc_id: str
    name: str
    kind: str
    holder: str
    since: str
    provisional: bool
    color: str
    tooltip: str


def lock_rows(locks: Iterable[LockInfo], me: str, describe: Callable[[str], tuple[str, str]], *,
              now: datetime | None = None, tz: tzinfo | None = None) -> tuple[list[LockRow], list[LockRow]]:
    """The dashboard's rows: (my locks, others' locks), each by name. ``describe(doc_id)``
    gives a document's name and kind."""
    mine: list[LockRow] = []
    others: list[LockRow] = []
    for info in locks:
        name, kind = describe(info.doc_id)
        row = LockRow(info.doc_id, name, kind, info.holder, when_text(info.since, now=now, tz=tz),
                      info.provisional, person_color(info.holder), lock_tooltip(info, me, now=now, tz=tz))
        (mine if info.holder == me else others).append(row)
    mine.sort(key=lambda row: (row.name.casefold(), row.doc_id))
    others.sort(key=lambda row: (row.holder.casefold(), row.name.casefold(), row.doc_id))
    return mine, others


def break_question(holder: str, name: str, since: str | None, *, now: datetime | None = None,
                   tz: tzinfo | None = None) -> str:
    """What the confirmation of a break says."""
    at = when_text(since, now=now, tz=tz)
    held = f" (held since {at})" if at else ""
    return (f"Break {holder}'s lock on “{name}”{held}?\n\n"
            f"The break is recorded in the document: who broke whose lock, and when. {holder} will see it. "
            f"Edits {holder} has not synced yet are not lost: they come back as a conflict to merge.")


def broken_text(record: BrokenLock, me: str, name: str, *, now: datetime | None = None,
                tz: tzinfo | None = None) -> str:
    """A recorded break, as the dashboard lists it."""
    at = when_text(record.at, now=now, tz=tz)
    when = f" at {at}" if at else ""
    if record.holder == me:
        return f"Your lock on “{name}” was broken by {_who(record.by, me)}{when}"
    if record.by == me:
        return f"You broke {record.holder}'s lock on “{name}”{when}"
    return f"{record.by} broke {record.holder}'s lock on “{name}”{when}"


# ---------------------------------------------------------------------------------- notices
@dataclass(frozen=True)
class NoticeView:
    """A settled provisional lock, in words: ``tone`` is ``danger`` (lost), ``success``
    (confirmed) or ``muted`` (released)."""

    doc_id: str
    tone: str
    title: str
    text: str


def notice_view(notice: LockNotice, name: str, *, now: datetime | None = None, tz: tzinfo | None = None) -> NoticeView:
    """What the app says when a provisional lock is settled, and what happened to the edits."""
    if notice.outcome == "lost":
        since = when_text(notice.since, now=now, tz=tz)
        held = f" (locked since {since})" if since else ""
        kept = ("Your edits are kept as a conflict revision of the document: merge them when "
                f"{notice.holder} is done.") if notice.kept_rev else \
            "Your edits were merged, or are listed as a conflict of the document to merge."
        return NoticeView(notice.doc_id, "danger", f"Lock lost: “{name}”",
                          f"Your lock on “{name}”, taken while offline, was lost: {notice.holder} holds it{held}. "
                          + kept)
    if notice.outcome == "confirmed":
        return NoticeView(notice.doc_id, "success", f"Lock confirmed: “{name}”",
                          f"The server confirmed your lock on “{name}”.")
    return NoticeView(notice.doc_id, "muted", f"Lock released: “{name}”",
                      f"Your provisional lock on “{name}” was released before the server saw it.")


def broken_view(record: BrokenLock, name: str, *, now: datetime | None = None, tz: tzinfo | None = None) -> NoticeView:
    """The app's words for a break of our lock (the sync activity, the editor's banner)."""
    at = when_text(record.at, now=now, tz=tz)
    since = when_text(record.since, now=now, tz=tz)
    shown = f"“{name}”" if name else f"“{record.doc_id}”"
    return NoticeView(record.doc_id, "warning", f"Lock broken: {shown}",
                      f"Your lock on {shown}{' (held since ' + since + ')' if since else ''} was broken by "
                      f"{record.by}{' at ' + at if at else ''}. Lock it again before you go on editing; "
                      "edits you had not synced come back as a conflict to merge.")


def broken_banner(record: BrokenLock, *, now: datetime | None = None, tz: tzinfo | None = None) -> str:
    """What an open editor of the document says (the banner the editor shows for a break
    recorded in its document, with since when the lock was held)."""
    at = when_text(record.at, now=now, tz=tz)
    since = when_text(record.since, now=now, tz=tz)
    return (f"Your lock was broken by {record.by}{' at ' + at if at else ''}"
            f"{' (held since ' + since + ')' if since else ''}. Lock the document again before you go on "
            "editing if you still need it; edits you had not synced come back as a conflict to merge.")
