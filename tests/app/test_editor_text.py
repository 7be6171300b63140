"""The text editors' rules, without Qt: links, the properties' parse status, the pane's fields."""

from __future__ import annotations

from storyloom.app.views.editor_text import parse_status, property_layout, resolve_link


def test_document_links_resolve_to_ids_any_scheme() -> None:
    exists = {"abc"}.__contains__
    assert resolve_link("storyloom://document/abc", exists).kind == "document"
    assert resolve_link("drafft://document/abc", exists).target == "abc"
    assert resolve_link("storyloom://document/gone", exists).kind == "missing"
    assert resolve_link("https://example.org/x", exists).kind == "external"
    assert resolve_link("file:///etc/passwd", exists).kind == "none"
    assert resolve_link("", exists).kind == "none"


def test_parse_status_says_parses_or_where_it_fails() -> None:
    assert parse_status("a: 1\nb: [2, 3]\n", "yaml").message == "Parses"
    broken = parse_status("a: 1\nb: [2, 3\n", "yaml")
    assert not broken.ok and broken.line == 3 and broken.message.startswith("Line 3, column 1: ")
    assert parse_status('{"a": }', "json").message.startswith("Line 1, column 7: ")
    assert parse_status("anything { at all", "text").ok
    assert parse_status("a = 1", "TOML").ok
    assert parse_status("a: 1", "klingon").ok  # an unknown language is read as the default (hjson)


def test_property_layout_per_collection() -> None:
    assert property_layout({"type": "Actor", "content": {}}) == ("properties", (), ("bio",))
    assert property_layout({"type": "Item", "content": {"notes": ""}}) == ("item", (), ("notes",))
    assert property_layout({"type": "Quest", "content": {}}) == ("properties", ("conditions",), ())
    assert property_layout({"type": "Misc", "content": None}) == ("properties", (), ())


def test_drafft_document_references_become_links() -> None:
    from storyloom.app.views.editor_text import link_document_refs

    names = {"a1": "Woman [main]"}.get
    text = "| **Woman** :doc{#a1} | x :doc{#zz} |"
    assert link_document_refs(text, names) == ("| **Woman** [Woman (main)](storyloom://document/a1) | "
                                               "x [zz](storyloom://document/zz) |")


def test_a_string_left_open_is_said_in_full_where_it_breaks() -> None:
    """HJSON's own message for a line break inside a quoted string stops at "%r at": the
    status line says which character and where, in full."""
    status = parse_status('{\n  home: "Gullrock\n  age: 52\n}\n', "hjson")
    assert not status.ok and "%r" not in status.message
    assert status.line == 2 and status.message == (
        "Line 2, column 18: a quoted string runs past the end of its line (close the quote on the line)")
    tab = parse_status('{"a": "x\ty"}', "hjson")
    assert "%r" not in tab.message and tab.message.startswith("Line 1, column 9: ") and "'\\t'" in tab.message


def test_shown_problems_follow_their_lines_through_an_edit() -> None:
    from storyloom.app.views.editor_text import shift_lines

    by_line = {1: "a", 4: "b", 5: "c", 9: "d"}
    assert shift_lines(by_line, 3, 2) == {1: "a", 6: "b", 7: "c", 11: "d"}  # two lines typed in line 3
    assert shift_lines(by_line, 4, 1) == {1: "a", 4: "b", 6: "c", 10: "d"}  # Return in line 4
    assert shift_lines(by_line, 4, -1) == {1: "a", 4: "b", 8: "d"}  # line 5 joined to line 4
    assert shift_lines(by_line, 3, -2) == {1: "a", 7: "d"}  # lines 4 and 5 removed
    assert shift_lines(by_line, 3, 0) == by_line


def test_a_problem_that_only_moved_with_its_line_shows_the_same() -> None:
    from storyloom.app.views.editor_text import shown_problems_changed
    from storyloom.diagnostics import Diagnostic

    def problem(line: int, message: str = "unknown variable path", column: int = 5) -> Diagnostic:
        return Diagnostic(message, "unknown-path", line=line, column=column)

    old = {3: [problem(3)], 7: [problem(7)], 8: [problem(8, "bad")]}
    new = {3: [problem(4)], 7: [problem(8)], 9: [problem(9, "bad")], 8: [problem(8, "bad", column=6)]}
    assert shown_problems_changed(old, new) == {8, 9}
    assert shown_problems_changed(new, new) == set()


def test_a_rename_is_told_apart_from_other_changes() -> None:
    from storyloom.app.views.editor_text import rename_only_change

    old = {"_id": "s", "_rev": "1-a", "name": "Intro", "content": {"script": "x"},
           "modified": "t1", "modifiedBy": "ana"}
    renamed = {**old, "_rev": "2-b", "name": "Prologue", "modified": "t2", "modifiedBy": "bob"}
    assert rename_only_change(old, renamed)
    assert not rename_only_change(old, {**renamed, "content": {"script": "y"}})  # and edited
    assert not rename_only_change(old, {**old, "_rev": "2-b"})  # no new name
    assert not rename_only_change(old, {**renamed, "parent": "f"})  # and moved
    assert not rename_only_change(old, {**renamed, "_deleted": True})
    assert not rename_only_change(None, renamed)
    settings = {"_id": "settings", "_rev": "1-a", "projectName": "Old"}
    assert rename_only_change(settings, {**settings, "_rev": "2-b", "projectName": "New"}, "projectName")
    assert not rename_only_change(settings, {**settings, "_rev": "2-b", "projectName": "New"})
