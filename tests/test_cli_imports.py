"""A command-line verb loads only what it uses: no web framework, no Qt, no progress-bar library
for the verbs a build script or a lock race calls, and no HTTP client unless it talks to a
server. Read from ``sys.modules`` of a real run of each verb."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.couch import couch, couch_server  # noqa: F401  (fixtures)

# The web framework and server, the GUI toolkit and the progress-bar libraries.
NEVER = ("fastapi", "starlette", "uvicorn", "anyio", "pydantic", "h11", "PySide6", "shiboken6", "tqdm")
# The HTTP client (and rich, which httpx's command line brings along).
HTTP = ("httpx", "httpcore", "rich")

_RUN = """
import json, sys
from storyloom.cli.main import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
# A module lazy_loader.load() set up but nothing has used is not loaded (still a _LazyModule).
# A None entry marks a module as not importable (Storyloom keeps httpx's command line out so).
names = [name for name, module in list(sys.modules.items())
         if module is not None and type(module).__name__ != "_LazyModule"]
json.dump({"code": code, "names": sorted(names)}, sys.stderr)
"""


def _modules(home: Path, *argv: str) -> tuple[int, set[str]]:
    """The exit code of ``storyloom ARGV`` and every module it loaded, by full name."""
    env = dict(os.environ, STORYLOOM_HOME=str(home))
    done = subprocess.run([sys.executable, "-c", _RUN, *argv], env=env, capture_output=True, text=True, timeout=120)
    report = json.loads(done.stderr.strip().splitlines()[-1])
    return report["code"], set(report["names"])


def _loaded(home: Path, *argv: str) -> tuple[int, set[str]]:
    """The exit code and the top-level packages loaded."""
    code, names = _modules(home, *argv)
    return code, {name.split(".")[0] for name in names}


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("home")
    env = dict(os.environ, STORYLOOM_HOME=str(home))
    subprocess.run([sys.executable, "-m", "storyloom", "new", "Saga"], env=env, check=True, capture_output=True,
                   timeout=120)
    return home


@pytest.mark.parametrize("argv", [
    ["--version"], ["--help"], ["list"], ["options"], ["options", "set", "username", "ada"],
])
def test_workspace_verbs_load_no_web_stack_and_no_http_client(home: Path, argv: list[str]) -> None:
    code, loaded = _loaded(home, *argv)
    assert code in (0, None)
    assert not loaded & set(NEVER + HTTP), f"storyloom {' '.join(argv)} loaded {sorted(loaded & set(NEVER + HTTP))}"


@pytest.mark.parametrize("argv", [
    ["check", "Saga"],
    ["doc", "get", "Saga", "ProjectSettings"],
    ["doc", "set", "Saga", "ProjectSettings", "projectDescription=A saga"],
    ["lock", "Saga", "ProjectSettings"],
    ["locks", "Saga"],
    ["unlock", "Saga", "ProjectSettings"],
])
def test_project_verbs_of_a_local_project_load_no_web_stack_and_no_http_client(home: Path, argv: list[str]) -> None:
    """The project has no remote: nothing talks to a server, so not even the HTTP client loads."""
    code, loaded = _loaded(home, *argv)
    assert code in (0, None), f"storyloom {' '.join(argv)} exited {code}"
    assert not loaded & set(NEVER + HTTP), f"storyloom {' '.join(argv)} loaded {sorted(loaded & set(NEVER + HTTP))}"


# What a read of one document never needs: the replicator, the locks' server side, the local
# API's controller and the property languages' parsers (yaml), each a noticeable part of a start.
NOT_FOR_A_READ = ("storyloom.sync.replicator", "storyloom.sync.remote", "storyloom.app.locks",
                  "storyloom.app.sync_service", "storyloom.api.controller", "yaml", "hjson")


@pytest.mark.parametrize("argv", [["list"], ["doc", "get", "Saga", "ProjectSettings"]])
def test_reading_verbs_load_no_sync_locks_api_or_property_parsers(home: Path, argv: list[str]) -> None:
    code, names = _modules(home, *argv)
    assert code in (0, None), f"storyloom {' '.join(argv)} exited {code}"
    assert not names & set(NOT_FOR_A_READ), f"storyloom {' '.join(argv)} loaded {sorted(names & set(NOT_FOR_A_READ))}"


def test_the_verb_table_names_exactly_what_each_module_registers() -> None:
    """A run registers only its own verb's module, found in VERB_MODULES: a verb added to a
    module but not to the table would be unknown on its own."""
    import argparse
    import importlib

    from storyloom.cli.main import VERB_MODULES, verb_modules

    registered: dict[str, str] = {}
    for name in verb_modules():
        subparsers = argparse.ArgumentParser().add_subparsers()
        importlib.import_module(f"storyloom.cli.{name}").register(subparsers)
        registered.update(dict.fromkeys(subparsers.choices, name))
    assert registered == VERB_MODULES


def test_a_verb_run_imports_no_other_verbs_module(home: Path) -> None:
    _, names = _modules(home, "doc", "get", "Saga", "ProjectSettings")
    verbs = {name.rsplit(".", 1)[-1] for name in names if name.startswith("storyloom.cli.verb_")}
    assert verbs == {"verb_doc", "verb_locks"}  # doc's module uses the locks' helpers



# What a verb that reads or locks a document never needs: the script parser and expression
# evaluator (a lock merges only line ids).
NOT_FOR_A_LOCK = ("storyloom.script.parser", "storyloom.script.expr")


@pytest.mark.parametrize("argv", [
    ["list"], ["doc", "get", "Saga", "ProjectSettings"], ["lock", "Saga", "ProjectSettings"],
    ["locks", "Saga"], ["unlock", "Saga", "ProjectSettings"],
])
def test_reading_and_locking_verbs_load_no_script_parser(home: Path, argv: list[str]) -> None:
    code, names = _modules(home, *argv)
    assert code in (0, None), f"storyloom {' '.join(argv)} exited {code}"
    assert not names & set(NOT_FOR_A_LOCK), f"storyloom {' '.join(argv)} loaded {sorted(names & set(NOT_FOR_A_LOCK))}"


def test_listing_projects_loads_no_platform_module(home: Path) -> None:
    """uuid loads the platform module; listing reads project ids and makes none (a verb that
    opens a store loads both anyway: orjson imports uuid)."""
    code, names = _modules(home, "list")
    assert code in (0, None)
    assert not names & {"uuid", "platform"}


@pytest.mark.integration
def test_locking_on_a_synced_project_talks_to_the_server_without_httpx(tmp_path: Path, couch: Any) -> None:  # noqa: F811
    """lock and unlock send their few requests on one http.client connection: httpx, httpcore
    and h11 (about ten times a bare interpreter's start) stay unloaded."""
    env = dict(os.environ, STORYLOOM_HOME=str(tmp_path), STORYLOOM_REMOTE_PASSWORD=couch.admin[1])

    def storyloom(*argv: str) -> None:
        subprocess.run([sys.executable, "-m", "storyloom", *argv], env=env, check=True, capture_output=True,
                       timeout=180)

    storyloom("new", "Team")
    storyloom("remote", "set", "Team", "--server", couch.url, "--username", couch.admin[0])
    storyloom("sync", "Team", "-q")
    for argv in (["lock", "Team", "ProjectSettings"], ["locks", "Team"], ["unlock", "Team", "ProjectSettings"]):
        code, names = _modules(tmp_path, *argv)
        assert code in (0, None), f"storyloom {' '.join(argv)} exited {code}"
        assert "storyloom.sync.one_connection" in names or argv[0] == "locks"
        assert not {name.split(".")[0] for name in names} & set(HTTP + NEVER), \
            f"storyloom {' '.join(argv)} loaded {sorted({n.split('.')[0] for n in names} & set(HTTP + NEVER))}"
