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
