"""How quickly the command line answers: each verb's wall time from start to exit, as a ratio to
``python -c pass`` on the same interpreter, measured in the same run (issue 26).

- ``storyloom --version`` and ``storyloom list``: within 8x;
- ``storyloom doc get PROJECT ID`` on a project of the sample's size: within 10x;
- ``storyloom lock PROJECT ID`` on a project that syncs with a local pouchdb-server (one server
  round trip, then ``unlock``): within 15x.

Each command runs ``--rounds`` times, interleaved with the reference so both see the same load;
the fastest run of each is compared (the least disturbed by other processes on a shared machine).
The commands run with bytecode caching on, as an installed Storyloom does; the set-up's runs
write the cache, so the measured ones read it.

    python -m bench.cli_bench [--rounds N] [--home DIR] [--no-server]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.report import Check, machine, storyloom_home, verdict

PROJECT = "Bench"
TEAM = "Team"


# The CPU time (user + system) of each command's fastest run, printed beside the wall time: on a
# shared machine another process's load stretches the wall time more than the CPU time.
_cpu: dict[str, float] = {}


def _run(argv: list[str], env: dict[str, str], name: str = "") -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=120)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.strip()}")
    if name:
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        _cpu[name] = min(_cpu.get(name, float("inf")), cpu)
    return elapsed


def _instructions(argv: list[str], env: dict[str, str]) -> int:
    done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv], env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=600)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode != 0 or found is None:
        raise SystemExit(f"valgrind {' '.join(argv)} failed ({done.returncode}): {done.stderr[-2000:]}")
    return int(found.group(1))


def _print_instructions(commands: dict[str, list[str]], env: dict[str, str]) -> None:
    """Each command's instructions as a ratio to ``python -c pass``'s (one run each: the count
    does not depend on the machine's load)."""
    if shutil.which("valgrind") is None:
        print("instructions: valgrind is not installed; skipped")
        return
    counts = {name: _instructions(argv, env) for name, argv in commands.items()}
    reference = counts.pop("python -c pass")
    print(f"instructions (callgrind), python -c pass: {reference / 1e6:.1f} M")
    for name, count in counts.items():
        print(f"  storyloom {name}: {count / 1e6:.1f} M, {count / reference:.2f}x")


def _storyloom(*args: str) -> list[str]:
    return [sys.executable, "-m", "storyloom", *args]


def _first_script_id(env: dict[str, str], project: str) -> str:
    """A script's id, read from outside as a build script would: from the game export."""
    done = subprocess.run(_storyloom("export", project, "--collections", "Scripts"), env=env, capture_output=True,
                          text=True, check=True, timeout=120)
    for doc in json.loads(done.stdout).get("scripts") or []:
        if doc.get("type") == "Script":
            return str(doc["_id"])
    raise SystemExit(f"the project {project!r} has no script to read")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=9, help="runs of each command (default 9)")
    parser.add_argument("--home", help="STORYLOOM_HOME to use (default: a temporary one)")
    parser.add_argument("--no-server", action="store_true", help="leave out the lock on a synced project")
    parser.add_argument("--docs", type=int, help=argparse.SUPPRESS)  # scripts/bench passes it to every bench
    parser.add_argument("--quick", action="store_true", help="3 rounds")
    parser.add_argument("--instructions", action="store_true",
                        help="also count each command's instructions under valgrind (callgrind), for information: "
                             "the same count whatever else the machine runs")
    args = parser.parse_args(argv)
    rounds = 3 if args.quick else max(1, args.rounds)
    print(f"CLI start-up, {rounds} rounds each; {machine()}")
    with storyloom_home(args.home, "storyloom-cli-bench-") as home:
        env = dict(os.environ, STORYLOOM_HOME=home)
        # An installed Storyloom runs from compiled bytecode (pip compiles it at install); a
        # checkout with PYTHONDONTWRITEBYTECODE set would compile every module on every run.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        subprocess.run(_storyloom("new", PROJECT, "--sample"), env=env, check=True, capture_output=True, timeout=120)
        doc_id = _first_script_id(env, PROJECT)
        commands: dict[str, list[str]] = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "--version": _storyloom("--version"),
            "list": _storyloom("list"),
            "doc get": _storyloom("doc", "get", PROJECT, doc_id),
        }
        server = None
        if not args.no_server:
            from tools.peers import CouchServer

            server = CouchServer(Path(tempfile.mkdtemp(prefix="storyloom-cli-bench-couch-")))
            server.start()
        try:
            if server is not None:
                env["STORYLOOM_REMOTE_PASSWORD"] = server.admin[1]
                subprocess.run(_storyloom("new", TEAM, "--sample"), env=env, check=True, capture_output=True,
                               timeout=120)
                subprocess.run(_storyloom("remote", "set", TEAM, "--server", server.url, "--username",
                                          server.admin[0]), env=env, check=True, capture_output=True, timeout=120)
                subprocess.run(_storyloom("sync", TEAM, "-q"), env=env, check=True, capture_output=True, timeout=300)
                team_doc = _first_script_id(env, TEAM)
            best = {name: float("inf") for name in commands}
            best_lock = float("inf")
            for _ in range(rounds):
                for name, command in commands.items():
                    best[name] = min(best[name], _run(command, env, name))
                if server is not None:
                    best_lock = min(best_lock, _run(_storyloom("lock", TEAM, team_doc), env, "lock"))
                    _run(_storyloom("unlock", TEAM, team_doc), env)
            if args.instructions:
                counted = dict(commands)
                if server is not None:
                    counted["lock"] = _storyloom("lock", TEAM, team_doc)
                _print_instructions(counted, env)
                if server is not None:
                    _run(_storyloom("unlock", TEAM, team_doc), env)
        finally:
            if server is not None:
                server.stop()
    reference = best.pop("python -c pass")
    cpu_reference = _cpu["python -c pass"]
    print(f"python -c pass: {reference * 1000:.1f} ms (CPU {cpu_reference * 1000:.1f} ms)")
    for name, seconds in best.items():
        print(f"storyloom {name}: {seconds * 1000:.1f} ms (CPU {_cpu[name] * 1000:.1f} ms, "
              f"{_cpu[name] / cpu_reference:.2f}x the reference's CPU)")
    if best_lock != float("inf"):
        print(f"storyloom lock (synced): {best_lock * 1000:.1f} ms (CPU {_cpu['lock'] * 1000:.1f} ms, "
              f"{_cpu['lock'] / cpu_reference:.2f}x the reference's CPU)")
    checks = [
        Check("--version / python -c pass", best["--version"] / reference, 8),
        Check("list / python -c pass", best["list"] / reference, 8),
        Check("doc get / python -c pass", best["doc get"] / reference, 10),
    ]
    if best_lock != float("inf"):
        checks.append(Check("lock on a synced project / python -c pass", best_lock / reference, 15))
    return verdict("CLI start-up", checks)


if __name__ == "__main__":
    sys.exit(main())
