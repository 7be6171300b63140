"""The acceptance tests' desktop: Xvfb with the openbox window manager (``desktop.py``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.acceptance.desktop import Desktop, desktop, missing_tools


@pytest.fixture
def screen() -> Iterator[Desktop]:
    missing = missing_tools()
    if missing:
        pytest.fail(f"not installed: {', '.join(missing)} (scripts/test installs them: ensure_qt_runtime test)")
    with desktop() as shown:
        yield shown
