"""Where a window opens: on the screen, whole, centred on its project window, or where the
writer left it (remembered per machine in ``windows.json``)."""

from __future__ import annotations

from storyloom import paths
from storyloom.app.views.window_place import Rect, WindowPlaces, centred, fit, place

SCREEN = Rect(0, 0, 1600, 1000)


def _inside(rect: Rect, screen: Rect) -> bool:
    return rect.x >= screen.x and rect.y >= screen.y and rect.right <= screen.right and rect.bottom <= screen.bottom


def test_centred_on_the_window_it_belongs_to() -> None:
    main = Rect(100, 50, 1380, 900)
    rect = centred((1100, 760), main, SCREEN)
    assert rect == Rect(100 + 140, 50 + 70, 1100, 760)


def test_a_window_near_the_edge_is_pulled_onto_the_screen() -> None:
    main = Rect(900, 400, 700, 600)  # the project window in the lower right corner
    rect = place((1100, 760), main, SCREEN)
    assert _inside(rect, SCREEN) and rect.width == 1100 and rect.height == 760


def test_a_window_larger_than_the_screen_is_made_to_fit() -> None:
    small = Rect(0, 30, 1280, 690)  # without the taskbar
    rect = place((1100, 760), Rect(0, 30, 1280, 690), small)
    assert _inside(rect, small) and rect.height == 690


def test_the_place_it_was_left_wins_while_it_is_on_a_screen() -> None:
    saved = Rect(40, 60, 900, 640)
    assert place((1100, 760), Rect(0, 0, 1600, 1000), SCREEN, saved) == saved
    second = Rect(1600, 0, 1920, 1080)
    on_second = Rect(1700, 100, 900, 640)
    assert place((1100, 760), Rect(0, 0, 1600, 1000), SCREEN, on_second, [SCREEN, second]) == on_second


def test_a_place_on_a_screen_that_is_gone_opens_centred() -> None:
    gone = Rect(2000, 100, 900, 640)  # the second monitor was unplugged
    rect = place((1100, 760), Rect(100, 50, 1380, 900), SCREEN, gone)
    assert rect == centred((1100, 760), Rect(100, 50, 1380, 900), SCREEN)


def test_a_place_partly_off_is_moved_onto_the_screen() -> None:
    saved = Rect(1200, 500, 900, 640)
    assert fit(saved, SCREEN) == Rect(700, 360, 900, 640)
    assert place((1100, 760), Rect(0, 0, 800, 600), SCREEN, saved) == Rect(700, 360, 900, 640)


def test_places_are_remembered_in_the_config_folder(storyloom_home) -> None:  # type: ignore[no-untyped-def]
    places = WindowPlaces()
    assert places.get("player") is None
    places.remember("player", Rect(10, 20, 900, 640))
    places.remember("other", Rect(1, 2, 3, 4))
    assert WindowPlaces().get("player") == Rect(10, 20, 900, 640)
    assert places.file == paths.config_dir() / "windows.json"


def test_a_broken_file_reads_as_nothing_remembered(storyloom_home) -> None:  # type: ignore[no-untyped-def]
    places = WindowPlaces()
    places.file.write_text("{not json", encoding="utf-8")
    assert places.get("player") is None
    places.file.write_text('{"player": [1, 2, "x", 4]}', encoding="utf-8")
    assert places.get("player") is None
    places.remember("player", Rect(1, 2, 3, 4))
    assert places.get("player") == Rect(1, 2, 3, 4)


def test_a_maximized_window_is_remembered_with_its_normal_place(storyloom_home) -> None:  # type: ignore[no-untyped-def]
    places = WindowPlaces()
    assert not places.maximized("project")
    places.remember("project", Rect(10, 20, 900, 640), maximized=True)
    assert WindowPlaces().maximized("project") and WindowPlaces().get("project") == Rect(10, 20, 900, 640)
    places.remember("project", Rect(10, 20, 900, 640))
    assert not WindowPlaces().maximized("project")
    places.file.write_text('{"project": [1, 2, 3, 4], "project.maximized": "yes"}', encoding="utf-8")
    assert not places.maximized("project") and places.get("project") == Rect(1, 2, 3, 4)
