"""What the app shows of sync: the status bar's few words (:func:`status_view`), the sync
panel's headline and problem (:func:`panel_view`) and its recent activity
(:class:`SyncActivity`), all from the session's :class:`~storyloom.app.sync_state.SyncState`
snapshots, document changes and settled locks. Qt-free; times are epoch seconds shown in local
time (``tz`` None: the machine's zone).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo

from storyloom.app.attachments import human_size
from storyloom.app.sync_state import SyncState
from storyloom.app.views.explain import fix_words
from storyloom.app.views.lock_view import NoticeView, when_text
from storyloom.words import counted

#: How many entries the activity keeps (newest first).
ACTIVITY_LIMIT = 50
#: Documents received within this many seconds of the newest "received" line join it.
RECEIVED_WINDOW = 10.0

_ICONS = {
    "off": "ph.cloud-slash",
    "connecting": "ph.cloud",
    "syncing": "ph.arrows-clockwise",
    "idle": "ph.cloud-check",
    "offline": "ph.wifi-slash",
    "error": "ph.warning-circle",
}
_TONES = {"off": "muted", "connecting": "muted", "syncing": "accent", "idle": "success", "offline": "warning",
          "error": "danger"}
_HEADLINES = {"off": "Sync is off", "connecting": "Connecting…", "syncing": "Syncing", "idle": "Up to date",
              "offline": "Offline", "error": "Sync needs you"}


def _moment(epoch: float | None) -> datetime | None:
    return None if epoch is None else datetime.fromtimestamp(epoch, UTC)


def clock_text(epoch: float | None, now: float, tz: tzinfo | None = None) -> str:
    """An epoch time for people (``14:02`` today, ``25 Nov 14:02`` another day)."""
    moment = _moment(epoch)
    return "" if moment is None else when_text(moment, now=_moment(now), tz=tz)


def seconds_text(seconds: float) -> str:
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes, rest = divmod(seconds, 60)
    return f"{minutes} min" if not rest or minutes >= 10 else f"{minutes} min {rest} s"


def pending_text(count: int) -> str:
    return f"{counted(count, 'local change')} not sent yet"


def progress_text(state: SyncState) -> str:
    """``12 of 40 received``, ``3 sent``, or ``""``."""
    progress = state.progress
    if progress is None or not progress.done:
        return ""
    verb = "received" if progress.direction == "pull" else "sent"
    if progress.left:
        return f"{progress.done} of {progress.done + progress.left} {verb}"
    return f"{progress.done} {verb}"


def _remote_shown(state: SyncState) -> bool:
    return state.kind != "off" or state.remote is not None


@dataclass(frozen=True)
class StatusView:
    """The status bar's sync item: ``text``, ``tooltip``, an icon (qtawesome name) and a
    ``tone`` (``muted``, ``accent``, ``success``, ``warning``, ``danger``)."""

    kind: str
    text: str
    tooltip: str
    icon: str
    tone: str


def status_view(state: SyncState, now: float, tz: tzinfo | None = None) -> StatusView:
    """The few words of the status bar for ``state`` at ``now``: the state, the last sync or
    the next retry, and the local changes not yet pushed."""
    kind = state.kind
    if kind == "off":
        text = "Sync off"
    elif kind == "connecting":
        text = "Connecting…"
    elif kind == "syncing":
        progress = progress_text(state)
        text = f"Syncing {progress}" if progress else "Syncing…"
    elif kind == "idle":
        last = clock_text(state.last_sync, now, tz)
        text = f"Up to date · {last}" if last else "Up to date"
    elif kind == "offline":
        text = "Offline"
        if state.next_retry is not None:
            text += f" · retry in {seconds_text(state.next_retry - now)}"
    else:
        text = "Sync error"
    if state.pending and _remote_shown(state) and kind != "off":
        text += f" · {state.pending} unsent"
    lines = [_sentence(state.detail) or _HEADLINES.get(kind, kind)]
    if state.cause and state.cause not in (state.detail or ""):
        lines.append(_sentence(state.cause))
    if state.fix:
        lines.append("Fix: " + _fix_text(state))
    if state.remote:
        lines.append(f"Server: {state.remote}")
    lines.append("Click for the sync panel.")
    return StatusView(kind, text, "\n".join(lines), _ICONS.get(kind, "ph.cloud"), _TONES.get(kind, "muted"))


def _sentence(text: str | None) -> str:
    text = (text or "").strip()
    return text[:1].upper() + text[1:] if text else ""


def _fix_text(state: SyncState) -> str:
    """The state's fix in the app's words ("" when there is none)."""
    return _sentence(fix_words(state.fix)) if state.fix is not None else ""


@dataclass(frozen=True)
class TooLargeRow:
    doc_id: str
    name: str
    size: str
    setting: str


@dataclass(frozen=True)
class PanelView:
    """The sync panel's top: a headline, the lines under it, the problem (cause and fix, and
    each document too large for the server) and whether "Sync now" helps."""

    kind: str
    headline: str
    lines: tuple[str, ...]
    tone: str
    icon: str
    cause: str | None
    fix: str | None
    too_large: tuple[TooLargeRow, ...]
    progress: tuple[int, int] | None  # (done, total) when the total is known


def panel_view(state: SyncState, now: float, names: dict[str, str] | None = None,
               tz: tzinfo | None = None) -> PanelView:
    """The sync panel's summary of ``state``. ``names`` maps document ids to names (a 413
    names the document by its name, not its id)."""
    names = names or {}
    kind = state.kind
    lines: list[str] = []
    if kind == "off":
        lines.append(_sentence(state.detail) or "Sync is off.")
    elif kind == "idle":
        last = clock_text(state.last_sync, now, tz)
        lines.append(f"Last synced at {last}." if last else "Everything is on the server.")
    elif kind == "syncing":
        moving = progress_text(state)
        lines.append(f"Documents are moving: {moving}." if moving else "Documents are moving.")
    elif kind == "offline":
        retry = "" if state.next_retry is None else \
            f" Next try in {seconds_text(state.next_retry - now)} ({clock_text(state.next_retry, now, tz)})."
        lines.append("The server cannot be reached; your edits are kept here and sent when it answers." + retry)
    elif kind == "connecting":
        lines.append("Reaching the server…")
    if state.pending and kind != "off":
        lines.append(_sentence(pending_text(state.pending)) + ".")
    elif kind in ("idle", "syncing"):
        lines.append("Every local change is on the server.")
    if state.remote:
        lines.append(f"Server: {state.remote}" + (" (live)" if state.live else ""))
    rows = tuple(TooLargeRow(doc.doc_id, names.get(doc.doc_id, doc.doc_id),
                             human_size(doc.size) if doc.size is not None else "size unknown", doc.setting)
                 for doc in state.too_large)
    progress: tuple[int, int] | None = None
    if kind == "syncing" and state.progress is not None and state.progress.left:
        progress = (state.progress.done, state.progress.done + state.progress.left)
    cause: str | None = _sentence(state.cause) if kind in ("error", "offline") and state.cause else None
    if rows:
        first = rows[0]
        more = f" (and {len(rows) - 1} more)" if len(rows) > 1 else ""
        cause = f"“{first.name}” ({first.size}) is too large for the server{more}; everything else syncs."
    return PanelView(kind, _HEADLINES.get(kind, kind), tuple(lines), _TONES.get(kind, "muted"),
                     _ICONS.get(kind, "ph.cloud"), cause, _fix_text(state) or None, rows, progress)


# ---------------------------------------------------------------------------------- activity
@dataclass(frozen=True)
class ActivityEntry:
    """One line of the recent activity: when, a tone (as :class:`StatusView`) and the words."""

    at: float
    tone: str
    text: str
    doc_id: str | None = None
    #: More for a tooltip (the full cause of a failure), or None.
    detail: str | None = None


class SyncActivity:
    """The recent activity of sync, newest first: connecting, up to date, offline and back,
    errors, documents received from teammates, local changes sent, settled locks."""

    def __init__(self, limit: int = ACTIVITY_LIMIT) -> None:
        self._entries: deque[ActivityEntry] = deque(maxlen=limit)
        self._received: list[str] = []  # the names of the newest entry, while it is a "received" one
        self._last: SyncState | None = None
        self._troubled = False  # offline or in error since the last "up to date"

    def entries(self) -> list[ActivityEntry]:
        return list(reversed(self._entries))

    def add(self, at: float, tone: str, text: str, doc_id: str | None = None,
            detail: str | None = None) -> ActivityEntry:
        entry = ActivityEntry(at, tone, text, doc_id, detail)
        self._entries.append(entry)
        self._received = []
        return entry

    def state(self, state: SyncState, at: float) -> ActivityEntry | None:
        """Follow a new state; an entry when something worth a line happened."""
        last, self._last = self._last, state
        before = last.kind if last is not None else None
        kind = state.kind
        if kind == before:
            if kind == "error" and last is not None and state.cause != last.cause:
                return self.add(at, "danger", f"Sync error: {_sentence(state.cause)}")
            if kind == "idle" and last is not None and last.pending and not state.pending:
                return self.add(at, "success", "Every local change is on the server")
            return None
        if kind == "connecting":
            return self.add(at, "muted", f"Connecting to {state.remote}" if state.remote else "Connecting")
        if kind == "idle":
            troubled, self._troubled = self._troubled, False
            if troubled:
                return self.add(at, "success", "Back online: up to date")
            if before in (None, "off", "connecting"):
                return self.add(at, "success", "Connected: up to date")
            if last is not None and last.pending and not state.pending:
                return self.add(at, "success", "Every local change is on the server")
            return None
        if kind in ("offline", "error"):
            self._troubled = True
        if kind == "offline":
            return self.add(at, "warning", "Offline: the server cannot be reached; edits wait here",
                            detail=_sentence(state.cause) or None)
        if kind == "error":
            return self.add(at, "danger", f"Sync error: {_sentence(state.cause) or state.detail}")
        if kind == "off" and before is not None:
            return self.add(at, "muted", _sentence(state.detail) or "Sync stopped")
        return None

    def received(self, names: Iterable[str], at: float) -> ActivityEntry | None:
        """Documents a pull brought in (teammates' edits), by name."""
        new = [name for name in dict.fromkeys(names) if name]
        if not new:
            return None
        last = self._entries[-1] if self._entries else None
        earlier = self._received if last is not None and at - last.at <= RECEIVED_WINDOW else []
        if earlier:  # one pull arrives in several batches: one line
            self._entries.pop()
        shown = list(dict.fromkeys([*earlier, *new]))
        if len(shown) == 1:
            text = f"Received “{shown[0]}”"
        else:
            listed = ", ".join(f"“{name}”" for name in shown[:3])
            more = f" and {len(shown) - 3} more" if len(shown) > 3 else ""
            text = f"Received {len(shown)} changes: {listed}{more}"
        entry = self.add(at, "accent", text, detail="\n".join(shown) if len(shown) > 3 else None)
        self._received = shown
        return entry

    def notice(self, view: NoticeView, at: float) -> ActivityEntry:
        """A settled provisional lock."""
        return self.add(at, view.tone, view.text, view.doc_id)
