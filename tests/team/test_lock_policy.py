"""TeamLocks, the lock rules the editor gate asks before every write (no server)."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest

from storyloom.project.checking import ValidationError
from storyloom.project.collections import SETTINGS_ID
from storyloom.project.editor import Editor, WriteIntent
from storyloom.project.locks import (
    LockRefused,
    LockStateError,
    NoLocks,
    TeamLocks,
    apply_lock_fields,
    free_fields,
    lock_info,
    locked_fields,
)
from storyloom.project.settings import (
    default_settings,
    require_lock_to_edit,
    settings_problems,
    stale_lock_minutes,
)
from storyloom.store import Database

SINCE = "2024-05-01T10:00:00.000Z"


class Team:
    """One store; ``as_user(name)`` is an editor whose lock holder is ``name``."""

    def __init__(self) -> None:
        self.db = Database(":memory:")
        self.auto_locked: list[tuple[str, str]] = []
        self.require = False
        admin = Editor(self.db, username="setup")
        admin.create_settings(default_settings("Team"))
        self.folder = admin.create("Folder", "Act 1", collection="Script").id
        self.script = admin.create("Script", "Intro", parent=self.folder).id
        self.other = admin.create("Script", "Outro").id

    def as_user(self, name: str) -> Editor:
        policy = TeamLocks(lambda: name, lambda: self.require, clock=lambda: "2024-05-02T09:00:00.000Z",
                           on_auto_lock=lambda doc_id, at: self.auto_locked.append((doc_id, at)))
        return Editor(self.db, username=name, lock_policy=policy)

    def lock_as(self, name: str, doc_id: str, since: str = SINCE) -> None:
        doc = copy.deepcopy(self.db.get(doc_id))
        apply_lock_fields(doc, locked_fields(name, since))
        self.as_user(name).update(doc, intent=WriteIntent.LOCK)


@pytest.fixture
def team() -> Iterator[Team]:
    t = Team()
    yield t
    t.db.close()


def _refused(exc: pytest.ExceptionInfo[LockRefused], holder: str = "alice") -> None:
    assert exc.value.holder == holder
    assert holder in str(exc.value) and SINCE in str(exc.value)


@pytest.mark.parametrize("write", ["update", "patch", "rename", "move", "delete", "write_many", "delete_folder"])
def test_every_write_path_is_refused_when_another_holds_the_lock(team: Team, write: str) -> None:
    team.lock_as("alice", team.script)
    bob = team.as_user("bob")
    before = team.db.get(team.script)["_rev"]
    doc = team.db.get(team.script)
    doc["content"]["script"] = "bob's line"
    actions: dict[str, Any] = {
        "update": lambda: bob.update(doc),
        "patch": lambda: bob.patch(team.script, {"alias": "b"}),
        "rename": lambda: bob.rename(team.script, "Bob's intro"),
        "move": lambda: bob.move(team.script, None),
        "delete": lambda: bob.delete(team.script),
        "write_many": lambda: bob.write_many([doc], WriteIntent.UPDATE),
        "delete_folder": lambda: bob.delete(team.folder, recursive=True),
    }
    with pytest.raises(LockRefused) as exc:
        actions[write]()
    _refused(exc)
    assert team.db.get(team.script)["_rev"] == before
    assert team.db.get(team.folder)  # a refused recursive delete deletes nothing


def test_settings_locked_by_another_are_refused(team: Team) -> None:
    team.lock_as("alice", SETTINGS_ID)
    with pytest.raises(LockRefused) as exc:
        team.as_user("bob").update_settings({"projectDescription": "bob's"})
    _refused(exc)


def test_the_holder_edits_freely_even_an_old_lock(team: Team) -> None:
    team.lock_as("alice", team.script, since="2001-01-01T00:00:00.000Z")
    alice = team.as_user("alice")
    result = alice.patch(team.script, {"alias": "mine"})
    assert lock_info(result.doc).holder == "alice"
    alice.rename(team.script, "Alice's intro")
    alice.move(team.script, None)


def test_lock_fields_change_only_with_lock_intents(team: Team) -> None:
    bob = team.as_user("bob")
    with pytest.raises(ValidationError, match="locked"):
        bob.patch(team.script, {"locked": True, "lockedBy": "bob"})
    team.lock_as("bob", team.script)
    with pytest.raises(ValidationError, match="lock"):
        bob.patch(team.script, {"locked": False})
    with pytest.raises(LockStateError):  # a lock intent must lock in the holder's own name
        doc = team.db.get(team.script)
        apply_lock_fields(doc, locked_fields("carol", SINCE))
        bob.update(doc, intent=WriteIntent.LOCK)
    with pytest.raises(ValidationError):  # nobody creates a document locked in another's name
        bob.create("Script", "New", lockedBy="alice", locked=True)


def test_lock_intents_do_not_stamp(team: Team) -> None:
    before = team.db.get(team.script)
    team.lock_as("alice", team.script)
    after = team.db.get(team.script)
    assert (after["modified"], after["modifiedBy"]) == (before["modified"], before["modifiedBy"])


def test_break_needs_another_holder_and_changes_only_the_lock(team: Team) -> None:
    team.lock_as("alice", team.script)
    bob = team.as_user("bob")
    doc = team.db.get(team.script)
    apply_lock_fields(doc, free_fields(), broken={"by": "bob", "holder": "alice", "since": SINCE, "at": "x"})
    sneaky = copy.deepcopy(doc)
    sneaky["content"]["script"] = "changed while breaking"
    with pytest.raises(LockRefused):
        bob.update(sneaky, intent=WriteIntent.BREAK_LOCK)
    bob.update(doc, intent=WriteIntent.BREAK_LOCK)
    assert lock_info(team.db.get(team.script)) is None
    assert team.db.get(team.script)["lockBroken"]["by"] == "bob"
    # breaking your own lock is a misuse; so is breaking a free document
    team.lock_as("bob", team.script)
    mine = team.db.get(team.script)
    apply_lock_fields(mine, free_fields(), broken={"by": "bob", "holder": "bob", "since": SINCE, "at": "x"})
    with pytest.raises(LockStateError, match="unlock it instead"):
        bob.update(mine, intent=WriteIntent.BREAK_LOCK)
    other = team.db.get(team.other)
    apply_lock_fields(other, free_fields(), broken={"by": "bob", "holder": "x", "since": None, "at": "x"})
    with pytest.raises(LockStateError, match="not locked"):
        bob.update(other, intent=WriteIntent.BREAK_LOCK)


def test_auto_lock_takes_a_free_document_in_the_same_revision(team: Team) -> None:
    team.require = True
    bob = team.as_user("bob")
    result = bob.patch(team.script, {"alias": "b"})
    assert lock_info(result.doc).holder == "bob"
    assert team.auto_locked == [(team.script, "2024-05-02T09:00:00.000Z")]
    assert lock_info(team.db.get(team.script)).holder == "bob"
    # a second edit does not lock again; settings, folders and moves are not auto-locked
    bob.patch(team.script, {"alias": "c"})
    bob.update_settings({"projectDescription": "d"})
    bob.rename(team.folder, "Act one")
    bob.move(team.other, team.folder)
    assert team.auto_locked == [(team.script, "2024-05-02T09:00:00.000Z")]
    assert lock_info(team.db.get(SETTINGS_ID)) is None and lock_info(team.db.get(team.other)) is None
    # and a document another holds is still refused
    with pytest.raises(LockRefused):
        team.as_user("alice").patch(team.script, {"alias": "a"})


def test_no_auto_lock_without_require_lock(team: Team) -> None:
    team.as_user("bob").patch(team.script, {"alias": "b"})
    assert lock_info(team.db.get(team.script)) is None and team.auto_locked == []


def test_write_on_a_conflict_leaf_is_checked_against_that_leaf(team: Team) -> None:
    base = team.db.get(team.script)
    # alice's lock on one branch, a free edit on another (as replication would bring them)
    team.lock_as("alice", team.script)
    free = copy.deepcopy(base)
    free["alias"] = "other branch"
    free["_rev"] = "2-" + "0" * 32  # loses to alice's revision: hers is the winner
    free["_revisions"] = {"start": 2, "ids": ["0" * 32, base["_rev"].split("-")[1]]}
    team.db.bulk_docs([free], new_edits=False)
    leaves = [e["ok"] for e in team.db.get(team.script, open_revs="all")]
    free_leaf = next(leaf for leaf in leaves if lock_info(leaf) is None)
    winner = team.db.get(team.script)
    bob = team.as_user("bob")
    free_leaf["alias"] = "bob on the free branch"
    assert lock_info(winner).holder == "alice"
    with pytest.raises(LockRefused):
        bob.update(dict(winner, alias="no"))
    result = bob.update(free_leaf)  # its parent is free, as the server would see it
    assert result.rev.startswith("3-")


def test_no_locks_and_imports_are_not_checked(team: Team) -> None:
    team.lock_as("alice", team.script)
    assert NoLocks().check_write({}, "update", None, "x") is None
    doc = team.db.get(team.script)
    team.as_user("bob").write_local({"_id": "_local/bob-notes", "n": 1})
    TeamLocks(lambda: "bob", lambda: True).check_write(doc, "import", None, "bob")


def test_require_lock_setting() -> None:
    settings = default_settings("P")
    assert require_lock_to_edit(settings, remote_enabled=True) is True
    assert require_lock_to_edit(settings, remote_enabled=False) is False
    settings["requireLockToEdit"] = False
    assert require_lock_to_edit(settings, remote_enabled=True) is False
    assert settings_problems(settings) == []
    settings["requireLockToEdit"] = "yes"
    assert [field for field, _, _ in settings_problems(settings)] == ["requireLockToEdit"]


@pytest.mark.parametrize(("value", "valid"), [
    (240, True), (1, True), (43_200, True), (0, False), (43_201, False), (-5, False), (30.5, False),
    ("240", False), (True, False), (None, False),
])
def test_stale_lock_setting(value: object, valid: bool) -> None:
    settings = default_settings("P")
    assert stale_lock_minutes(settings) == 240  # absent: the default
    settings["staleLockMinutes"] = value
    assert [field for field, _, _ in settings_problems(settings)] == ([] if valid else ["staleLockMinutes"])
    assert stale_lock_minutes(settings) == (value if valid else 240)


def test_the_settings_and_the_lock_rules_agree_on_the_stale_time() -> None:
    from storyloom.project import settings
    from storyloom.sync import lock_rules

    for name in ("DEFAULT_STALE_LOCK_MINUTES", "MIN_STALE_LOCK_MINUTES", "MAX_STALE_LOCK_MINUTES"):
        assert getattr(settings, name) == getattr(lock_rules, name), name
