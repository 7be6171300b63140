"""Where remote settings and passwords live: the ``_local`` document never leaves the machine (no
``/db-dump``, export or backup), passwords are in a 0600 file (or the keyring), never printed; a
pulled ``_design/storyloom`` is harmless locally."""

from __future__ import annotations

import json
import logging
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from storyloom.app.remote import PasswordMissing, RemoteAccess, RemoteNotConfigured, build_settings
from storyloom.app.secrets import PasswordStore, PasswordStoreError, password_key, resolve_password
from storyloom.app.views.problems import ProjectProblems
from storyloom.cli.explain import say as cli_say
from storyloom.export.game_export import build_game_export
from storyloom.project.manager import Project, ProjectManager
from storyloom.project.remote_settings import (
    REMOTE_SETTINGS_ID,
    RemoteSettings,
    clear_remote_settings,
    load_remote_settings,
    save_remote_settings,
)
from storyloom.project.sample import create_sample_project
from storyloom.sync.server_setup import LOCK_DESIGN_DOC, LOCK_DESIGN_ID
from tests.api.support import running_server

SECRET = "s3cret-Pa55word-never-shown"
SETTINGS = RemoteSettings(True, "https://couch.example.com", "app_v2_sample", "alice", "advanced", 12.5, True)


@pytest.fixture
def project(storyloom_home: Path) -> Iterator[Project]:
    manager = ProjectManager(username="tester")
    with create_sample_project(manager, "Sample") as opened:
        yield opened


# -- the _local document -------------------------------------------------------------------------


def test_settings_round_trip_in_the_local_document(project: Project) -> None:
    assert load_remote_settings(project.store) is None
    save_remote_settings(project.store, SETTINGS)
    assert load_remote_settings(project.store) == SETTINGS
    assert load_remote_settings(project.db) == SETTINGS  # the read view reads it too
    changed = RemoteSettings(True, "https://other.example.com/couch", "team/x", "bob")
    save_remote_settings(project.store, changed)
    assert load_remote_settings(project.store) == changed
    assert changed.database_url == "https://other.example.com/couch/team%2Fx"
    clear_remote_settings(project.store)
    clear_remote_settings(project.store)  # nothing to clear: no error
    assert load_remote_settings(project.store) is None


def test_a_damaged_settings_document_reads_as_none(project: Project) -> None:
    project.store.put_local({"_id": REMOTE_SETTINGS_ID, "server": "https://h", "mode": "weird"})
    assert load_remote_settings(project.store) is None


def test_the_settings_never_reach_dump_export_or_backup(project: Project, tmp_path: Path) -> None:
    save_remote_settings(project.store, SETTINGS)
    needles = ("storyloom-remote", "couch.example.com", "app_v2_sample")

    rows = project.db.all_docs(include_docs=True)["rows"]
    assert not [r for r in rows if r["id"].startswith("_local/")]
    assert project.db.changes()["results"] and all(
        not r["id"].startswith("_local/") for r in project.db.changes()["results"]
    )

    export = json.dumps(build_game_export(project))
    backup = ProjectManager(username="tester").backup(project, tmp_path / "backup.json").read_text()
    with running_server(project) as api:
        dump = api.get("/db-dump").text
        assert api.get("/db-dump").status_code == 200
    for text in (export, backup, dump):
        for needle in needles:
            assert needle not in text

    # A restore of that backup has no remote: the settings belong to this machine's copy only.
    restored = ProjectManager(username="tester").restore(tmp_path / "backup.json", name="Restored", new_id=True)
    with restored:
        assert load_remote_settings(restored.store) is None


def test_a_pulled_lock_design_document_is_harmless_locally(project: Project, tmp_path: Path) -> None:
    """``_design/storyloom`` arrives by pull: not in the tree, the index, the problems, the export;
    ``/db-dump`` stays CouchDB's ``_all_docs`` (which lists design documents); a backup restores
    without it; edits still work."""
    before_export = build_game_export(project)
    design = {**LOCK_DESIGN_DOC, "_rev": "1-0123456789abcdef0123456789abcdef"}
    assert project.store.bulk_docs([design], new_edits=False) == []
    assert project.db.get(LOCK_DESIGN_ID)["version"] == LOCK_DESIGN_DOC["version"]

    index = project.editor.index
    assert index is None or index.get(LOCK_DESIGN_ID) is None
    if index is not None:
        assert LOCK_DESIGN_ID not in {s.id for s in index.summaries()}
    problems = ProjectProblems(project.db, index)
    assert [p for p in problems.rebuild() if p.doc_id == LOCK_DESIGN_ID] == []
    assert build_game_export(project)["_meta"].keys() == before_export["_meta"].keys()
    export_text = json.dumps(build_game_export(project))
    assert "validate_doc_update" not in export_text and LOCK_DESIGN_ID not in export_text

    with running_server(project) as api:
        ids = [row["id"] for row in api.get("/db-dump").json()["rows"]]
    assert LOCK_DESIGN_ID in ids  # as CouchDB's _all_docs: the dump's meaning is unchanged

    file = ProjectManager(username="tester").backup(project, tmp_path / "b.json")
    with ProjectManager(username="tester").restore(file, name="Copy", new_id=True) as copy:
        assert copy.db.all_docs(key=LOCK_DESIGN_ID)["rows"] == []

    # The editor still writes documents (uniqueness checks read every document, the design one too).
    settings = project.settings()
    project.editor.update_settings({"projectDescription": "still editable"})
    assert project.settings()["_rev"] != settings["_rev"]


# -- passwords -----------------------------------------------------------------------------------


def test_the_file_store_is_private_and_round_trips(tmp_path: Path) -> None:
    store = PasswordStore(tmp_path / "config", backend="file")
    assert not store.uses_keyring and store.backend_name == f"file ({tmp_path / 'config' / 'remote-passwords.json'})"
    key = password_key("pid", "https://h", "alice")
    assert store.get(key) is None and store.where(key) is None
    store.set(key, SECRET)
    store.set("other", "x")
    assert store.get(key) == SECRET
    assert stat.S_IMODE(store.file_path.stat().st_mode) == 0o600
    assert store.where(key) == store.backend_name
    store.delete(key)
    store.delete(key)  # nothing kept: no error
    assert store.get(key) is None and store.get("other") == "x"
    assert stat.S_IMODE(store.file_path.stat().st_mode) == 0o600
    assert SECRET not in repr(store)
    assert not list(store.file_path.parent.glob("*.tmp"))


def test_the_default_file_is_in_the_per_machine_config_dir(storyloom_home: Path) -> None:
    store = PasswordStore()
    assert store.file_path == storyloom_home / "config" / "remote-passwords.json"
    assert not store.uses_keyring  # the suite forces the file (STORYLOOM_PASSWORD_STORE=file)


def test_backend_choice_is_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(PasswordStoreError, match="unknown password store 'vault'"):
        PasswordStore(tmp_path, backend="vault")
    monkeypatch.setattr("storyloom.app.secrets.usable_keyring", lambda: None)
    with pytest.raises(PasswordStoreError, match="no OS keyring"):
        PasswordStore(tmp_path, backend="keyring")
    assert not PasswordStore(tmp_path, backend="auto").uses_keyring  # falls back to the file


def test_a_keyring_backend_is_used_when_one_exists(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    class MemoryKeyring:
        name = "Memory"

        def __init__(self) -> None:
            self.kept: dict[tuple[str, str], str] = {}

        def get_password(self, service: str, key: str) -> str | None:
            return self.kept.get((service, key))

        def set_password(self, service: str, key: str, password: str) -> None:
            self.kept[(service, key)] = password

        def delete_password(self, service: str, key: str) -> None:
            del self.kept[(service, key)]

    ring = MemoryKeyring()
    monkeypatch.setattr("storyloom.app.secrets.usable_keyring", lambda: ring)
    store = PasswordStore(tmp_path, backend="auto")
    assert store.uses_keyring and store.backend_name == "keyring (Memory)"
    store.set("k", SECRET)
    assert ring.kept == {("storyloom", "k"): SECRET}
    assert not store.file_path.exists()  # nothing in the file
    assert store.get("k") == SECRET and store.where("k") == "keyring (Memory)"
    store.delete("k")
    assert ring.kept == {} and store.get("k") is None


def test_the_real_keyring_check_refuses_the_fail_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    import keyring
    from keyring.backends import fail

    from storyloom.app.secrets import usable_keyring

    monkeypatch.setattr(keyring, "get_keyring", lambda: fail.Keyring())
    assert usable_keyring() is None


def test_the_environment_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = PasswordStore(tmp_path, backend="file")
    store.set("k", "kept")
    assert resolve_password(store, "k") == "kept"
    monkeypatch.setenv("STORYLOOM_REMOTE_PASSWORD", "from-env")
    assert resolve_password(store, "k") == "from-env"
    assert resolve_password(None, "k") == "from-env"


def test_remote_access(project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                       caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    passwords = PasswordStore(tmp_path, backend="file")
    access = RemoteAccess(project, passwords)
    assert access.settings is None and not access.configured and access.username is None
    assert access.password() is None
    with pytest.raises(RemoteNotConfigured) as unset:
        access.open()
    assert "storyloom remote set Sample --server URL --username USER" in cli_say(unset.value)  # the CLI's words

    settings, _ = build_settings(project.name, server="http://127.0.0.1:5984", username="alice")
    access.save(settings)
    assert access.configured and access.username == "alice"
    with pytest.raises(PasswordMissing, match="STORYLOOM_REMOTE_PASSWORD"):
        access.open()
    access.save(settings, SECRET)
    assert access.password() == SECRET
    assert passwords.get(password_key(project.id, "http://127.0.0.1:5984", "alice")) == SECRET
    assert "kept in the file" in access.password_source()
    with access.open(timeout=1.0) as remote:
        assert remote.db_url == "http://127.0.0.1:5984/app_v2_sample" and remote.username == "alice"
        assert SECRET not in repr(remote)

    # Another user: the old password cannot be right any more and is forgotten.
    bob, _ = build_settings(project.name, server="http://127.0.0.1:5984", username="bob")
    access.save(bob, "bob-pw")
    assert passwords.get(password_key(project.id, "http://127.0.0.1:5984", "alice")) is None
    monkeypatch.setenv("STORYLOOM_REMOTE_PASSWORD", "env-pw")
    assert access.password() == "env-pw" and "STORYLOOM_REMOTE_PASSWORD" in access.password_source()

    disabled = RemoteSettings(False, bob.server, bob.database, bob.username)
    save_remote_settings(project.store, disabled)
    assert not access.configured and access.username is None

    assert access.clear() and not access.clear()
    assert access.settings is None
    assert passwords.get(password_key(project.id, "http://127.0.0.1:5984", "bob")) is None
    assert SECRET not in caplog.text and "bob-pw" not in caplog.text
