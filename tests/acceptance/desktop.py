"""A desktop for the acceptance test: Xvfb on a free display, the openbox window manager, real
key and mouse events through xdotool, screenshots with Pillow, and the app as a process with its
read-only probe (``probe.py``).

Every wait polls (the probe, the window list, the process) until a deadline; nothing sleeps for
long on a guess. The machine the suite runs on may be busy, so the deadlines are generous and a
step that waited long says how long.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import pytest
from tools.xvfb import virtual_display

T = TypeVar("T")
HERE = Path(__file__).resolve().parent
SCREEN = (1600, 1000)
#: xdotool's delay between typed characters, in ms: a quick writer's pace.
TYPING_DELAY_MS = 40
TOOLS = ("Xvfb", "openbox", "xdotool")
_APPS = itertools.count(1)


class NotYet(AssertionError):
    """What a wait was waiting for did not happen in time."""


def wait_for(what: str, check: Callable[[], T | None], timeout: float = 30.0, every: float = 0.1) -> T:
    """Poll ``check`` until it returns something truthy (returned); :class:`NotYet` after
    ``timeout`` seconds, with the last answer (or error) in the message."""
    deadline = time.monotonic() + timeout
    last: object = None
    while True:
        try:
            result = check()
            last = result
        except (OSError, ValueError, KeyError, IndexError, TypeError) as exc:
            result, last = None, exc
        if result:
            return result
        if time.monotonic() > deadline:
            raise NotYet(f"waited {timeout:.0f} s for {what}; last seen: {last!r}")
        time.sleep(every)


def missing_tools() -> list[str]:
    return [tool for tool in TOOLS if shutil.which(tool) is None]


def _stop(process: subprocess.Popen[Any], grace: float = 10.0) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(grace)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


class Desktop:
    """An X display with a window manager; the xdotool verbs a test needs."""

    def __init__(self, display: str, env: dict[str, str]) -> None:
        self.display = display
        self.env = env

    def xdotool(self, *args: str, timeout: float = 30.0) -> str:
        done = subprocess.run(["xdotool", *args], env=self.env, capture_output=True, text=True, timeout=timeout)
        if done.returncode != 0:
            raise OSError(f"xdotool {' '.join(args)}: {done.stderr.strip() or done.returncode}")
        return done.stdout.strip()

    # ------------------------------------------------------------------ windows
    def window_ids(self, title: str) -> list[str]:
        """The mapped windows whose title matches ``title`` (a regular expression)."""
        done = subprocess.run(["xdotool", "search", "--onlyvisible", "--name", title], env=self.env,
                              capture_output=True, text=True, timeout=30)
        return done.stdout.split()

    def find_window(self, title: str, timeout: float = 45.0) -> str:
        """Wait for a window titled ``title`` (a regular expression) to be mapped; its id."""
        return wait_for(f"a window titled {title!r}", lambda: (self.window_ids(title) or [None])[-1], timeout)

    def focus(self, window: str) -> None:
        """Raise and focus ``window`` through the window manager (as a click on its title bar would)."""
        self.xdotool("windowactivate", "--sync", window)

    def maximize(self, window: str) -> None:
        """Make ``window`` fill the screen (the window manager moves and sizes it)."""
        self.xdotool("windowmove", "--sync", window, "0", "0")
        self.xdotool("windowsize", "--sync", window, str(SCREEN[0]), str(SCREEN[1]))

    def active_window_title(self) -> str:
        return self.xdotool("getactivewindow", "getwindowname")

    # ------------------------------------------------------------------ keyboard and mouse
    def key(self, *keys: str) -> None:
        """Press ``keys`` one after another (xdotool names: ``ctrl+n``, ``Return``, ``F5``)."""
        self.xdotool("key", "--delay", "60", *keys)

    def type(self, text: str) -> None:
        """Type ``text`` at a writer's pace, one line at a time (Return between lines)."""
        lines = text.split("\n")
        for number, line in enumerate(lines):
            if line:
                self.xdotool("type", "--delay", str(TYPING_DELAY_MS), line, timeout=120)
            if number < len(lines) - 1:
                self.key("Return")

    def click(self, x: int, y: int, button: int = 1, *, double: bool = False) -> None:
        self.xdotool("mousemove", "--sync", str(x), str(y))
        self.xdotool("click", *(["--repeat", "2", "--delay", "80"] if double else []), str(button))

    def drag(self, start: tuple[int, int], end: tuple[int, int], steps: int = 12) -> None:
        """Press at ``start``, move there in ``steps`` (Qt sees each motion), release at ``end``."""
        self.xdotool("mousemove", "--sync", str(start[0]), str(start[1]))
        self.xdotool("mousedown", "1")
        try:
            for step in range(1, steps + 1):
                x = round(start[0] + (end[0] - start[0]) * step / steps)
                y = round(start[1] + (end[1] - start[1]) * step / steps)
                self.xdotool("mousemove", "--sync", str(x), str(y))
                time.sleep(0.02)
        finally:
            self.xdotool("mouseup", "1")

    def screenshot(self, path: Path) -> Path:
        """The whole screen as a PNG (Pillow reads the X display itself)."""
        from PIL import ImageGrab

        ImageGrab.grab(xdisplay=self.display).save(path)
        return path


@contextmanager
def desktop() -> Iterator[Desktop]:
    """Xvfb on a free display (tools.xvfb) with openbox running; the test fails at once, naming
    them, when the tools it needs are not installed."""
    missing = missing_tools()
    if missing:
        pytest.fail(f"not installed: {', '.join(missing)} (scripts/test installs them: ensure_qt_runtime test)")
    with virtual_display(*SCREEN) as display:
        env = {**os.environ, "DISPLAY": display}
        env.pop("WAYLAND_DISPLAY", None)
        manager = subprocess.Popen(["openbox", "--sm-disable"], env=env, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        try:
            screen = Desktop(display, env)
            # openbox is up once it answers for the EWMH desktops it manages.
            wait_for("openbox to manage the display", lambda: screen.xdotool("get_num_desktops"), 30)
            yield screen
        finally:
            _stop(manager)


class App:
    """The app's process on ``screen`` (``launch_app.py``: ``storyloom app`` with the probe)."""

    def __init__(self, screen: Desktop, home: Path, log: Path, project: str | None = None) -> None:
        self.screen = screen
        # A short path: a Unix socket's name must fit in 108 bytes, a pytest temp folder may not.
        self.probe_path = os.path.join(tempfile.gettempdir(), f"storyloom-probe-{os.getpid()}-{next(_APPS)}.sock")
        env = {**screen.env, "STORYLOOM_HOME": str(home), "QT_QPA_PLATFORM": "xcb", "PYTHONUNBUFFERED": "1",
               "STORYLOOM_TEST_PROBE": self.probe_path}
        self.log_path = log
        self._log = log.open("a")
        args = [sys.executable, str(HERE / "launch_app.py"), *([project] if project else [])]
        self.process = subprocess.Popen(args, env=env, stdout=self._log, stderr=subprocess.STDOUT)

    def ask(self, query: str, **params: Any) -> Any:
        """One probe question (see ``probe.answer``)."""
        if self.process.poll() is not None:
            raise AssertionError(f"the app ended (exit code {self.process.returncode}):\n{self.log()}")
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(20)
            conn.connect(self.probe_path)
            conn.sendall((json.dumps({"q": query, **params}) + "\n").encode("utf-8"))
            data = b""
            while not data.endswith(b"\n"):
                chunk = conn.recv(65536)
                if not chunk:
                    raise OSError("the probe closed the connection")
                data += chunk
        reply = json.loads(data)
        if "error" in reply:
            raise ValueError(reply["error"])
        return reply["ok"]

    def widgets(self, name: str) -> list[dict[str, Any]]:
        return self.ask("widgets", name=name)

    def widget(self, name: str, timeout: float = 30.0,
               where: Callable[[dict[str, Any]], bool] | None = None) -> dict[str, Any]:
        """Wait for a visible widget named ``name`` (the first one ``where`` accepts)."""
        return wait_for(f"a visible widget {name!r}", lambda: next(
            (w for w in self.widgets(name) if where is None or where(w)), None), timeout)

    def click_widget(self, name: str, where: Callable[[dict[str, Any]], bool] | None = None) -> dict[str, Any]:
        found = self.widget(name, where=where)
        x, y, width, height = found["rect"]
        self.screen.click(x + width // 2, y + height // 2)
        return found

    def focused(self) -> dict[str, Any]:
        return self.ask("focus")

    def wait_focus(self, name: str, timeout: float = 30.0) -> dict[str, Any]:
        return wait_for(f"the focus in {name!r}", lambda: (f := self.focused())["name"] == name and f, timeout)

    def log(self) -> str:
        if not self._log.closed:
            self._log.flush()
        return self.log_path.read_text(errors="replace")

    def wait_exit(self, timeout: float = 45.0) -> int:
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            raise NotYet(f"the app did not end in {timeout:.0f} s:\n{self.log()}") from None

    def stop(self) -> None:
        _stop(self.process)
        self._log.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.probe_path)

    @contextmanager
    def running(self, shots: Path) -> Iterator[App]:
        """The app for a ``with`` block: when the block fails, a screenshot of the screen as it
        was (its path printed) and the app's output; the app is stopped whatever happens."""
        try:
            yield self
        except BaseException:
            if self.process.poll() is None:
                path = self.screen.screenshot(shots / f"failure-{time.strftime('%H%M%S')}.png")
                print(f"\nthe screen when the session failed: {path}")
            print(f"the app's output:\n{self.log()[-4000:]}")
            raise
        finally:
            self.stop()
