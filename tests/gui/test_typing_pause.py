"""A worker's check gives way while the writer types (storyloom.gui.typing_pause), on a clock the
test moves: no sleeping, no timing."""

from __future__ import annotations

from storyloom.gui.typing_pause import POLL_S, QUIET_S, TypingPause


class Clock:
    """A clock that moves only when the code under test sleeps, with edits at given times."""

    def __init__(self, pause: TypingPause | None = None) -> None:
        self.now = 100.0
        self.slept: list[float] = []
        self.edits: list[float] = []
        self.pause = pause

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds
        while self.edits and self.edits[0] <= self.now and self.pause is not None:
            self.edits.pop(0)
            self.pause.typed()


def test_with_nobody_typing_a_slice_only_yields() -> None:
    clock = Clock()
    pause = TypingPause(clock, clock.sleep)
    pause.give_way()
    assert len(clock.slept) == 1 and clock.slept[0] < POLL_S


def test_the_check_waits_while_edits_arrive_and_goes_on_once_the_writer_pauses() -> None:
    clock = Clock()
    pause = TypingPause(clock, clock.sleep)
    clock.pause = pause
    pause.typed()  # an edit now, then one every 0.1 s for a second
    clock.edits = [clock.now + 0.1 * k for k in range(1, 11)]
    last_edit = clock.edits[-1]
    pause.give_way()
    assert not clock.edits  # it waited through every edit
    assert last_edit + QUIET_S <= clock.now <= last_edit + QUIET_S + POLL_S + 1e-9
    assert not pause.typing()


def test_an_edit_long_ago_does_not_hold_the_check() -> None:
    clock = Clock()
    pause = TypingPause(clock, clock.sleep)
    pause.typed()
    clock.now += QUIET_S
    pause.give_way()
    assert len(clock.slept) == 1
