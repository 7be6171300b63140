"""The standalone desktop build (``scripts/package``, docs/packaging.md) as a user gets it: the
archive is built once for this module (PyInstaller, a minute or two), unpacked into a temporary
folder, and run in a bare environment (``env -i`` with ``PATH=/usr/bin:/bin``, a fresh ``HOME``,
no ``PYTHONPATH``, a working folder outside the checkout): its ``storyloom`` command creates,
imports, lists, exports, prints and serves projects, its app opens under Xvfb and quits on
Ctrl+Q, and its install.sh puts the app in the desktop's menu.

``STORYLOOM_BUNDLE_ARCHIVE=path/to/storyloom-...tar.gz`` tests an archive built before (the one a
release ships) instead of building one.
"""

from __future__ import annotations

import configparser
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tarfile
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from tools import bundle as bundle_tool

from tests.acceptance.desktop import Desktop, desktop, wait_for
from tests.support.fixtures import DRAFFT_PROJECTS

# The build alone takes a minute or two on a busy machine: the module's first test carries it.
pytestmark = [pytest.mark.slow, pytest.mark.integration, pytest.mark.timeout(900)]

ARCHIVE_ENV = "STORYLOOM_BUNDLE_ARCHIVE"
#: The issue's hard limit on the unpacked folder.
SIZE_LIMIT = 400 * 1000 * 1000
#: Generous: the app opens at all. The target (3 s) is a figure printed and kept in docs/benchmarks.md.
WINDOW_DEADLINE = 30.0
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    given = os.environ.get(ARCHIVE_ENV)
    if given:
        yield Path(given).resolve()
        return
    work = tmp_path_factory.mktemp("bundle-build")
    started = time.monotonic()
    try:
        built = bundle_tool.build(work / "dist", work / "work")
        print(f"\nbundle built in {time.monotonic() - started:.0f} s")
        shutil.rmtree(work / "work")  # PyInstaller's work and the folder packed: 500 MB nothing reads again
        yield built
    finally:
        shutil.rmtree(work, ignore_errors=True)


@pytest.fixture(scope="module")
def bundle(archive: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The unpacked folder (the archive's one top folder)."""
    into = tmp_path_factory.mktemp("unpacked")
    try:
        with tarfile.open(archive) as packed:
            packed.extractall(into, filter="tar")  # keeps the executables' modes and the links
        (folder,) = into.iterdir()
        yield folder
    finally:
        shutil.rmtree(into, ignore_errors=True)


def bare_env(home: Path, **extra: str) -> dict[str, str]:
    """``env -i PATH=/usr/bin:/bin HOME=home``: nothing of this test's Python reaches the bundle."""
    return {"PATH": "/usr/bin:/bin", "HOME": str(home), **extra}


class Bundle:
    """The bundle's command line, run as a user with a fresh home would."""

    def __init__(self, folder: Path, home: Path, cwd: Path) -> None:
        self.folder, self.home, self.cwd = folder, home, cwd

    def run(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        done = subprocess.run([str(self.folder / "storyloom"), *args], env=bare_env(self.home), cwd=self.cwd,
                              capture_output=True, text=True, timeout=timeout)
        assert done.returncode == 0, f"storyloom {' '.join(args)}: exit {done.returncode}\n{done.stdout}{done.stderr}"
        return done


@pytest.fixture
def user(bundle: Path, tmp_path: Path) -> Bundle:
    home = tmp_path / "home"
    cwd = tmp_path / "elsewhere"  # not the checkout: nothing is imported from the working folder
    home.mkdir()
    cwd.mkdir()
    return Bundle(bundle, home, cwd)


def _png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return struct.unpack(">II", head[16:24])


def _desktop_entry(path: Path) -> configparser.SectionProxy:
    """The entry's keys; where desktop-file-utils is installed, also its verdict on the file."""
    if shutil.which("desktop-file-validate"):
        done = subprocess.run(["desktop-file-validate", str(path)], capture_output=True, text=True, timeout=30)
        assert done.returncode == 0 and not done.stdout.strip(), done.stdout + done.stderr
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # the keys are case-sensitive
    parser.read_string(path.read_text(encoding="utf-8"))
    return parser["Desktop Entry"]


def test_the_archive_is_one_folder_with_both_commands_the_desktop_entry_and_icon_under_400_mb(archive, bundle):
    assert archive.name == f"storyloom-{bundle_tool.version()}-linux-x86_64.tar.gz"
    assert bundle.name == f"storyloom-{bundle_tool.version()}"
    for name in ("storyloom", "storyloom-app", "install.sh"):
        assert os.access(bundle / name, os.X_OK), f"{name} is not an executable file of the bundle"
    assert (bundle / "_internal").is_dir()  # one folder of libraries both executables share
    assert _png_size(bundle / "storyloom.png") == (256, 256)
    entry = _desktop_entry(bundle / "storyloom.desktop")
    assert entry["Type"] == "Application"
    assert entry["Name"] == "Storyloom"
    assert entry["Exec"] == "storyloom-app"
    assert entry["Icon"] == "storyloom"
    assert entry["Terminal"] == "false"

    unpacked = bundle_tool.folder_size(bundle)
    print(f"\nbundle: {unpacked / 1e6:.0f} MB unpacked, {archive.stat().st_size / 1e6:.0f} MB packed")
    assert unpacked < SIZE_LIMIT, f"the bundle is {unpacked / 1e6:.0f} MB unpacked (limit 400 MB)"


def test_the_command_line_runs_from_the_bundle_with_no_python_in_the_environment(user):
    assert user.run("--version").stdout.strip() == f"storyloom {bundle_tool.version()}"
    user.run("new", "Goddess")
    assert "Goddess" in user.run("list").stdout
    # The verbs that load modules by name at run time: ijson's backend, orjson, python-docx's
    # templates, markdown-it, Qt's offscreen PDF writer.
    user.run("import", "--name", "Fate", str(DRAFFT_PROJECTS / "v2" / "tgof.json"))
    listed = json.loads(user.run("list", "--json").stdout)
    assert sorted(project["name"] for project in listed) == ["Fate", "Goddess"]
    assert all(Path(project["path"]).is_relative_to(user.home) for project in listed)

    out = user.cwd
    user.run("export", "Fate", "-o", str(out / "game.json"))
    exported = json.loads((out / "game.json").read_text(encoding="utf-8"))
    assert exported["scripts"], "the export of the sample has no scripts"
    user.run("print", "--collection", "GDD", "-o", str(out / "gdd.docx"), "Fate")
    with zipfile.ZipFile(out / "gdd.docx") as docx:
        assert "word/document.xml" in docx.namelist()
    user.run("print", "--collection", "Scripts", "-o", str(out / "scripts.pdf"), "Fate")
    assert (out / "scripts.pdf").read_bytes().startswith(b"%PDF-")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_the_bundle_serves_the_local_api(user):
    user.run("new", "Goddess")
    key = "bundle-test-key-0123456789abcdef"
    key_file = user.home / "api-key"
    key_file.write_text(key)
    key_file.chmod(0o600)
    port = _free_port()
    log = (user.cwd / "serve.log").open("w+")
    server = subprocess.Popen(
        [str(user.folder / "storyloom"), "serve", "--port", str(port), "--key-file", str(key_file), "Goddess"],
        env=bare_env(user.home), cwd=user.cwd, stdout=log, stderr=subprocess.STDOUT,
    )
    try:
        def info() -> dict | None:
            assert server.poll() is None, "the server ended"
            try:
                response = httpx.get(f"http://127.0.0.1:{port}/info", headers={"x-api-key": key}, timeout=2)
            except httpx.TransportError:
                return None
            return response.json() if response.status_code == 200 else None

        body = wait_for("the bundle's API to answer /info", info, timeout=60)
        assert body["project"]["name"] == "Goddess"
        server.send_signal(signal.SIGTERM)
        assert server.wait(15) == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait(10)
        log.seek(0)
        output = log.read()
        log.close()
    assert "Traceback" not in output, output


@pytest.fixture
def screen() -> Iterator[Desktop]:
    with desktop() as shown:
        yield shown


def _loaded_files(pid: int) -> set[str]:
    """The files a process has mapped: its executable, shared libraries and Python extensions."""
    files = set()
    for line in Path(f"/proc/{pid}/maps").read_text().splitlines():
        fields = line.split(None, 5)  # address, perms, offset, device, inode, path
        if len(fields) == 6 and fields[5].startswith("/"):
            files.add(fields[5])
    return files


def _open_app(user: Bundle, screen: Desktop) -> tuple[subprocess.Popen[str], str, float]:
    """``storyloom-app`` started on ``screen``; the process, its window and the seconds until the
    window was mapped."""
    env = bare_env(user.home, DISPLAY=screen.display)
    started = time.monotonic()
    app = subprocess.Popen([str(user.folder / "storyloom-app")], env=env, cwd=user.cwd, text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        window = wait_for("the bundle's app window", lambda: (screen.window_ids("Storyloom") or [None])[-1],
                          timeout=WINDOW_DEADLINE, every=0.05)
    except BaseException:
        app.kill()
        output, _ = app.communicate(timeout=10)
        print(output)
        raise
    return app, window, time.monotonic() - started


def _quit(app: subprocess.Popen[str], screen: Desktop, window: str) -> str:
    """Ctrl+Q in the window, as a user quits; the app's output once it ended with exit code 0."""
    try:
        screen.focus(window)
        screen.key("ctrl+q")
        output, _ = app.communicate(timeout=30)
    finally:
        if app.poll() is None:
            app.kill()
            app.communicate(timeout=10)
    assert app.returncode == 0, output
    return output


def test_the_app_opens_from_the_bundle_under_xvfb_and_quits_on_ctrl_q(user, screen):
    app, window, first = _open_app(user, screen)
    try:
        assert screen.xdotool("getwindowname", window) == "Projects — Storyloom"
        # Taskbars group the window with its menu entry by its WM_CLASS class (Qt's application
        # name, whichever executable started it): the entry's StartupWMClass.
        entry = _desktop_entry(user.folder / "storyloom.desktop")
        classes = screen.xdotool("search", "--onlyvisible", "--class", f"^{entry['StartupWMClass']}$").split()
        assert window in classes
        # Everything the process loaded is the bundle's or the system's: not this test's Python.
        loaded = _loaded_files(app.pid)
        assert any(path.startswith(str(user.folder)) and "libpython3" in path for path in loaded), sorted(loaded)
        foreign = [path for path in loaded if not path.startswith(str(user.folder))
                   and (path.startswith((sys.prefix, str(REPO))) or "site-packages" in path or "/python3." in path)]
        assert not foreign, foreign
    finally:
        output = _quit(app, screen, window)
    assert "Traceback" not in output, output

    # A second start: the first one also made the fresh home's caches (fonts, options).
    app, window, second = _open_app(user, screen)
    _quit(app, screen, window)
    print(f"\nbundle's app window mapped after {first:.2f} s (first start, fresh home), {second:.2f} s (second)")


def test_install_sh_puts_the_app_in_the_users_menu_and_takes_it_out(user):
    env = bare_env(user.home)
    done = subprocess.run([str(user.folder / "install.sh")], env=env, cwd=user.cwd, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    share = user.home / ".local" / "share"
    entry = _desktop_entry(share / "applications" / "storyloom.desktop")
    assert entry["Exec"] == f'"{user.folder / "storyloom-app"}"'
    assert entry["Icon"] == "storyloom"
    assert _png_size(share / "icons" / "hicolor" / "256x256" / "apps" / "storyloom.png") == (256, 256)
    command = user.home / ".local" / "bin" / "storyloom"
    version = subprocess.run([str(command), "--version"], env=env, cwd=user.cwd, capture_output=True, text=True,
                             timeout=60)
    assert version.stdout.strip() == f"storyloom {bundle_tool.version()}", version.stderr

    done = subprocess.run([str(user.folder / "install.sh"), "--uninstall"], env=env, cwd=user.cwd,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert not (share / "applications" / "storyloom.desktop").exists()
    assert not command.is_symlink()
    assert (user.folder / "storyloom").exists()  # the folder itself stays
