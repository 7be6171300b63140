"""Helpers the GUI tests share (the fixtures are in conftest.py)."""

from __future__ import annotations

from tests.support.fixtures import DRAFFT_PROJECTS

#: The richest Drafft sample: every window test opens it.
GARDEN = DRAFFT_PROJECTS / "v2" / "the-garden-of-fading-memories.json"


def first_document(window, doc_type: str) -> str:  # type: ignore[no-untyped-def]
    """The id of the first document of ``doc_type`` (by id) in the window's project."""
    return sorted((s for s in window.session.index.summaries() if s.type == doc_type), key=lambda s: s.id)[0].id
