"""The acceptance tests' desktop: Xvfb with the openbox window manager (``desktop.py``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.acceptance.desktop import Desktop, desktop


@pytest.fixture
def screen() -> Iterator[Desktop]:
    with desktop() as shown:
        yield shown
