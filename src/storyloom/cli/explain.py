"""The command line's words for an error: its cause, then its fix as the command to run.

The one explainer of the ``storyloom`` command (``docs/errors.md``): :func:`say` turns an error
(or a notice, or anything with a ``cause`` and a ``fix``) into the line printed after
``storyloom: error:``; :func:`fix_words` says a :class:`~storyloom.errors.Fix` as a command line;
:func:`exit_code` is the exit status. The layers below raise facts and fixes, never a command
line: the commands are written here, and only here.
"""

from __future__ import annotations

import errno
import shlex
from collections.abc import Callable
from typing import Any

from storyloom.app.secrets import ADMIN_PASSWORD_ENV, PASSWORD_ENV
from storyloom.app.views.explain import join_command as command_line
from storyloom.errors import Fix, combine, joined

#: Exit codes by error code; any other error exits 1 (a verb's ``CliError`` carries its own).
EXIT_CODES: dict[str, int] = {"document_locked": 3, "lock_break_refused": 3,
                              "unknown_collections": 2, "unknown_export_locale": 2}  # 2: bad input
#: Where the docs tell a Drafft teammate's owner about CORS.
DRAFFT_DOCS = 'see docs/sync.md, "A mixed Storyloom and Drafft team"'


def _q(value: str) -> str:
    """A value as typed on a command line (placeholders such as ``PROJECT`` need no quotes)."""
    return shlex.quote(value)


def _project(fix: Fix) -> str:
    return _q(fix.text("project"))


def _user(fix: Fix, name: str = "username", placeholder: str = "USER") -> str:
    return _q(fix.text(name, placeholder))


def _remote_set(fix: Fix, rest: str = "...") -> str:
    return f"`storyloom remote set {_project(fix)} {rest}`"


def _setup(fix: Fix, admin: bool | str = False) -> str:
    who = "ADMIN" if admin is True else _q(admin) if isinstance(admin, str) else ""
    return f"`storyloom remote setup {_project(fix)}" + (f" --admin {who}`" if who else "`")


def _retype_credentials(fix: Fix) -> str:
    ask, user = fix.get("ask"), fix.get("username")
    asked = {"check": f"check the user name and password ({_remote_set(fix)})",
             "both": f"check both and set them again ({_remote_set(fix)})"}
    text = asked.get(str(ask)) or (f"check the user name and password: {_remote_set(fix, '--username USER')} asks "
                                   f"for the password again (or set {PASSWORD_ENV})")
    if user is not None and fix.get("setup_creates"):
        return f"{text}; if {user!r} does not exist on the server yet, run {_setup(fix, True)}, which creates it"
    return text + (f"; user {user!r} must exist on the server" if user is not None and ask is None else "")


def _run_setup(fix: Fix) -> str:
    admin = fix.get("admin")
    effect = {"create_user": ", which creates it", "record_owner": ", which records you as the owner"}
    return f"run {_setup(fix, admin if isinstance(admin, bool | str) else False)}" + \
        effect.get(str(fix.get("effect")), "")


def _database(fix: Fix) -> str:
    database = fix.get("database")
    return repr(database) if database else "the database"


def _allow_origins(fix: Fix) -> str:
    origins = fix.get("origins")
    flags = " ".join(f"--cors-origin {_q(origin)}" for origin in (origins if isinstance(origins, tuple) else ()))
    command = f"`storyloom remote setup {_project(fix)} {flags}`"
    requests = fix.get("requests")
    if isinstance(requests, tuple) and requests:
        asks = "run" if fix.get("admin") else "ask a server admin to run"
        return f"{asks} {command}, or: " + " ; ".join(requests)
    return f"run {command} with a server admin's credentials (Drafft's origin: {DRAFFT_DOCS})"


def _recover_damaged(fix: Fix) -> str:
    project = _project(fix)
    if fix.get("synced"):
        return (f"this machine's copy is damaged, not the server's: `storyloom check {project}` names every "
                f"damaged document; `storyloom salvage {project} NEWNAME` or joining the project again from the "
                "server gets the work back")
    back = (f"To get the work back: `storyloom backups {project}` lists the automatic backups "
            f"(`storyloom restore FILE --new-id` restores one); `storyloom salvage {project} NEWNAME` copies "
            "everything still readable into a new project; a project that syncs can be cloned again from its "
            "server (`storyloom clone`). The damaged project is left as it is.")
    return back if fix.get("checked") else f"`storyloom check {project}` names every damaged document. {back}"


def _accept_damaged(fix: Fix) -> str:
    verb = fix.text("verb", "import")
    them = "it as it is" if fix.get("count") == 1 else "them as they are"
    return f"{verb} another backup, or pass --accept-damaged to {verb} {them} (each is listed in a warning)"


def _use_other_database(fix: Fix) -> str:
    other = repr(fix.text("other", "the other project"))
    copy = f"an import of a backup of {other}" if fix.get("imported") else \
        f"join it with `storyloom clone`, or restore a backup of {other} with its project id"
    return ("sync this project with another database (a new or empty one, or one that already holds it: "
            f"{_remote_set(fix, '--database NAME')}), or, to work on {other}, start from a copy of it ({copy}) and "
            "sync that copy")


def _use_owner_user(fix: Fix) -> str:
    move = _remote_set(fix, f"--server {_q(fix.text('server', 'URL'))} --username YOURNAME --mode easy")
    return (f"move to an owner user of your own: {move}, then {_setup(fix, fix.text('admin_user', 'ADMIN'))} (it "
            "creates YOURNAME on the server and records you as the project's owner; the admin's password is asked "
            "for and not kept)")


def _json_list(fix: Fix) -> str:
    """The project's target locales with the one to add, as ``doc set`` takes a JSON list."""
    import json

    locales = fix.get("locales")
    listed = list(locales) if isinstance(locales, tuple) and locales else [fix.text("locale")]
    return json.dumps(listed, ensure_ascii=False, separators=(",", ":"))


#: Each fix action in the command line's words (the neutral ones say the same everywhere).
SAY: dict[str, Callable[[Fix], str]] = {
    "advice": Fix.own_words,
    "admin_requests": Fix.own_words,
    "raise_limit": Fix.own_words,
    "free_disk_space": Fix.own_words,
    "check_path": Fix.own_words,
    "set_remote": lambda f: "set one with " + _remote_set(
        f, f"--server {_q(f.text('server', 'URL'))} --username {_user(f)}"),
    "fix_remote": lambda f: f"fix the remote settings: {_remote_set(f)}",
    "use_server": lambda f: f"set the remote to {f.text('url')}: {_remote_set(f, '--server URL')}",
    "set_password": lambda f: (f"set it with {_remote_set(f, f'--server URL --username {_user(f)}')} (it asks for "
                               f"the password) or set {PASSWORD_ENV}"),
    "retype_credentials": _retype_credentials,
    "run_setup": _run_setup,
    "admin_or_advanced": lambda f: (f"either set the remote with an admin's user name, or use advanced mode "
                                    f"({_remote_set(f, '--mode advanced')}) and ask an admin to run the requests "
                                    f"that {_setup(f)} lists"),
    "give_admin": lambda f: (f"give its name with --admin ADMIN (the password comes from {ADMIN_PASSWORD_ENV} or a "
                             "prompt)" + ("; with --admin, set-up creates that user when it is absent"
                                          if f.get("creates_user") else "")),
    "create_database": lambda f: (f"ask a server admin to create {_database(f)} and add you to its members "
                                  f"({_setup(f)} with admin credentials does it), or check the database name"),
    "add_member": lambda f: (f"ask an admin of the server to add {f.text('username', 'your user')!r} to the members "
                             f"of {_database(f)} (`storyloom remote invite {_project(f)} {_user(f)}` in easy mode)"),
    "ask_owner_invite": lambda f: (f"ask the project's owner to invite you (`storyloom remote invite {_project(f)} "
                                   f"{_user(f)} --admin ADMIN`), which adds you and keeps every other member"),
    "reset_owner_password": lambda f: (f"type its password again ({_remote_set(f)}), or give it a new one with "
                                       f"`storyloom remote invite {_project(f)} {_user(f)} --reset-password "
                                       "--admin ADMIN`"),
    "use_owner_user": _use_owner_user,
    "allow_origins": _allow_origins,
    "check_server": lambda f: f"check it with `storyloom remote check {_project(f)}`",
    "measure_body_limit": lambda f: (f"measure what gets through with `storyloom remote check {_project(f)} "
                                     "--probe-body-limit`"),
    "upgrade_server": lambda f: ("upgrade or fix the server (a CouchDB keeps them; "
                                 f"`storyloom remote check {_project(f)}` tests it on the \"replicated writes\" "
                                 "line)"),
    "sync_again": lambda f: f"sync again (`storyloom sync {_project(f)}`)",
    "use_other_database": _use_other_database,
    "join_project": lambda f: f"join with `{command_line(f)}`",
    "owner_syncs": lambda f: ("ask them to sync it once (the app syncs by itself; on a terminal: "
                              "`storyloom sync PROJECT`), then join again"),
    "share_project": lambda f: ("to share one of your projects there instead, run `storyloom remote set PROJECT "
                                "--server ... --database ...` and `storyloom sync PROJECT`"),
    "import_drafft": lambda f: "import a Drafft backup instead (`storyloom import`)",
    "open_existing": lambda f: f"sync that one (`storyloom sync {_project(f)}`) instead of cloning it again",
    "other_name": lambda f: f"{f.text('verb', 'do')} it under another name (--name NAME)",
    "replace_file": lambda f: "pass --force to replace it, or choose another name",
    "restore_copy": lambda f: ("restore it as a copy with a new project id (--new-id) or delete the existing project "
                               "first"),
    "accept_damaged": _accept_damaged,
    "allow_skips": lambda f: ("fix them in the backup, or import everything else with --allow-skips (the report then "
                              "lists what was left out)"),
    "credentials_apart": lambda f: (
        "do not put the password in the URL (other users can see command lines); it is asked for, or read from "
        f"{PASSWORD_ENV}" if f.get("password_only") else
        "remove the user name and password from the URL; give the user name with --username and the password "
        f"through {PASSWORD_ENV} or the prompt"),
    "give_username": lambda f: "give the remote user name with --username",
    "recover_damaged": _recover_damaged,
    "see_log": lambda f: f"see the log; `storyloom sync {_project(f)}` tries again",
    "break_lock": lambda f: (f"ask {f.text('holder', 'them')} to unlock it, or break the lock "
                             f"(`storyloom unlock {_project(f)} {_q(f.text('doc_id', 'DOC_ID'))} --break`) if it is "
                             "stale"),
    "add_target_locale": lambda f: ("add it to the project's target locales: `storyloom doc set "
                                    f"{_project(f)} ProjectSettings {_q('targetLocales=' + _json_list(f))}`"),
    "give_locale": lambda f: f"give the file's locale with --locale {f.text('locale')}",
}


def fix_words(fix: Fix, *, project: str | None = None) -> str:
    """``fix`` as the command line says it; ``project`` fills in the project the fix did not name."""
    return combine(fix.filled(project=project), lambda step: SAY[step.action](step))


def say(item: Any, *, project: str | None = None) -> str:
    """What the command line prints for ``item``: an error, a notice or a report line (anything
    with ``cause`` and ``fix``) as its cause and then its fix; anything else as ``str``. A
    ``CliError`` that carries an error says that error."""
    inner = getattr(item, "error", None)
    if isinstance(inner, BaseException) and getattr(item, "code", None) == "command_failed":
        return say(inner, project=project)
    cause = getattr(item, "cause", None)
    fix = getattr(item, "fix", None)
    if not isinstance(cause, str):
        return str(item)
    if not isinstance(fix, Fix):
        return cause
    return joined(cause, fix_words(fix, project=project))


def exit_code(error: BaseException) -> int:
    """The exit status for ``error``: a verb's own (``CliError``, ``ConflictError``), or by code."""
    own = getattr(error, "exit_code", None)
    if isinstance(own, int):
        return own
    return EXIT_CODES.get(str(getattr(error, "code", "")), 1)


def os_error(exc: OSError) -> str:
    """What the command line says when the file system refused (a full disk, a path)."""
    reason = exc.strerror or str(exc)
    if exc.errno == errno.ENOSPC:
        where = f" holding {exc.filename}" if exc.filename else ""
        fix = Fix("free_disk_space", path=str(exc.filename) if exc.filename else None)
        return f"the disk{where} is full: nothing more was written; {fix_words(fix)}"
    if exc.filename:
        return f"cannot use {exc.filename}: {reason}; {fix_words(Fix('check_path', path=str(exc.filename)))}"
    return reason


__all__ = ["EXIT_CODES", "SAY", "command_line", "exit_code", "fix_words", "os_error", "say"]
