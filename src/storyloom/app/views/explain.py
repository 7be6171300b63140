"""The desktop app's words for an error: its cause, and its fix as the window, menu or button to
use. The one explainer of the app (``docs/errors.md``); the widgets show what it says.

:func:`say` is one line (``cause; fix``, for a banner after "Not saved:"); :func:`explain` is the
cause and what to do as two sentences, with the kind of trouble (``problem``) for a page that
reacts to it; :func:`fix_words` says a :class:`~storyloom.errors.Fix` alone. ``on_page`` says
the words are shown on Project Settings > Remote Replication itself, where the fields are
"above"; elsewhere the page is named.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from storyloom.errors import Fix, StoryloomError, advice, combine, joined

PAGE = "Project Settings > Remote Replication"
JOIN = "Join a project from a server…"

#: The kind of trouble, by error code, for a page that reacts to it (``Explanation.problem``).
PROBLEMS: dict[str, str] = {
    "project_mismatch": "identity",
    "remote_unauthorized": "credentials",
    "remote_forbidden": "membership",
    "database_missing": "database",
    "network_error": "network",
}
ACCESS_PROBLEMS: dict[str, str] = {"credentials": "credentials", "create": "database"}
#: The usual way out of an error that carries no fix of its own (the server's bare HTTP answers).
USUAL_FIXES: dict[str, Fix] = {
    "remote_unauthorized": Fix("retype_credentials"),
    "remote_forbidden": Fix("add_member"),
    "network_error": advice("check the server's address, that it runs, and the network"),
}


def sentence(text: str) -> str:
    """``text`` as a sentence: a capital first letter and a full stop."""
    text = text.strip()
    if not text:
        return text
    first = text.split(" ", 1)[0].rstrip(":;,.")
    if first.isalpha() and first.islower():  # not a name such as pouchdb-server or app_v2_story
        text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "!", "?", ":")) else text + "."


def join_command(fix: Fix) -> str:
    """The command a teammate types to join from a terminal (``join_project``): the one command
    line the app shows, in an invitation for someone who may not use the app; the command line's
    explainer says it the same way."""
    return f"storyloom clone {shlex.quote(fix.text('url'))} --username {shlex.quote(fix.text('username'))}"


def _where(on_page: bool) -> str:
    return "above" if on_page else f"in {PAGE}"


#: ``retype_credentials`` by what it asks (``ask``: check them, check both, or type them again).
RETYPE: dict[str | None, str] = {
    "check": "check the user name and password {where}",
    "both": "check both, type them again {where} and Save",
    None: "type the user name and password again {where}, then Save",
}


def _retype_credentials(fix: Fix, on_page: bool) -> str:
    ask = fix.get("ask")
    text = RETYPE.get(ask if isinstance(ask, str) else None, RETYPE[None]).format(where=_where(on_page))
    user = fix.get("username")
    if user is None or not fix.get("setup_creates"):
        return text
    return (f"{text}; if {user!r} does not exist on the server yet, press Set up, which creates it (it asks for a "
            "server admin's account)")


def _run_setup(fix: Fix, on_page: bool) -> str:
    press = "press Set up" if on_page else f"press Set up in {PAGE}"
    admin = " (it asks for a server admin's account)" if fix.get("admin") else ""
    effect = fix.get("effect")
    if effect == "create_user":
        return f"{press}, which creates it{admin}"
    if effect == "record_owner":
        return f"{press}{admin}, which records you as the owner"
    return press + admin


def _database(fix: Fix) -> str:
    database = fix.get("database")
    return repr(database) if database else "the database"


def _allow_origins(fix: Fix, on_page: bool) -> str:
    origins = fix.get("origins")
    named = ", ".join(origins) if isinstance(origins, tuple) and origins else "their origin"
    text = (f"type {named} under “Drafft teammates” {_where(on_page)} and press Set up with a server admin's "
            "account")
    requests = fix.get("requests")
    if isinstance(requests, tuple) and requests:
        text += ", or ask a server admin to run: " + " ; ".join(requests)
    return text


def _recover_damaged(fix: Fix, on_page: bool) -> str:
    ways = ("the project list offers the ways back: salvage what still reads into a new project, restore the "
            "newest automatic backup (Automatic backups…), or join the project again from its server")
    return f"this machine's copy is damaged, not the server's: {ways}" if fix.get("synced") else ways


def _other_name(fix: Fix, on_page: bool) -> str:
    verb = fix.text("verb", "do")
    return "join it under another name (the Name field)" if verb == "clone" else f"{verb} it under another name"


#: Each fix action in the app's words (the neutral ones say the same everywhere).
SAY: dict[str, Callable[[Fix, bool], str]] = {
    "advice": lambda f, _p: f.own_words(),
    "admin_requests": lambda f, _p: f.own_words(),
    "raise_limit": lambda f, _p: f.own_words(),
    "free_disk_space": lambda f, _p: f.own_words(),
    "check_path": lambda f, _p: f.own_words(),
    "set_remote": lambda f, p: "fill in the fields above and Save" if p else f"fill in {PAGE} and Save",
    "fix_remote": lambda f, p: f"fix the remote settings {_where(p)} and Save",
    "use_server": lambda f, p: f"set the server to {f.text('url')} {_where(p)} and Save",
    "set_password": lambda f, p: "type it in the Password field and Save" + ("" if p else f" ({PAGE})"),
    "retype_credentials": _retype_credentials,
    "run_setup": _run_setup,
    "admin_or_advanced": lambda f, _p: ("sign in with a server admin's user name and password, or choose Advanced "
                                        "mode"),
    "give_admin": lambda f, _p: "type it in the dialog" + (
        "; with an admin's account, Set up creates that user when it is absent; if it exists, check its password "
        "above" if f.get("creates_user") else ""),
    "create_database": lambda f, _p: "press Set up with a server admin's account, or ask an admin to create it",
    "add_member": lambda f, _p: (f"ask a server admin to add {f.text('username', 'your user')!r} to the members of "
                                 f"{_database(f)} (in easy mode: Invite teammate…)"),
    "ask_owner_invite": lambda f, _p: ("ask the project's owner to invite you (Invite teammate…), which adds you "
                                       "and keeps every other member"),
    "reset_owner_password": lambda f, p: (f"type its password again ({_where(p)}, then Save), or give it a new one "
                                          "with Invite teammate… with “Give an existing account a new password”"),
    "use_owner_user": lambda f, p: (f"move to an owner user of your own: type your own user name and a password "
                                    f"{_where(p)}, Save, then press Set up with the admin's account (it creates your "
                                    "user and records you as the project's owner; the admin's password is not kept)"),
    "allow_origins": _allow_origins,
    "check_server": lambda f, p: "press Check server" + ("" if p else f" in {PAGE}"),
    "measure_body_limit": lambda f, _p: "tick “Measure the body limit” and check again to measure what gets through",
    "upgrade_server": lambda f, _p: "upgrade or fix the server (a CouchDB keeps them; Check server tests it)",
    "sync_again": lambda f, _p: "sync again (Sync now)",
    "use_other_database": lambda f, _p: (
        f"choose another database name for “{f.text('project', 'this project')}” (a new or empty one), or join "
        f"{f.text('other', 'the other project')!r} from the project list ({JOIN})"),
    "join_project": lambda f, _p: f"in Storyloom: Projects › {JOIN}",
    "owner_syncs": lambda f, _p: "ask them to sync it once (the app syncs by itself), then join again",
    "share_project": lambda f, _p: f"to share one of your projects there instead, open it and fill in {PAGE}",
    "import_drafft": lambda f, _p: "import a Drafft backup instead (Import Drafft backup…)",
    "open_existing": lambda f, _p: "open that one from the project list: it syncs with this server",
    "other_name": _other_name,
    "replace_file": lambda f, _p: "replace it, or choose another name",
    "restore_copy": lambda f, _p: "restore it as a copy (a new project id), or delete the existing project first",
    "accept_damaged": lambda f, _p: (f"{f.text('verb', 'import')} another backup, or {f.text('verb', 'import')} "
                                     f"{'it as it is' if f.get('count') == 1 else 'them as they are'} anyway"),
    "allow_skips": lambda f, _p: ("fix them in the backup, or import everything else (the report then lists what "
                                  "was left out)"),
    "credentials_apart": lambda f, _p: (
        "remove the password from the URL and type it in the Password field" if f.get("password_only") else
        "remove the user name and password from the URL and type them in the User name and Password fields"),
    "give_username": lambda f, _p: "type the user name",
    "recover_damaged": _recover_damaged,
    "see_log": lambda f, _p: "see the log; Sync now tries again",
    "break_lock": lambda f, _p: (f"ask {f.text('holder', 'them')} to unlock it, or break the lock (Break lock…) if "
                                 "it is stale"),
    "add_target_locale": lambda f, _p: (f"add {f.text('locale')} to the target locales in Project Settings > "
                                        "Localization and Save"),
    "give_locale": lambda f, _p: f"choose {f.text('locale')} as the language of the import",
}


def fix_words(fix: Fix, *, project: str = "", on_page: bool = False, **known: str | None) -> str:
    """``fix`` in the app's words; ``project`` (and ``known``: ``username``, ``database``) fill in
    what the fix did not name."""
    return combine(fix.filled(project=project or None, **known), lambda step: SAY[step.action](step, on_page))


def fix_of(item: Any) -> Fix | None:
    """``item``'s fix, or the usual one of its code (by its class or a parent's)."""
    fix = getattr(item, "fix", None)
    if isinstance(fix, Fix):
        return fix
    for cls in type(item).__mro__:
        usual = USUAL_FIXES.get(getattr(cls, "code", ""))
        if usual is not None:
            return usual
    return None


@dataclass(frozen=True)
class Explanation:
    """A failure as the app shows it: what happened, what to do about it, and the kind of
    trouble (``identity``, ``credentials``, ``membership``, ``database``, ``network``, ``other``
    or ``internal``: a bug)."""

    cause: str
    todo: str = ""
    problem: str = "other"

    def to_text(self) -> str:
        return f"{self.cause} {self.todo}".strip()


def problem_of(item: Any) -> str:
    """The kind of trouble ``item`` is (see :class:`Explanation`)."""
    if not isinstance(item, StoryloomError):
        return "internal"
    if getattr(item, "code", "") == "access_denied":
        return ACCESS_PROBLEMS.get(str(getattr(item, "action", "")), "membership")
    for cls in type(item).__mro__:
        problem = PROBLEMS.get(getattr(cls, "code", ""))
        if problem is not None:
            return problem
    return "other"


def explain(item: Any, *, project: str = "", on_page: bool = False, **known: str | None) -> Explanation:
    """``item`` (an error, a notice: anything with a ``cause`` and a ``fix``) as the cause and
    what to do, each a sentence; an unexpected exception is a bug and says so. ``known`` fills in
    what the fix did not name (``username``, ``database``)."""
    cause = getattr(item, "cause", None)
    if not isinstance(cause, str):
        if isinstance(item, BaseException):
            return Explanation(f"An internal error stopped it ({type(item).__name__}: {item}).",
                               "This is a bug; please report it.", "internal")
        return Explanation(sentence(str(item)))
    fix = fix_of(item)
    todo = sentence(fix_words(fix, project=project, on_page=on_page, **known)) if fix is not None else ""
    return Explanation(sentence(cause), todo, problem_of(item))


def say(item: Any, *, project: str = "", on_page: bool = False) -> str:
    """``item`` in one line of the app's words: its cause, then its fix (``str`` for anything
    without a ``cause``)."""
    cause = getattr(item, "cause", None)
    if not isinstance(cause, str):
        return str(item)
    fix = getattr(item, "fix", None)
    if not isinstance(fix, Fix):
        return cause
    return joined(cause, fix_words(fix, project=project, on_page=on_page))


__all__ = ["Explanation", "explain", "fix_of", "fix_words", "join_command", "problem_of", "say", "sentence"]
