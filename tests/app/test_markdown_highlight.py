"""The GDD editor's markdown colouring rules (Qt-free)."""

from __future__ import annotations

import pytest

from storyloom.app.views.markdown_highlight import IN_FENCE, NORMAL, Span, highlight_line, highlight_text


def kinds(line: str) -> list[tuple[str, str]]:
    spans, _state = highlight_line(line)
    return [(s.kind, line[s.start:s.start + s.length]) for s in spans]


@pytest.mark.parametrize("line", ["# Title", "### Three", "###### Six", "  ## Indented"])
def test_headings_are_the_whole_line(line: str) -> None:
    assert kinds(line) == [("heading", line)]


@pytest.mark.parametrize("line", ["#hashtag", "####### seven", "    # code"])
def test_not_headings(line: str) -> None:
    assert ("heading", line) not in kinds(line)


def test_emphasis_and_strong() -> None:
    assert kinds("a *soft* and **loud** word") == [("emphasis", "*soft*"), ("strong", "**loud**")]
    assert kinds("_one_ and __two__") == [("emphasis", "_one_"), ("strong", "__two__")]


def test_no_emphasis_inside_words_or_around_spaces() -> None:
    assert kinds("snake_case_name") == []
    assert kinds("2 * 3 * 4") == []


def test_code_spans_hide_markup_inside_them() -> None:
    assert kinds("run `*not emphasis*` now") == [("code", "`*not emphasis*`")]
    assert kinds("``a ` b``") == [("code", "``a ` b``")]


def test_links_images_and_web_addresses() -> None:
    assert kinds("see [the pitch](storyloom://document/abc) here") == [
        ("link", "[the pitch](storyloom://document/abc)")]
    assert kinds("![map](drafft://image/x1)") == [("link", "![map](drafft://image/x1)")]
    assert kinds("at https://example.com/a.") == [("url", "https://example.com/a.")]


def test_list_markers_and_task_boxes() -> None:
    assert kinds("- item") == [("list", "-")]
    assert kinds("  * nested *soft*") == [("list", "  *"), ("emphasis", "*soft*")]
    assert kinds("12. twelfth") == [("list", "12.")]
    assert kinds("- [x] done") == [("list", "- [x]")]
    assert kinds("-not a list") == []


def test_quotes_colour_the_line_and_keep_inline_markup() -> None:
    assert kinds("> a **bold** quote") == [("quote", "> a **bold** quote"), ("strong", "**bold**")]
    assert kinds(">> - nested list") == [("quote", ">> - nested list"), ("list", "-")]


def test_horizontal_rules() -> None:
    assert kinds("---") == [("rule", "---")]
    assert kinds("* * *") == [("rule", "* * *")]


def test_fenced_code_spans_lines_until_its_closing_fence() -> None:
    text = "before\n```python\n# not a heading\n*x*\n```\n# heading"
    lines = highlight_text(text)
    assert [spans[0].kind if spans else None for spans in lines] == [None, "fence", "fence", "fence", "fence",
                                                                      "heading"]
    assert highlight_line("~~~", NORMAL)[1] == IN_FENCE
    assert highlight_line("~~~", IN_FENCE) == ([Span(0, 3, "fence")], NORMAL)


def test_an_empty_line_has_nothing() -> None:
    assert highlight_line("") == ([], NORMAL)
