"""One root for every error Storyloom raises on purpose, and store errors for files that are not stores."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
import sqlite3
from pathlib import Path

import pytest

import storyloom
from storyloom.errors import StoryloomError
from storyloom.store import Database, NotAStore, StoreError


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


def test_every_error_class_states_its_own_stable_code() -> None:
    classes = {cls for cls in _error_classes() if issubclass(cls, StoryloomError)} | {StoryloomError}
    unnamed = sorted(cls.__qualname__ for cls in classes if "code" not in vars(cls))
    assert unnamed == []
    bad = sorted(cls.code for cls in classes if not re.match(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$", cls.code))
    assert bad == []
    codes = [cls.code for cls in classes]
    assert sorted(code for code in set(codes) if codes.count(code) > 1) == []
