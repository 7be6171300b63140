"""One root for every error Storyloom raises on purpose, store errors for files that are not stores, and
errors as data: every class's code, a cause and a fix each front end says in its words, the tables of
docs/errors.md made from the code, and no command line below the front ends."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
import sqlite3
from pathlib import Path

import pytest
from tools import errors_table

import storyloom
from storyloom.api import errors as api_errors
from storyloom.app.remote import RemoteNotConfigured
from storyloom.app.views import explain as app_explain
from storyloom.cli import explain as cli_explain
from storyloom.errors import FIX_ACTIONS, Fix, StoryloomError
from storyloom.project.locks import LockRefused
from storyloom.store import Database, NotAStore, StoreError
from storyloom.store.errors import Damaged, DatabaseClosed, DiskFull

SRC = Path(storyloom.__file__).resolve().parent


def _error_classes() -> list[type[BaseException]]:
    found = []
    for info in pkgutil.walk_packages(storyloom.__path__, "storyloom."):
        if info.name.endswith("__main__") or info.name.startswith("storyloom.gui"):
            continue  # needs Qt; its errors are checked by the GUI suite
        module = importlib.import_module(info.name)
        for _, obj in inspect.getmembers(module, inspect.isclass):
            if obj.__module__ == info.name and issubclass(obj, BaseException) and not obj.__name__.startswith("_"):
                found.append(obj)
    return found


def test_every_public_error_class_derives_from_the_root() -> None:
    classes = _error_classes()
    assert len(classes) > 30  # the walk found the package's errors
    strays = sorted(f"{cls.__module__}.{cls.__qualname__}" for cls in classes if not issubclass(cls, StoryloomError))
    assert strays == []


def test_another_programs_sqlite_file_is_a_store_error_and_untouched(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    with pytest.raises(NotAStore, match="is not a Storyloom store") as info:
        Database(path)
    assert isinstance(info.value, StoreError) and isinstance(info.value, StoryloomError)
    assert path.read_bytes() == before


@pytest.mark.parametrize(
    ("content", "message"),
    [(b"plain text, long enough to be read as a header", "not an SQLite database"),
     (b"SQLite format 3\x00" + b"\xff" * 200, "is not a Storyloom store")],
)
def test_a_file_that_is_not_a_database_is_a_store_error(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "store.sqlite"
    path.write_bytes(content)
    with pytest.raises(NotAStore, match=message):
        Database(path)
    assert path.read_bytes() == content


def test_create_false_refuses_a_missing_or_empty_file(tmp_path: Path) -> None:
    with pytest.raises(NotAStore, match="no Storyloom store at"):
        Database(tmp_path / "missing.sqlite", create=False)
    assert not (tmp_path / "missing.sqlite").exists()
    (tmp_path / "empty.sqlite").write_bytes(b"")
    with pytest.raises(NotAStore, match="is empty"):
        Database(tmp_path / "empty.sqlite", create=False)
    made = Database(tmp_path / "made.sqlite")
    made.put({"_id": "a"})
    made.close()
    reopened = Database(tmp_path / "made.sqlite", create=False)
    assert reopened.get("a")["_id"] == "a"
    reopened.close()


# -- errors as data: code, cause and fix -------------------------------------------------------------

SNAKE = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")
#: The layers below the front ends: none writes a command line into what it says.
LOWER_LAYERS = ("store", "sync", "project", "export", "drafft")
#: A command of the ``storyloom`` command line, or one of its flags.
COMMAND = re.compile(r"`storyloom |\bstoryloom (remote|sync|check|salvage|backups?|restore|clone|import|export|schema|"
                     r"serve|options|lock|unlock|locks|doc|conflicts|resolve|app|project|dump) |(^|[\s(])--[a-z]")
#: Strings that name a command on purpose, and why.
NAMED_ON_PURPOSE = {
    # The server's own refusal, in the lock rules installed on it (any client, Drafft too, shows
    # it); changing its text makes every installed copy outdated.
    ("sync/lock_rules.py", "storyloom unlock --break"),
    # The body of the test document the write probe writes and removes (not said to anyone).
    ("sync/write_probe.py", "written and removed by storyloom remote check/setup"),
    # An import report's line for what the import was asked to leave out (the flag asked it).
    ("drafft/report.py", " [left out: --allow-skips]"),
}


def test_every_error_class_states_its_own_stable_code() -> None:
    classes = {cls for cls in _error_classes() if issubclass(cls, StoryloomError)} | {StoryloomError}
    unnamed = sorted(cls.__qualname__ for cls in classes if "code" not in vars(cls))
    assert unnamed == []
    bad = sorted(cls.code for cls in classes if not SNAKE.match(cls.code))
    assert bad == []
    codes = [cls.code for cls in classes]
    assert sorted(code for code in set(codes) if codes.count(code) > 1) == []


def test_an_error_carries_its_cause_and_fix_and_says_both_in_neutral_words() -> None:
    error = DiskFull("/home/ana/projects")
    assert error.code == "disk_full"
    assert error.cause == "the disk holding /home/ana/projects is full: the change was not saved"
    assert error.fix == Fix("free_disk_space", path="/home/ana/projects")
    assert str(error) == f"{error.cause}; free space and try again"
    plain = StoryloomError("something went wrong")
    assert (plain.cause, plain.fix, str(plain)) == ("something went wrong", None, "something went wrong")
    with pytest.raises(ValueError, match="no fix action"):
        Fix("reboot")
    with pytest.raises(ValueError, match="takes no"):
        Fix("run_setup", colour="red")


def test_a_fix_is_a_value_filled_in_by_the_front_end_and_chained() -> None:
    fix = Fix("upgrade_server", then=Fix("sync_again"))
    assert fix == Fix("upgrade_server", then=Fix("sync_again")) and hash(fix) == hash(Fix("upgrade_server",
                                                                                          then=Fix("sync_again")))
    filled = fix.filled(project="Saga", username="bea")
    assert filled.then is not None and filled.then.get("project") == "Saga" and filled.get("username") is None
    assert Fix("sync_again", project="Own").filled(project="Saga").get("project") == "Own"
    assert [step.action for step in filled.steps()] == ["upgrade_server", "sync_again"]
    assert fix.to_json() == {"action": "upgrade_server", "then": {"action": "sync_again"}}
    assert Fix("sync_again").words() == "sync again" and "PROJECT" in cli_explain.fix_words(Fix("sync_again"))


def test_each_front_end_says_every_fix_and_only_the_command_line_names_commands() -> None:
    assert set(cli_explain.SAY) == set(FIX_ACTIONS) == set(app_explain.SAY)
    for action in FIX_ACTIONS:
        flags = [p for p in FIX_ACTIONS[action].params if p in ("admin", "synced", "checked", "setup_creates",
                                                                 "creates_user", "password_only")]
        for variant in [{}, *({flag: True} for flag in flags)]:
            fix = errors_table.sample(action)
            fix = Fix(action, **{**fix.details, **variant})
            for on_page in (False, True):
                said = app_explain.fix_words(fix, on_page=on_page)
                assert said and not COMMAND.search(said), (action, said)
            assert cli_explain.fix_words(fix) and fix.words()
            assert not COMMAND.search(fix.words()), (action, fix.words())


def test_no_lower_layer_writes_a_command_line() -> None:
    found = []
    for layer in LOWER_LAYERS:
        for path in sorted((SRC / layer).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            # Docstrings, and the strings documenting a name, are never said to anyone.
            docstrings = {id(node.value) for node in ast.walk(tree)
                          if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)}
            for node in ast.walk(tree):
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings \
                        and COMMAND.search(node.value):
                    where = str(path.relative_to(SRC))
                    if not any(where == file and text in node.value for file, text in NAMED_ON_PURPOSE):
                        found.append(f"{where}:{node.lineno}: {node.value[:80]!r}")
    assert found == []


def test_the_codes_and_fixes_tables_of_docs_errors_md_are_made_from_the_code() -> None:
    doc = errors_table.DOC.read_text(encoding="utf-8")
    assert doc == errors_table.render(doc), "docs/errors.md is stale: run `python -m tools.errors_table --write`"
    for cls in errors_table.error_classes():
        assert f"| `{cls.code}` | `{cls.__name__}`" in doc


def test_the_command_line_says_an_error_with_its_fix_as_a_command_and_its_exit_code() -> None:
    error = RemoteNotConfigured("project 'Saga' has no remote on this machine", fix=Fix("set_remote", project="Saga"))
    assert cli_explain.say(error) == ("project 'Saga' has no remote on this machine; set one with "
                                      "`storyloom remote set Saga --server URL --username USER`")
    assert app_explain.say(error) == ("project 'Saga' has no remote on this machine; fill in Project Settings > "
                                      "Remote Replication and Save")
    assert cli_explain.fix_words(Fix("open_existing", project="Team Saga")).startswith(
        "sync that one (`storyloom sync 'Team Saga'`)")
    assert cli_explain.exit_code(LockRefused("d", "bea")) == 3 and cli_explain.exit_code(error) == 1
    from storyloom.cli.main import CliError

    wrapped = CliError(error, code=2)
    assert cli_explain.exit_code(wrapped) == 2 and cli_explain.say(wrapped) == cli_explain.say(error)


def test_the_api_answers_by_code_with_the_same_bytes() -> None:
    full = api_errors.api_error(DiskFull("/data"))
    assert (full.status, full.code, full.reason) == (507, "disk_full", "the disk holding /data is full: the change "
                                                     "was not saved; free space and try again")
    damaged = api_errors.api_error(Damaged("store.sqlite3", doc_id="a", detail="bad bytes"))
    assert (damaged.status, damaged.code, damaged.reason, damaged.extra) == (
        500, "damaged", "document 'a' in store.sqlite3 is damaged (bad bytes)", {"docId": "a"})
    closed = api_errors.api_error(DatabaseClosed())
    assert (closed.status, closed.code) == (503, "no_project")
    assert api_errors.api_error(NotAStore("x")).status == 400
