"""What the app shows of sync (storyloom.app.views.sync_activity): the status bar's words for each
state, the panel's summary (a 413 names the document, its size and the setting to raise) and
the recent activity."""

from __future__ import annotations

from datetime import UTC, datetime

from storyloom.app.attachments import human_size
from storyloom.app.sync_state import PROXY_SETTING, SyncProgress, SyncState, TooLargeDocument
from storyloom.app.views.lock_view import NoticeView
from storyloom.app.views.sync_activity import SyncActivity, panel_view, seconds_text, status_view
from storyloom.errors import Fix, advice

NOW = datetime(2025, 11, 25, 16, 0, tzinfo=UTC).timestamp()
REMOTE = "http://127.0.0.1:5984/app_v2_garden"


def test_each_state_in_a_few_words() -> None:
    assert status_view(SyncState(), NOW, UTC).text == "Sync off"
    assert status_view(SyncState(kind="connecting", remote=REMOTE), NOW, UTC).text == "Connecting…"
    syncing = SyncState(kind="syncing", progress=SyncProgress("pull", 12, 28), remote=REMOTE)
    assert status_view(syncing, NOW, UTC).text == "Syncing 12 of 40 received"
    assert status_view(SyncState(kind="syncing", remote=REMOTE), NOW, UTC).text == "Syncing…"
    idle = SyncState(kind="idle", last_sync=NOW - 120, remote=REMOTE)
    view = status_view(idle, NOW, UTC)
    assert (view.text, view.tone, view.icon) == ("Up to date · 15:58", "success", "ph.cloud-check")
    offline = SyncState(kind="offline", next_retry=NOW + 12.4, cause="connection refused", remote=REMOTE,
                        pending=3, detail="offline; retrying in 12 s")
    view = status_view(offline, NOW, UTC)
    assert view.text == "Offline · retry in 12 s · 3 unsent"
    assert view.tone == "warning" and "Connection refused" in view.tooltip and REMOTE in view.tooltip
    error = SyncState(kind="error", cause="the server refuses the user name or password", fix=advice("check them"),
                      detail="sync error: the server refuses the user name or password", remote=REMOTE)
    view = status_view(error, NOW, UTC)
    assert view.text == "Sync error" and view.tone == "danger" and "Fix: Check them" in view.tooltip


def test_pending_is_not_shown_when_sync_is_off() -> None:
    assert status_view(SyncState(kind="off", pending=40), NOW).text == "Sync off"
    assert status_view(SyncState(kind="idle", pending=1, remote=REMOTE), NOW, UTC).text.endswith("· 1 unsent")


def test_the_panel_names_a_document_too_large_its_size_and_the_setting() -> None:
    big = TooLargeDocument("att-1", "3-x", 3_250_000, PROXY_SETTING)
    state = SyncState(kind="error", cause="document 'att-1' (3250000 bytes) is too large for the server",
                      fix=Fix("raise_limit", setting=PROXY_SETTING, size=3_250_000), too_large=(big,), remote=REMOTE)
    view = panel_view(state, NOW, {"att-1": "Concept art"}, UTC)
    assert view.cause == "“Concept art” (3.1 MB) is too large for the server; everything else syncs."
    assert view.fix is not None and "client_max_body_size" in view.fix
    [row] = view.too_large
    assert (row.name, row.size, row.setting) == ("Concept art", "3.1 MB", PROXY_SETTING)


def test_the_panel_summary_of_offline_idle_and_syncing() -> None:
    offline = panel_view(SyncState(kind="offline", cause="connection refused", next_retry=NOW + 30, pending=2,
                                   remote=REMOTE), NOW, tz=UTC)
    assert offline.headline == "Offline" and offline.cause == "Connection refused"
    assert "Next try in 30 s (16:00)" in offline.lines[0]
    assert "2 local changes not sent yet." in offline.lines
    idle = panel_view(SyncState(kind="idle", last_sync=NOW, remote=REMOTE, live=True), NOW, tz=UTC)
    assert idle.lines == ("Last synced at 16:00.", "Every local change is on the server.", f"Server: {REMOTE} (live)")
    assert idle.cause is None
    syncing = panel_view(SyncState(kind="syncing", progress=SyncProgress("push", 5, 5)), NOW)
    assert syncing.progress == (5, 10)


def test_small_formats() -> None:
    assert [seconds_text(s) for s in (0.2, 59, 60, 75, 600)] == ["0 s", "59 s", "1 min", "1 min 15 s", "10 min"]
    # Sizes read as everywhere in the app (one formatter: storyloom.app.attachments.human_size).
    assert [human_size(s) for s in (900, 4096, 5 * 1024 * 1024)] == ["900 bytes", "4.0 KB", "5.0 MB"]


def test_activity_records_transitions_not_every_state() -> None:
    activity = SyncActivity()
    activity.state(SyncState(kind="connecting", remote=REMOTE), NOW)
    activity.state(SyncState(kind="idle", remote=REMOTE), NOW + 1)
    activity.state(SyncState(kind="idle", remote=REMOTE), NOW + 2)  # the same: no line
    activity.state(SyncState(kind="idle", pending=2, remote=REMOTE), NOW + 3)
    activity.state(SyncState(kind="idle", pending=0, remote=REMOTE), NOW + 4)
    activity.state(SyncState(kind="offline", cause="connection refused", remote=REMOTE), NOW + 5)
    activity.state(SyncState(kind="offline", cause="connection refused", remote=REMOTE), NOW + 6)
    activity.state(SyncState(kind="syncing", remote=REMOTE), NOW + 7)  # back through syncing
    activity.state(SyncState(kind="idle", remote=REMOTE), NOW + 7)
    activity.state(SyncState(kind="error", cause="the server refuses the user name"), NOW + 8)
    activity.received(["Intro", "Shield", "Intro"], NOW + 9)
    activity.received([], NOW + 10)
    activity.notice(NoticeView("s1", "danger", "Lock lost", "Your lock on “Intro” was lost"), NOW + 11)
    texts = [entry.text for entry in activity.entries()]
    assert texts == [
        "Your lock on “Intro” was lost",
        "Received 2 changes: “Intro”, “Shield”",
        "Sync error: The server refuses the user name",
        "Back online: up to date",
        "Offline: the server cannot be reached; edits wait here",
        "Every local change is on the server",
        "Connected: up to date",
        f"Connecting to {REMOTE}",
    ]
    assert activity.entries()[0].doc_id == "s1"


def test_activity_keeps_the_newest() -> None:
    activity = SyncActivity(limit=3)
    for i in range(5):
        activity.received([f"Doc {i}"], NOW + 60 * i)  # minutes apart: a line each
    assert [entry.text for entry in activity.entries()] == ["Received “Doc 4”", "Received “Doc 3”", "Received “Doc 2”"]
    many = SyncActivity()
    many.received([f"D{i}" for i in range(5)], NOW)
    assert many.entries()[0].text == "Received 5 changes: “D0”, “D1”, “D2” and 2 more"


def test_documents_received_in_several_batches_make_one_line() -> None:
    activity = SyncActivity()
    activity.received(["Intro"], NOW)
    activity.received(["Gate", "Intro"], NOW + 2)
    activity.received(["Key"], NOW + 4)
    assert [e.text for e in activity.entries()] == ["Received 3 changes: “Intro”, “Gate”, “Key”"]
    activity.add(NOW + 5, "muted", "Sync now")
    activity.received(["Well"], NOW + 6)  # another line came between: a new line
    activity.received(["Pond"], NOW + 30)  # too late to join
    assert [e.text for e in activity.entries()] == ["Received “Pond”", "Received “Well”", "Sync now",
                                                   "Received 3 changes: “Intro”, “Gate”, “Key”"]


def test_an_offline_line_keeps_the_technical_cause_for_its_tooltip() -> None:
    activity = SyncActivity()
    refused = "cannot reach http://x: [Errno 111] Connection refused"
    entry = activity.state(SyncState(kind="offline", cause=refused), NOW)
    assert entry is not None and entry.text == "Offline: the server cannot be reached; edits wait here"
    assert entry.detail == "Cannot reach http://x: [Errno 111] Connection refused"
