"""How quickly the standalone build's app shows its window (issue 26: usable in under 3 s): from
starting ``storyloom-app`` to its project manager's window mapped on an X display (Xvfb), against
the same app started from this checkout (``python -m storyloom app``) in the same run.

- the bundle's window: within 3 s (the fastest of the rounds);
- the bundle against the checkout: within 1.25x (freezing must not make the start slower).

Both run with a bare environment (``PATH=/usr/bin:/bin``, a home of their own; the checkout's run
adds ``PYTHONPATH`` and caches its bytecode, as an installed Storyloom does), interleaved round by
round so both see the same load; each round's process is stopped (SIGTERM) once its window is up.
The first start of each, which also fills the fresh home's caches, is printed apart, and so is
the CPU time each process used until its window showed (which a loaded machine does not inflate
as it does the wall time).

The bundle is the folder ``scripts/package`` leaves in ``build/bundle/``; with none there, the
benchmark says so and measures nothing (it does not build one: that takes minutes).

    python -m bench.bundle_bench [--bundle FOLDER] [--rounds N] [--quick]
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tools.xvfb import virtual_display

from bench.report import Check, machine, verdict

ROOT = Path(__file__).resolve().parents[1]
TITLE = "Storyloom"
TIMEOUT = 60.0


def cpu_seconds(pid: int) -> float:
    """The CPU time ``pid`` has used (user and system): what a busy machine cannot inflate."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def window_time(argv: list[str], env: dict[str, str], display: str) -> tuple[float, float]:
    """Seconds from starting ``argv`` to a mapped window titled like the app's, and the CPU
    seconds the process used by then; the process is stopped after."""
    env = {**env, "DISPLAY": display}
    with tempfile.TemporaryFile("w+") as log:
        started = time.perf_counter()
        app = subprocess.Popen(argv, env=env, cwd=env["HOME"], stdout=log, stderr=subprocess.STDOUT)
        try:
            while True:
                found = subprocess.run(["xdotool", "search", "--onlyvisible", "--name", TITLE], env=env,
                                       capture_output=True, text=True, timeout=30)
                if found.stdout.strip():
                    return time.perf_counter() - started, cpu_seconds(app.pid)
                if app.poll() is not None:
                    log.seek(0)
                    raise SystemExit(f"{' '.join(argv)} ended (exit code {app.returncode}) before its window "
                                     f"showed:\n{log.read()[-3000:]}")
                if time.perf_counter() - started > TIMEOUT:
                    raise SystemExit(f"{' '.join(argv)}: no window in {TIMEOUT:.0f} s")
                time.sleep(0.02)
        finally:
            app.send_signal(signal.SIGTERM)
            try:
                app.wait(15)
            except subprocess.TimeoutExpired:
                app.kill()
                app.wait(5)


def default_bundle() -> Path:
    from tools.bundle import version

    return ROOT / "build" / "bundle" / f"storyloom-{version()}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bundle", type=Path, help="the unpacked bundle (default: build/bundle/storyloom-<version>)")
    parser.add_argument("--rounds", type=int, default=5, help="starts of each (default 5)")
    parser.add_argument("--quick", action="store_true", help="2 rounds")
    parser.add_argument("--docs", type=int, help=argparse.SUPPRESS)  # scripts/bench passes it to every bench
    args = parser.parse_args(argv)
    folder = (args.bundle or default_bundle()).resolve()
    app = folder / "storyloom-app"
    if not app.is_file():
        print(f"bundle start-up: no bundle at {folder} (scripts/package builds one); nothing measured")
        return 0
    for tool in ("Xvfb", "xdotool"):
        if shutil.which(tool) is None:
            raise SystemExit(f"bundle start-up: {tool} is not installed (scripts/test installs it)")
    rounds = 2 if args.quick else max(1, args.rounds)
    print(f"Bundle start-up, {rounds} rounds each, {folder}; {machine()}")
    homes = Path(tempfile.mkdtemp(prefix="storyloom-bundle-bench-"))
    try:
        (homes / "bundle").mkdir()
        (homes / "checkout").mkdir()
        bundle_env = {"PATH": "/usr/bin:/bin", "HOME": str(homes / "bundle")}
        checkout_env = {"PATH": "/usr/bin:/bin", "HOME": str(homes / "checkout"), "PYTHONPATH": str(ROOT / "src")}
        commands = {
            "bundle": ([str(app)], bundle_env),
            "checkout": ([sys.executable, "-m", "storyloom", "app"], checkout_env),
        }
        with virtual_display() as display:
            first = {name: window_time(command, env, display) for name, (command, env) in commands.items()}
            best = {name: float("inf") for name in commands}
            cpu = {name: float("inf") for name in commands}
            for _ in range(rounds):
                for name, (command, env) in commands.items():
                    wall, used = window_time(command, env, display)
                    best[name], cpu[name] = min(best[name], wall), min(cpu[name], used)
    finally:
        shutil.rmtree(homes, ignore_errors=True)
    for name in commands:
        print(f"{name}: first start {first[name][0] * 1000:,.0f} ms ({first[name][1] * 1000:,.0f} ms of CPU), "
              f"best of {rounds} {best[name] * 1000:,.0f} ms ({cpu[name] * 1000:,.0f} ms of CPU)")
    return verdict("Bundle start-up", [
        Check("bundle's window mapped", best["bundle"] * 1000, 3000, unit="ms"),
        Check("bundle / checkout", best["bundle"] / best["checkout"], 1.25),
    ])


if __name__ == "__main__":
    sys.exit(main())
