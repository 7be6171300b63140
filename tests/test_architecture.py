"""The layer rules of docs/architecture.md, read from the code's imports
(and no module imports the repository's own folders: ``bench``, ``tests``, ``tools``; the
packages in :data:`ACYCLIC` have no import circle).

Every ``import`` counts, including the ones inside functions (a lazy import is still a
dependency). A failure names the module, the line and the rule it breaks.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "storyloom"

#: Layers from the bottom up, and the storyloom layers each may import (besides itself and the
#: shared modules). Kept in step with the picture in docs/architecture.md.
ALLOWED: dict[str, set[str]] = {
    "store": set(),
    "script": set(),
    "sync": {"store"},
    "project": {"store", "script"},
    "l10n": {"store", "script", "project"},
    "export": {"store", "script", "project", "l10n"},
    "drafft": {"store", "script", "project"},
    "api": {"store", "script", "project", "l10n", "export"},
    "play": {"store", "script", "project"},
    "outputs": {"script"},
    "app": {"store", "script", "sync", "project", "l10n", "export", "drafft", "api", "play", "outputs"},
    "gui": {"store", "script", "sync", "project", "l10n", "export", "drafft", "api", "play", "outputs", "app"},
    # The command line runs no workflow of its own: every verb parses its arguments, calls the
    # session layer and prints, so it imports none of store, sync or export (the errors it
    # catches come through storyloom.app.terms).
    "cli": {"script", "project", "l10n", "drafft", "api", "play", "app", "gui"},
    "__main__": {"cli"},
}
#: Why a layer may not import what it may not, where the layer table alone does not say it.
WHY: dict[str, str] = {
    "cli": "a verb parses its arguments, calls the session layer (storyloom.app) and prints",
}
#: Parts of a layer that the rest of the layer may not import: the app's view models stand on its
#: session core, never the other way round.
UPPER_PARTS: dict[str, set[str]] = {"app": {"views"}}
#: Top-level modules every layer may use (they import no layer themselves).
SHARED = {"paths", "errors", "diagnostics", "progress", "collector", "output_files", "words", "__init__"}
#: Third-party frameworks and the only layers that may import them.
FRAMEWORKS: dict[str, set[str]] = {
    "PySide6": {"gui"},
    "shiboken6": {"gui"},
    "qtawesome": {"gui"},
    "superqt": {"gui"},
    "fastapi": {"api"},
    "starlette": {"api"},
    "uvicorn": {"api"},
    "httpx": {"sync"},
    "docx": {"outputs"},
    "markdown_it": {"outputs"},
}
#: The repository's own folders: an installed Storyloom has none of them, so no module imports them.
REPOSITORY_FOLDERS = {"bench", "tests", "tools"}
#: Layers with a face (``__init__.pyi``): the other layers import its names from the package, or a
#: public module the face names (``from . import maps as maps``), never a module behind it.
FACED = ("project", "export")


def _modules() -> list[Path]:
    return sorted(SRC.rglob("*.py"))


def _layer(path: Path, root: Path) -> str:
    rel = path.relative_to(root)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


@functools.cache
def _import_nodes(path: Path) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement of a module, nested ones too (read once for all the checks here;
    imports are statements, so expressions are not walked)."""
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(statements: list[ast.AST]) -> None:
        for node in statements:
            if isinstance(node, ast.Import | ast.ImportFrom):
                found.append(node)
            for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                children = getattr(node, field, None)
                if isinstance(children, list):
                    visit(children)

    visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)).body)
    return found


def _imports(path: Path) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for node in _import_nodes(path):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif node.module and node.level == 0:
            found.append((node.lineno, node.module))
    return found


def layer_violations(paths: list[Path], root: Path = SRC) -> list[str]:
    """Every import that breaks a rule, as ``file:line: why`` (``root`` is the package folder)."""
    problems: list[str] = []
    for path in paths:
        layer = _layer(path, root)
        where = path.relative_to(root.parent)
        for line, module in _imports(path):
            top = module.split(".")[0]
            if top == "storyloom":
                parts = module.split(".")
                if len(parts) < 2:
                    continue
                target = parts[1]
                if target == layer:
                    upper = parts[2] if len(parts) > 2 else None
                    inside = path.relative_to(root).parts[1] if len(path.relative_to(root).parts) > 2 else None
                    if upper in UPPER_PARTS.get(layer, ()) and inside != upper:
                        problems.append(f"{where}:{line}: {layer!r} imports its own upper part "
                                        f"{layer}.{upper} ({module})")
                    continue
                if target in SHARED:
                    continue
                if layer in SHARED:
                    problems.append(f"{where}:{line}: the shared module {layer!r} imports the layer {target!r}")
                elif layer not in ALLOWED:
                    problems.append(f"{where}:{line}: {layer!r} is not a layer of docs/architecture.md")
                elif target not in ALLOWED[layer]:
                    why = f": {WHY[layer]}" if layer in WHY else ""
                    problems.append(f"{where}:{line}: {layer!r} may not import {target!r} ({module}){why}")
            elif top in FRAMEWORKS and layer not in FRAMEWORKS[top]:
                problems.append(f"{where}:{line}: {top} belongs to {sorted(FRAMEWORKS[top])}, not {layer!r}")
            elif top in REPOSITORY_FOLDERS:
                problems.append(f"{where}:{line}: imports the repository's {top}/ ({module}), "
                                "which an installed Storyloom does not have")
    return problems


def face(layer: str, root: Path = SRC) -> tuple[set[str], set[str]]:
    """The names and the public modules ``storyloom.<layer>``'s face (``__init__.pyi``) states."""
    names: set[str] = set()
    modules: set[str] = set()
    for node in ast.parse((root / layer / "__init__.pyi").read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ImportFrom):
            (names if node.module else modules).update(alias.name for alias in node.names)
    return names, modules


def face_violations(paths: list[Path], root: Path = SRC) -> list[str]:
    """Every import of a faced layer, from another layer, that goes behind its face."""
    problems: list[str] = []
    faces = {layer: face(layer, root) for layer in FACED if (root / layer / "__init__.pyi").exists()}
    for path in paths:
        layer = _layer(path, root)
        where = path.relative_to(root.parent)
        for node in _import_nodes(path):
            if not (isinstance(node, ast.ImportFrom) and node.module and node.level == 0):
                continue
            parts = node.module.split(".")
            if parts[0] != "storyloom" or len(parts) < 2 or parts[1] not in faces or parts[1] == layer:
                continue
            names, modules = faces[parts[1]]
            if len(parts) == 2:
                unknown = sorted(a.name for a in node.names if a.name not in names | modules)
                if unknown:
                    problems.append(f"{where}:{node.lineno}: {', '.join(unknown)} not on the face of "
                                    f"storyloom.{parts[1]} (add it to its __init__.pyi)")
            elif len(parts) > 3 or parts[2] not in modules:
                problems.append(f"{where}:{node.lineno}: imports {node.module}, behind the face of "
                                f"storyloom.{parts[1]} (import from storyloom.{parts[1]})")
    return problems


def test_other_layers_import_a_faced_layer_through_its_face() -> None:
    assert face_violations(_modules()) == []


def test_every_name_on_a_face_exists() -> None:
    import importlib

    for layer in FACED:
        package = importlib.import_module(f"storyloom.{layer}")
        names, modules = face(layer)
        assert sorted(package.__all__) == sorted(names | modules)
        missing = [name for name in sorted(names | modules) if not hasattr(package, name)]
        assert missing == [], f"storyloom.{layer}'s face names what its modules do not have: {missing}"


def test_the_face_check_catches_an_import_behind_the_face(tmp_path: Path) -> None:
    root = tmp_path / "storyloom"
    (root / "project").mkdir(parents=True)
    (root / "project" / "__init__.pyi").write_text("from .manager import ProjectManager as ProjectManager\n"
                                                  "from . import maps as maps\n", encoding="utf-8")
    fake = root / "gui" / "_not_a_module.py"
    fake.parent.mkdir()
    fake.write_text("from storyloom.project import ProjectManager, maps\n"
                    "from storyloom.project.maps import paint\n"
                    "from storyloom.project.locks import lock_info\n"
                    "from storyloom.project import Editor\n", encoding="utf-8")
    assert face_violations([fake], root) == [
        "storyloom/gui/_not_a_module.py:3: imports storyloom.project.locks, behind the face of "
        "storyloom.project (import from storyloom.project)",
        "storyloom/gui/_not_a_module.py:4: Editor not on the face of storyloom.project (add it to its __init__.pyi)",
    ]


def test_every_layer_imports_only_the_layers_below_it() -> None:
    assert layer_violations(_modules()) == []


def test_the_rule_check_catches_an_upward_import(tmp_path: Path) -> None:
    # A store module that imports the project layer lazily, and a project module that imports Qt.
    root = tmp_path / "storyloom"
    fake = root / "store" / "_not_a_module.py"
    fake_gui = root / "project" / "_not_a_module.py"
    for path in (fake, fake_gui):
        path.parent.mkdir(parents=True)
    fake.write_text("def f():\n    from storyloom.project import manager\n", encoding="utf-8")
    fake_gui.write_text("import PySide6.QtCore\n", encoding="utf-8")
    problems = layer_violations([fake, fake_gui], root)
    assert problems == [
        "storyloom/store/_not_a_module.py:2: 'store' may not import 'project' (storyloom.project)",
        "storyloom/project/_not_a_module.py:1: PySide6 belongs to ['gui'], not 'project'",
    ]


def test_the_rule_check_catches_the_app_core_importing_its_views(tmp_path: Path) -> None:
    root = tmp_path / "storyloom"
    core = root / "app" / "_not_a_module.py"
    view = root / "app" / "views" / "_not_a_module.py"
    view.parent.mkdir(parents=True)
    core.write_text("from storyloom.app.views.search import SearchResults\n", encoding="utf-8")
    view.write_text("from storyloom.app.views import outline\nfrom storyloom.app.locks import LockService\n",
                    encoding="utf-8")
    assert layer_violations([core, view], root) == [
        "storyloom/app/_not_a_module.py:1: 'app' imports its own upper part app.views "
        "(storyloom.app.views.search)",
    ]


def test_the_rule_check_catches_the_cli_running_a_workflow_of_its_own(tmp_path: Path) -> None:
    # A verb that replicates, reads the store or exports by itself, lazily too; the session layer,
    # the project's face and the shared modules are what it may use.
    root = tmp_path / "storyloom"
    fake = root / "cli" / "verb_not_a_verb.py"
    fake.parent.mkdir(parents=True)
    fake.write_text("from storyloom.app.terms import NotFound\nfrom storyloom.project import list_conflicts\n"
                    "from storyloom.output_files import OutputError\n\n\n"
                    "def run(args):\n    from storyloom.sync import push\n    import storyloom.store.database\n"
                    "    from storyloom.export.stream import stream_schema\n", encoding="utf-8")
    why = "a verb parses its arguments, calls the session layer (storyloom.app) and prints"
    assert layer_violations([fake], root) == [
        f"storyloom/cli/verb_not_a_verb.py:7: 'cli' may not import 'sync' (storyloom.sync): {why}",
        f"storyloom/cli/verb_not_a_verb.py:8: 'cli' may not import 'store' (storyloom.store.database): {why}",
        f"storyloom/cli/verb_not_a_verb.py:9: 'cli' may not import 'export' (storyloom.export.stream): {why}",
    ]


def test_the_rule_check_catches_an_import_of_the_repositorys_folders(tmp_path: Path) -> None:
    # The package imports bench/, tests/ or tools/ (lazily too): fine in a checkout, broken installed.
    root = tmp_path / "storyloom"
    fake = root / "gui" / "_not_a_module.py"
    fake.parent.mkdir(parents=True)
    fake.write_text("import tools.screenshots\nfrom tests.support import couch\n\n\n"
                    "def f():\n    from bench.peers import CouchServer\n", encoding="utf-8")
    problems = layer_violations([fake], root)
    assert problems == [
        "storyloom/gui/_not_a_module.py:1: imports the repository's tools/ (tools.screenshots), "
        "which an installed Storyloom does not have",
        "storyloom/gui/_not_a_module.py:2: imports the repository's tests/ (tests.support), "
        "which an installed Storyloom does not have",
        "storyloom/gui/_not_a_module.py:6: imports the repository's bench/ (bench.peers), "
        "which an installed Storyloom does not have",
    ]


# ---------------------------------------------------------------------------------- import circles
#: Packages that must have no import circle among their modules.
ACYCLIC = ("gui",)


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(paths: list[Path], root: Path = SRC) -> dict[str, set[str]]:
    """Which of ``paths`` each one imports: every ``import`` statement counts, at module level,
    inside functions and under ``if TYPE_CHECKING:`` alike. An import names the module, a module
    ``from`` a package names as well, and each package above the module named that Python runs
    on the way (but not the importer's own packages, which are already running)."""
    modules = {_module_name(path, root): path for path in paths}
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in _import_nodes(path):
            named: list[str] = []
            if isinstance(node, ast.Import):
                named = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, *([base] if base else [])])
                named = [base, *(f"{base}.{alias.name}" for alias in node.names)]
            for target in named:
                parts = target.split(".")
                for end in range(len(parts), 0, -1):
                    above = ".".join(parts[:end])
                    if above in modules and above != name and not name.startswith(above + "."):
                        graph[name].add(above)
    return graph


def import_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, without
    recursion), each sorted, the largest first."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    circles.append(sorted(component))
    return sorted(circles, key=lambda c: (-len(c), c))


@pytest.mark.parametrize("package", ACYCLIC)
def test_no_import_circle(package: str) -> None:
    circles = import_circles(import_graph(sorted((SRC / package).rglob("*.py"))))
    assert circles == [], "import circles (a module reaches itself through its imports; pass what a " \
                          "module needs in, behind a Protocol, rather than importing it back):\n" + \
                          "\n".join(f"{len(c)}: {', '.join(c)}" for c in circles)


def test_the_circle_check_catches_a_circle(tmp_path: Path) -> None:
    # A panel that imports the window lazily, under TYPE_CHECKING, through a package, or relatively.
    root = tmp_path / "storyloom"
    files = {
        "gui/__init__.py": "",
        "gui/window.py": "from storyloom.gui.panels import search\n",
        "gui/panels/__init__.py": "from storyloom.gui.panels.search import SearchPanel\n",
        "gui/panels/search.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                "    from storyloom.gui.window import Window\n",
        "gui/a.py": "def f():\n    from storyloom.gui import b\n",
        "gui/b.py": "from . import a\n",
        "gui/panels/alone.py": "from storyloom.gui.panels import search\n",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    graph = import_graph(sorted(root.rglob("*.py")), root)
    assert graph["storyloom.gui.panels.alone"] == {"storyloom.gui.panels.search"}  # its own package runs
    assert import_circles(graph) == [
        ["storyloom.gui.panels", "storyloom.gui.panels.search", "storyloom.gui.window"],
        ["storyloom.gui.a", "storyloom.gui.b"],
    ]


def test_only_the_project_manager_opens_a_main_window() -> None:
    # Panels reach their window through storyloom.gui.host.WindowHost, never by importing it.
    graph = import_graph(sorted((SRC / "gui").rglob("*.py")))
    importers = sorted(name for name, targets in graph.items() if "storyloom.gui.main_window" in targets)
    assert importers == ["storyloom.gui.project_manager"]
