"""The standalone desktop build: one folder that runs on a machine with no Python, packed as
``dist/storyloom-<version>-<os>-<arch>.tar.gz`` (``.zip`` on Windows). See docs/packaging.md.

Run from the checkout's root with PyInstaller installed (``scripts/package`` installs it and runs
this): ``python -m tools.bundle [--dist DIR] [--work DIR]``.

Steps: the app's icon rendered to a PNG (it is drawn at run time from a qtawesome glyph), the
folder frozen by PyInstaller from ``packaging/storyloom.spec`` (two executables sharing one
``_internal``: ``storyloom`` and ``storyloom-app``), then the .desktop file, the icon and
``install.sh`` beside them, and the archive. It prints the sizes and where the archive is.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGING = ROOT / "packaging"
SRC = ROOT / "src"


def version() -> str:
    """Storyloom's version, read from the source (the build may run before it is installed)."""
    text = (SRC / "storyloom" / "__init__.py").read_text(encoding="utf-8")
    found = re.search(r'^__version__ = "([^"]+)"', text, re.MULTILINE)
    if found is None:
        raise SystemExit("tools.bundle: no __version__ in src/storyloom/__init__.py")
    return found.group(1)


def platform_tag() -> str:
    """``linux-x86_64``, ``windows-amd64``, ``macos-arm64``: the archive's name says where it runs."""
    system = {"darwin": "macos", "win32": "windows"}.get(sys.platform, sys.platform)
    return f"{system}-{platform.machine().lower()}"


def archive_name(tag: str | None = None) -> str:
    suffix = ".zip" if sys.platform == "win32" else ".tar.gz"
    return f"storyloom-{version()}-{tag or platform_tag()}{suffix}"


def folder_size(path: Path) -> int:
    """Bytes of every file under ``path`` (links counted once, as the link)."""
    return sum(entry.lstat().st_size for entry in path.rglob("*") if entry.is_file() or entry.is_symlink())


def _env() -> dict[str, str]:
    """The build's environment: this checkout's source first on the path (PyInstaller's helper
    processes import storyloom to list its modules), Qt offscreen for the icon."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(SRC), env.get("PYTHONPATH", "")) if p)
    env["QT_QPA_PLATFORM"] = "offscreen"
    return env


def render_icon(out: Path) -> Path:
    subprocess.run([sys.executable, str(PACKAGING / "render_icon.py"), str(out), "256"], env=_env(), check=True)
    return out


def freeze(work: Path, icon: Path | None) -> Path:
    """PyInstaller's one-folder build of the spec; the folder it made."""
    env = _env()
    if icon is not None:
        env["STORYLOOM_BUNDLE_ICON"] = str(icon)
    subprocess.run(
        [sys.executable, "-m", "PyInstaller", "--noconfirm", "--log-level", "WARN",
         "--distpath", str(work / "dist"), "--workpath", str(work / "build"), str(PACKAGING / "storyloom.spec")],
        env=env, check=True, cwd=work,
    )
    return work / "dist" / "storyloom"


def add_desktop_files(folder: Path, icon: Path) -> None:
    """The Linux desktop integration beside the executables (install.sh puts it in place)."""
    shutil.copy2(icon, folder / "storyloom.png")
    shutil.copy2(PACKAGING / "storyloom.desktop", folder / "storyloom.desktop")
    shutil.copy2(PACKAGING / "install.sh", folder / "install.sh")
    (folder / "install.sh").chmod(0o755)


def pack(folder: Path, archive: Path) -> Path:
    """The folder as one archive whose single top folder is ``folder``'s name."""
    archive.parent.mkdir(parents=True, exist_ok=True)
    partial = archive.with_name(archive.name + ".partial")
    if archive.suffix == ".zip":
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as packed:
            for entry in sorted(folder.rglob("*")):
                packed.write(entry, entry.relative_to(folder.parent))
    else:
        # Level 6: nearly level 9's size in a fraction of its time on a 200 MB folder.
        with tarfile.open(partial, "w:gz", compresslevel=6) as packed:
            packed.add(folder, arcname=folder.name)
    partial.replace(archive)  # a killed build leaves no archive that looks complete
    return archive


def build(dist: Path, work: Path) -> Path:
    """The whole build; the archive's path (in ``dist``)."""
    started = time.monotonic()
    work.mkdir(parents=True, exist_ok=True)
    icon = render_icon(work / "storyloom.png")
    # Windows and macOS take the executable's icon in their own format: PyInstaller converts the
    # PNG with Pillow there (the package extra installs it); Linux executables have no icon.
    frozen = freeze(work, None if sys.platform.startswith("linux") else icon)
    folder = work / f"storyloom-{version()}"
    if folder.exists():
        shutil.rmtree(folder)
    frozen.rename(folder)
    if sys.platform.startswith("linux"):
        add_desktop_files(folder, icon)
    archive = pack(folder, dist / archive_name())
    print(f"{archive}: {archive.stat().st_size / 1e6:.0f} MB packed, {folder_size(folder) / 1e6:.0f} MB unpacked, "
          f"built in {time.monotonic() - started:.0f} s")
    return archive


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.bundle", description=__doc__.split("\n\n")[0])
    parser.add_argument("--dist", type=Path, default=ROOT / "dist", help="where the archive goes (default: dist/)")
    parser.add_argument("--work", type=Path, default=ROOT / "build" / "bundle",
                        help="PyInstaller's work folder and the unpacked bundle (default: build/bundle/)")
    args = parser.parse_args(argv)
    build(args.dist.resolve(), args.work.resolve())
    return 0


if __name__ == "__main__":
    sys.exit(main())
