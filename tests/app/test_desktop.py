"""What starting the desktop app asks of the machine and of its argument (storyloom.app.desktop):
whether there is a display to show it on, and which project a launcher's argument names."""

from __future__ import annotations

from pathlib import Path

import pytest

from storyloom import paths
from storyloom.app.desktop import display_problem, project_reference
from storyloom.project import ProjectManager


@pytest.mark.parametrize("env", [
    {"DISPLAY": ":0"}, {"WAYLAND_DISPLAY": "wayland-0"}, {"QT_QPA_PLATFORM": "offscreen"},
    {"QT_QPA_PLATFORM": "minimal"},
], ids=["x11", "wayland", "offscreen", "minimal"])
def test_a_display_or_a_headless_platform_lets_the_app_start(env):
    assert display_problem(env) == ""


def test_no_display_says_why_and_what_to_do(monkeypatch):
    monkeypatch.setattr("sys.platform", "linux")
    problem = display_problem({"QT_QPA_PLATFORM": "xcb"})
    assert "no display" in problem and "storyloom --help" in problem


def test_a_project_folder_or_a_file_in_it_names_the_project_by_id():
    with ProjectManager().create("Goddess") as project:
        project_id = project.id
    folder = paths.projects_dir() / project_id
    assert project_reference(str(folder), paths.projects_dir()) == project_id
    assert project_reference(str(folder / "project.json"), paths.projects_dir()) == project_id


def test_a_name_an_id_or_a_path_elsewhere_is_passed_on_as_it_is(tmp_path, monkeypatch):
    elsewhere = tmp_path / "Goddess"
    elsewhere.mkdir()
    monkeypatch.chdir(tmp_path)  # "Goddess" is also a folder here: still a project's name
    root = paths.projects_dir()
    assert project_reference("Goddess", root) == "Goddess"
    assert project_reference(str(elsewhere), root) == str(elsewhere)
    assert project_reference("0d6a-unknown-id", root) == "0d6a-unknown-id"
    assert project_reference(str(root), root) == str(root)  # the projects' folder itself names none
    assert project_reference(str(Path("~").expanduser() / "no-such-thing"), root).endswith("no-such-thing")
