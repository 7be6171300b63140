"""The command palette's matching and order (Qt-free)."""

from storyloom.app.views.command_palette import Command, clean_label, rank_commands

COMMANDS = [
    Command("save", "Save", "File", "Ctrl+S"),
    Command("save-all", "Save All", "File", "Ctrl+Alt+S"),
    Command("export", "Export Game Content", "File", "Ctrl+E"),
    Command("options", "Options", "File", "Ctrl+,"),
    Command("play", "Play Dialogue", "Play", "F5", enabled=False),
    Command("problems", "Problems", "View", "Ctrl+Shift+M"),
]


def labels(query: str) -> list[str]:
    return [m.command.label for m in rank_commands(COMMANDS, query)]


def test_an_empty_query_lists_every_command_in_menu_order_disabled_last() -> None:
    assert labels("") == ["Save", "Save All", "Export Game Content", "Options", "Problems", "Play Dialogue"]


def test_letters_in_order_match_and_a_start_of_word_match_ranks_first() -> None:
    assert labels("sav") == ["Save", "Save All"]
    assert labels("egc")[0] == "Export Game Content"
    assert labels("opt") == ["Options"]


def test_the_matched_characters_are_given_for_bold_display() -> None:
    (match,) = rank_commands(COMMANDS, "prob")
    assert match.positions == (0, 1, 2, 3)


def test_a_command_is_also_found_through_its_menu_below_label_matches() -> None:
    found = labels("file opt")
    assert found == ["Options"]
    assert rank_commands(COMMANDS, "file opt")[0].positions == ()
    # A label match beats a match through the place.
    assert labels("s")[:2] == ["Save", "Save All"]


def test_a_disabled_command_is_listed_after_enabled_ones_even_when_it_matches_better() -> None:
    commands = [Command("a", "Play from Here", "Play"), Command("b", "Play", "Play", enabled=False)]
    assert [m.command.key for m in rank_commands(commands, "play")] == ["a", "b"]


def test_no_match_gives_nothing_and_duplicates_are_listed_once() -> None:
    assert labels("zzz") == []
    assert len(rank_commands([*COMMANDS, COMMANDS[0]], "")) == len(COMMANDS)


def test_clean_label_drops_mnemonics_and_ellipsis() -> None:
    assert clean_label("&Options…") == "Options"
    assert clean_label("Search in Project...") == "Search in Project"
    assert clean_label("Save && Close") == "Save & Close"
