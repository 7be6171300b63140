"""Storyloom as installable software: the wheel ``pip install .`` and ``pipx install`` use holds the
whole package (every file the app reads at run time) and nothing of the repository's own folders,
declares the ``storyloom`` command and the ``storyloom-app`` launcher, and, installed into a fresh
virtual environment, runs from outside the repository: the command, and the app (offscreen) opening
a project and serving its API until SIGTERM ends it cleanly.

The wheel is built once for the module, as ``scripts/wheel`` builds it (pip, no build isolation, so
no download), from a copy of what the build reads (``pyproject.toml``, ``README.md``, ``src/``): the
build leaves its ``build/`` and ``*.egg-info`` in the copy, never in the worktree, and a build that
needed any other file of the repository would fail here.
"""

from __future__ import annotations

import email.parser
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from packaging.requirements import Requirement  # pytest's own dependency
from packaging.utils import canonicalize_name

import storyloom
from tests.support.app_api import wait_for_info

# pip and the installed programs run as processes; building the wheel alone takes seconds.
pytestmark = [pytest.mark.integration, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "src" / "storyloom"
API_KEY = "wheel-test-key-0123456789abcdef"


def _clean_env(**extra: str) -> dict[str, str]:
    """The environment of a process that must not see the repository: no PYTHONPATH (nor a
    PYTHONHOME, PYTHONSTARTUP or user site that could bring other code in)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")}
    env["PYTHONNOUSERSITE"] = "1"
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The built wheel (``storyloom-<version>-py3-none-any.whl``)."""
    source = tmp_path_factory.mktemp("wheel-source")
    shutil.copy2(REPO / "pyproject.toml", source)
    shutil.copy2(REPO / "README.md", source)
    shutil.copytree(REPO / "src", source / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    out = tmp_path_factory.mktemp("wheel-dist")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--isolated", "--no-deps", "--no-build-isolation",
         "--no-cache-dir", "--wheel-dir", str(out), str(source)],
        cwd=source, env=_clean_env(), capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, (
        "building the wheel failed (it needs setuptools>=68 and wheel, the test extras: "
        f"`pip install -e .[test]`):\n{done.stdout}\n{done.stderr}"
    )
    wheels = sorted(out.glob("*.whl"))
    assert [w.name for w in wheels] == [f"storyloom-{storyloom.__version__}-py3-none-any.whl"]
    return wheels[0]


def _package_files() -> set[str]:
    """Every file of the package in the source tree, as the wheel names it (``storyloom/...``)."""
    return {
        path.relative_to(PACKAGE.parent).as_posix()
        for path in PACKAGE.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    }


def test_the_wheel_holds_the_whole_package_and_nothing_of_the_repository(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    dist_info = f"storyloom-{storyloom.__version__}.dist-info/"
    package = {name for name in names if not name.startswith(dist_info)}
    # Every file the app may read at run time is a file of the package: the .py modules and the
    # rest (the layers' faces, __init__.pyi, which lazy_loader reads when the package is imported;
    # any icon, schema or template added to src/storyloom later is checked here as well).
    wanted = _package_files()
    assert any(name.endswith(".pyi") for name in wanted)  # the faces are in the source tree
    missing = sorted(wanted - package)
    assert not missing, f"files of src/storyloom the wheel lacks: {missing}"
    extra = sorted(package - wanted)
    assert not extra, f"files in the wheel that are not src/storyloom's: {extra}"
    # Nothing beside the package and its metadata: none of tests/, bench/, tools/ (the screenshot
    # tooling), examples/, scripts/ or docs/.
    assert {name.split("/")[0] for name in names} == {"storyloom", dist_info.rstrip("/")}


def _entry_points(text: str) -> dict[str, dict[str, str]]:
    sections: dict[str, dict[str, str]] = {}
    current: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], {})
        elif "=" in line:
            name, _, target = line.partition("=")
            current[name.strip()] = target.strip()
    return sections


def test_the_wheel_declares_both_programs_one_version_and_the_dependencies(wheel: Path) -> None:
    dist_info = f"storyloom-{storyloom.__version__}.dist-info"
    with zipfile.ZipFile(wheel) as archive:
        entry_points = _entry_points(archive.read(f"{dist_info}/entry_points.txt").decode())
        metadata = email.parser.Parser().parsestr(archive.read(f"{dist_info}/METADATA").decode())
    assert entry_points["console_scripts"] == {"storyloom": "storyloom.cli.main:main"}
    assert entry_points["gui_scripts"] == {"storyloom-app": "storyloom.gui.application:main"}
    assert metadata["Name"] == "storyloom"
    assert metadata["Version"] == storyloom.__version__  # the one place: storyloom.__version__
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = [r for r in metadata.get_all("Requires-Dist") or [] if "extra ==" not in r]

    def normal(text: str) -> tuple[str, frozenset[str], str]:
        requirement = Requirement(text)
        return canonicalize_name(requirement.name), frozenset(map(str, requirement.specifier)), str(requirement.marker)

    assert sorted(map(normal, declared)) == sorted(map(normal, project["dependencies"]))


# ------------------------------------------------------------------------ installed, from outside


def _third_party_view(root: Path) -> Path:
    """A folder of links to this interpreter's installed packages, less Storyloom itself (the
    worktree's editable install: its ``.pth`` and finder, its ``.dist-info``)."""
    view = root / "third-party"
    view.mkdir()
    folders = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    for folder in sorted(folders):
        for entry in Path(folder).iterdir():
            name = entry.name
            if name.lower().startswith(("storyloom", "__editable__")) or name.endswith(".pth"):
                continue
            if name == "__pycache__" or (view / name).exists():
                continue
            (view / name).symlink_to(entry)
    return view


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A fresh virtual environment with the wheel installed by pip, offline: its ``bin`` folder.

    The dependencies: a real ``pip install`` of the wheel, with pip's dependency resolution, but
    no index (``--no-index``): a download of PySide6 and the rest on every run would take minutes
    and need the network. The fresh environment sees this interpreter's third-party packages
    through a ``.pth`` to :func:`_third_party_view` (Storyloom itself left out), so pip's resolver
    finds each declared dependency already installed (``Requirement already satisfied``) and fails
    the test if one is missing or of a version the wheel does not accept; it installs the wheel
    alone, into the fresh ``site-packages``, with both programs in the fresh ``bin``."""
    root = tmp_path_factory.mktemp("fresh-venv")
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120,
                   env=_clean_env())
    python = venv / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True, env=_clean_env()).stdout.strip()
    (Path(purelib) / "storyloom-test-third-party.pth").write_text(f"{_third_party_view(root)}\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--isolated", "--no-index",
         "--no-cache-dir", str(wheel)],
        cwd=root, env=_clean_env(), capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, f"pip install of the wheel failed:\n{done.stdout}\n{done.stderr}"
    installed_line = [line for line in done.stdout.splitlines() if line.startswith("Successfully installed")]
    assert installed_line == [f"Successfully installed storyloom-{storyloom.__version__}"], done.stdout
    yield venv / "bin"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A working folder outside the repository."""
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    assert REPO not in folder.resolve().parents
    return folder


def _run(program: Path, *args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(program), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def test_the_installed_command_runs_from_outside_the_repository(installed: Path, outside: Path,
                                                                storyloom_home: Path) -> None:
    env = _clean_env(STORYLOOM_HOME=str(storyloom_home))
    python = installed / "python"
    where = _run(python, "-c", "import storyloom; print(storyloom.__file__)", cwd=outside, env=env)
    assert where.returncode == 0, where.stderr
    site_packages = Path(sysconfig.get_paths(vars={"base": str(installed.parent)})["purelib"])
    assert Path(where.stdout.strip()).parent == site_packages / "storyloom"
    for program in ("storyloom", "storyloom-app"):  # both run the fresh environment's Python
        assert (installed / program).read_text(encoding="utf-8").splitlines()[0] == f"#!{python}"

    version = _run(installed / "storyloom", "--version", cwd=outside, env=env)
    assert (version.returncode, version.stdout) == (0, f"storyloom {storyloom.__version__}\n")
    app_version = _run(installed / "storyloom-app", "--version", cwd=outside, env=env)
    assert (app_version.returncode, app_version.stdout) == (0, f"storyloom {storyloom.__version__}\n")

    created = _run(installed / "storyloom", "new", "Goddess", "--sample", cwd=outside, env=env)
    assert created.returncode == 0, created.stderr
    listed = _run(installed / "storyloom", "list", "--json", cwd=outside, env=env)
    assert listed.returncode == 0, listed.stderr
    assert [p["name"] for p in json.loads(listed.stdout)] == ["Goddess"]
    # The verbs that go through every layer's face (__init__.pyi, read by lazy_loader) and write.
    export = _run(installed / "storyloom", "export", "Goddess", "-o", "game.json", cwd=outside, env=env)
    assert export.returncode == 0, export.stderr
    assert json.loads((outside / "game.json").read_text(encoding="utf-8"))["scripts"]
    schema = _run(installed / "storyloom", "schema", "Goddess", "-o", "game.schema.json", cwd=outside, env=env)
    assert schema.returncode == 0, schema.stderr
    assert json.loads((outside / "game.schema.json").read_text(encoding="utf-8"))["$schema"].startswith(
        "https://json-schema.org/")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_the_installed_app_opens_a_project_offscreen_and_ends_on_sigterm(installed: Path, outside: Path,
                                                                         storyloom_home: Path) -> None:
    """The app has no "quit after start" switch: it is up when its project window serves the
    local API (GET /info answers with the project), and SIGTERM ends it as Quit does (as
    tests/gui/test_app_process.py runs the app from the worktree)."""
    env = _clean_env(STORYLOOM_HOME=str(storyloom_home), QT_QPA_PLATFORM="offscreen", PYTHONUNBUFFERED="1")
    created = _run(installed / "storyloom", "new", "Goddess", "--description", "installed", cwd=outside, env=env)
    assert created.returncode == 0, created.stderr
    project = json.loads(_run(installed / "storyloom", "list", "--json", cwd=outside, env=env).stdout)[0]
    port = _free_port()
    config = storyloom_home / "config"
    config.mkdir(parents=True, exist_ok=True)
    (config / "options.json").write_text(json.dumps({
        "username": "installed-tester", "api_enabled": True, "api_key": API_KEY, "api_port": port,
    }))
    # A desktop launcher hands the app a path: the project's folder.
    folder = storyloom_home / "projects" / project["id"]
    assert folder.is_dir()
    log = (outside / "app.log").open("w+")
    app = subprocess.Popen([str(installed / "storyloom-app"), str(folder)], cwd=outside, env=env,
                           stdout=log, stderr=subprocess.STDOUT)
    try:
        body = wait_for_info(app, port, API_KEY, log)
        assert body["project"]["name"] == "Goddess"
        assert body["project"]["description"] == "installed"
        assert body["app"]["version"] == storyloom.__version__
        app.send_signal(signal.SIGTERM)
        code = app.wait(timeout=15)
        log.seek(0)
        output = log.read()
        assert code == 0, output
        assert "Traceback" not in output, output
    finally:
        if app.poll() is None:
            app.kill()
            app.wait(10)
        log.close()
