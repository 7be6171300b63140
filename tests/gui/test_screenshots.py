"""The screenshot registry renders the project manager to real PNG files."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QImage
from tools import screenshots

pytestmark = pytest.mark.slow  # renders the windows to images


def test_the_project_manager_renders_with_projects_and_empty(qapp, tmp_path, storyloom_home):
    shots = screenshots.registered()
    assert {"project-manager", "project-manager-empty"} <= set(shots)
    written = screenshots.take("project-manager-empty", shots["project-manager-empty"], tmp_path, dark=True)
    assert written == tmp_path / "project-manager-empty-dark.png"
    image = QImage(str(written))
    assert (image.width(), image.height()) == (1440, 900)
    doubled = screenshots.take("project-manager-empty", shots["project-manager-empty"], tmp_path, dark=False,
                               scale=2)
    assert QImage(str(doubled)).width() == 2880
    # The test's own home is back after the shot's temporary one.
    import os

    assert os.environ["STORYLOOM_HOME"] == str(storyloom_home)


def test_a_name_registers_once():
    @screenshots.register("test-only-window")
    def shot(workspace, out_dir):
        raise AssertionError("not rendered here")

    try:
        screenshots.register("test-only-window")(shot)  # the same function again is fine
        try:
            screenshots.register("test-only-window")(lambda w, o: None)
        except ValueError as exc:
            assert "registered already" in str(exc)
        else:
            raise AssertionError("a second function took the same name")
    finally:
        screenshots._REGISTRY.pop("test-only-window", None)
