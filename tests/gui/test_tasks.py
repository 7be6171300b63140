"""Task.release(): the one teardown of a finished worker task (wait for its thread, then delete
it on the GUI thread), which never deletes a thread still running."""

from __future__ import annotations

import threading

import shiboken6
from PySide6.QtCore import QCoreApplication, QEvent

from storyloom.gui.tasks import Task


def _deleted_later(task: Task) -> bool:
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)
    return not shiboken6.isValid(task)


def test_release_waits_for_the_thread_and_deletes_the_task(qtbot) -> None:  # type: ignore[no-untyped-def]
    results: list[object] = []
    task = Task(lambda: 42, "answer")
    task.succeeded.connect(results.append)
    with qtbot.waitSignal(task.succeeded):
        task.start()
    assert task.release()
    assert task.isFinished()
    qtbot.waitUntil(lambda: _deleted_later(task))
    assert results == [42]


def test_a_task_never_started_is_released_too(qtbot) -> None:  # type: ignore[no-untyped-def]
    task = Task(lambda: None, "idle")
    assert task.release()
    qtbot.waitUntil(lambda: _deleted_later(task))


def test_a_task_still_running_past_the_timeout_is_deleted_when_it_ends(qtbot) -> None:  # type: ignore[no-untyped-def]
    go = threading.Event()
    task = Task(lambda: go.wait(10), "waiting")
    task.start()
    assert not task.release(timeout_ms=50)  # a running thread is never deleted
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)
    assert shiboken6.isValid(task) and task.isRunning()
    go.set()
    qtbot.waitUntil(lambda: _deleted_later(task), timeout=5000)
