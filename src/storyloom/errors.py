"""The root of every error Storyloom raises on purpose, and its parts as data.

Each layer's errors derive from :class:`StoryloomError`, so a caller that shows errors to a
person (the CLI, the desktop app, the local API) catches this one class: anything else is a bug
and keeps its traceback. An error carries:

- ``code``: a stable snake_case name of its class (``disk_full``, ``project_mismatch``), for
  programs; every class states its own, and ``docs/errors.md`` lists them all;
- ``cause``: what was wrong, in a plain sentence without advice;
- ``fix``: the way out as a value (a :class:`Fix`: an action and the facts it needs), or None.

A layer never writes the words of a front end: no command line, no menu path. Each front end
says a fix in its own words through its one explainer (``storyloom.cli.explain`` for the
command line, ``storyloom.app.views.explain`` for the desktop app, ``storyloom.api.errors`` for
the local API). ``str(error)`` is the cause followed by the fix in neutral words
(:meth:`Fix.words`), which is what a log shows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Union

#: A fix's detail: a fact the front ends need to say it (a project's name, a user name, the
#: requests an admin runs), or another fix (``then``, ``otherwise``).
FixDetail = Union[str, int, bool, tuple[str, ...], "Fix", None]

#: Details every fix may carry: a step after it, and another way out.
COMBINERS = ("then", "otherwise")


@dataclass(frozen=True)
class FixAction:
    """One way out: the details it takes and its neutral words (a template over the details, a
    missing one read as its placeholder in capitals, ``PROJECT``; or a function of the fix)."""

    name: str
    params: tuple[str, ...]
    words: str | Callable[[Fix], str]


def _admin_requests(fix: Fix) -> str:
    """The requests a server admin runs: the same words in every front end."""
    requests = fix.get("requests")
    listed = tuple(requests) if isinstance(requests, tuple) else ()
    purpose = fix.get("purpose")
    if purpose == "add_member":
        return "ask an admin to add you and keep the other members: " + " && ".join(listed)
    if purpose == "cors":
        return ("ask a server admin to run (keeping the origins already allowed in the origins request):\n  "
                + "\n  ".join(listed))
    return "ask an admin to run: " + " ; ".join(listed)


def _raise_limit(fix: Fix) -> str:
    size = fix.get("size")
    return (f"raise {fix.text('setting')} above {size if size is not None else 'its size'} bytes on the server, "
            "or make the document smaller")


def _actions(*actions: FixAction) -> dict[str, FixAction]:
    return {action.name: action for action in actions}


#: Every way out an error (or a report line) may name. The explainers say each in a front end's
#: words; ``docs/errors.md`` shows them side by side (``tests/test_errors.py`` keeps it true).
FIX_ACTIONS: dict[str, FixAction] = _actions(
    FixAction("advice", ("text",), "{text}"),
    FixAction("admin_requests", ("requests", "purpose"), _admin_requests),
    FixAction("set_remote", ("project", "server", "username"),
              "set the project's remote: its server, user name and password"),
    FixAction("fix_remote", ("project",), "fix the project's remote settings"),
    FixAction("use_server", ("project", "url"), "set the project's server to {url}"),
    FixAction("set_password", ("project", "username"),
              "give the password of the remote user again (or set STORYLOOM_REMOTE_PASSWORD)"),
    FixAction("retype_credentials", ("project", "username", "setup_creates", "ask"),
              "check the user name and password and give them again"),
    FixAction("run_setup", ("project", "admin", "effect"), "run the team set-up"),
    FixAction("admin_or_advanced", ("project",),
              "sign in as a server admin, or use advanced mode and ask an admin to run the set-up's requests"),
    FixAction("give_admin", ("creates_user",), "give a server admin's user name and password for this"),
    FixAction("create_database", ("project", "database"),
              "ask a server admin to create the database {database} and add you to its members"),
    FixAction("add_member", ("project", "username", "database"),
              "ask a server admin to add {username} to the members of {database}"),
    FixAction("ask_owner_invite", ("project", "username"), "ask the project's owner to invite you"),
    FixAction("reset_owner_password", ("project", "username"),
              "give the password of {username} again, or give the account a new one"),
    FixAction("use_owner_user", ("project", "server", "admin_user"),
              "sync as an owner user of your own instead of the server admin {admin_user}"),
    FixAction("allow_origins", ("project", "origins", "admin", "requests"),
              "turn CORS on for {origins} on the server"),
    FixAction("check_server", ("project",), "check the server"),
    FixAction("measure_body_limit", ("project",), "measure the server's body limit"),
    FixAction("upgrade_server", ("project",),
              "upgrade or fix the server (a CouchDB keeps replicated writes)"),
    FixAction("sync_again", ("project",), "sync again"),
    FixAction("raise_limit", ("setting", "size"), _raise_limit),
    FixAction("use_other_database", ("project", "other", "imported"),
              "use another database for this project, or join the project {other}"),
    FixAction("join_project", ("url", "username"), "join the project at {url} as {username}"),
    FixAction("owner_syncs", ("project",), "ask the project's owner to sync it once, then join again"),
    FixAction("share_project", ("project",), "share a project of yours there instead"),
    FixAction("import_drafft", (), "import a Drafft backup instead"),
    FixAction("open_existing", ("project",), "sync the project {project} instead of joining it again"),
    FixAction("other_name", ("verb",), "{verb} it under another name"),
    FixAction("replace_file", ("path",), "replace it, or choose another name"),
    FixAction("restore_copy", (), "restore it as a copy with a new project id, or delete the existing project first"),
    FixAction("accept_damaged", ("verb", "count"),
              "{verb} another backup, or accept the damaged attachments as they are (each is listed in a warning)"),
    FixAction("allow_skips", (), "fix them in the backup, or import everything else (the report then lists what "
              "was left out)"),
    FixAction("credentials_apart", ("password_only",),
              "remove the user name and password from the URL and give them apart from it"),
    FixAction("give_username", (), "give the remote user name"),
    FixAction("recover_damaged", ("project", "synced", "checked"),
              "get the work back from a backup, a salvage or the team's server"),
    FixAction("free_disk_space", ("path",), "free space and try again"),
    FixAction("check_path", ("path",), "check the path and its permissions"),
    FixAction("see_log", ("project",), "see the log and try again"),
    FixAction("break_lock", ("project", "doc_id", "holder"),
              "ask {holder} to unlock it, or break the lock if it is stale"),
    FixAction("add_target_locale", ("project", "locale", "locales"),
              "add {locale} to the project's target locales in its settings"),
    FixAction("give_locale", ("locale",), "import it as {locale}"),
)


def _placeholder(name: str) -> str:
    return name.upper()


class Fix:
    """A way out of an error, as a value: ``action`` (a name of :data:`FIX_ACTIONS`) and the
    facts it needs (``project``, ``username``, ``requests``...), plus optionally ``then`` (a
    step after it) and ``otherwise`` (another way out), both fixes. A detail left out (or None)
    is one the raiser did not know; a front end fills in what it knows (:meth:`filled`: the
    CLI knows the project it was given) or says a placeholder (``PROJECT``)."""

    __slots__ = ("_details", "action")

    action: str
    _details: tuple[tuple[str, FixDetail], ...]

    def __init__(self, action: str, /, **details: FixDetail) -> None:
        known = FIX_ACTIONS.get(action)
        if known is None:
            raise ValueError(f"no fix action {action!r}: see storyloom.errors.FIX_ACTIONS")
        unknown = sorted(set(details) - set(known.params) - set(COMBINERS))
        if unknown:
            raise ValueError(f"the fix {action!r} takes no {', '.join(unknown)}")
        object.__setattr__(self, "action", action)
        object.__setattr__(self, "_details", tuple(sorted((k, v) for k, v in details.items() if v is not None)))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("a Fix is immutable")

    def get(self, name: str, default: FixDetail = None) -> FixDetail:
        """A detail, or ``default`` when the raiser did not give it."""
        for key, value in self._details:
            if key == name:
                return value
        return default

    def text(self, name: str, default: str | None = None) -> str:
        """A detail as text (its placeholder, ``PROJECT``, when missing and no ``default``)."""
        value = self.get(name)
        if value is None or value is False:
            return _placeholder(name) if default is None else default
        if isinstance(value, tuple):
            return " ".join(value)
        return str(value)

    @property
    def details(self) -> Mapping[str, FixDetail]:
        return dict(self._details)

    @property
    def then(self) -> Fix | None:
        value = self.get("then")
        return value if isinstance(value, Fix) else None

    @property
    def otherwise(self) -> Fix | None:
        value = self.get("otherwise")
        return value if isinstance(value, Fix) else None

    def filled(self, **context: FixDetail) -> Fix:
        """This fix with the details it lacks taken from ``context`` (those its action takes),
        and so its ``then`` and ``otherwise``."""
        params = FIX_ACTIONS[self.action].params
        details = dict(self._details)
        for key, value in context.items():
            if key in params and details.get(key) is None and value is not None:
                details[key] = value
        for key in COMBINERS:
            inner = details.get(key)
            if isinstance(inner, Fix):
                details[key] = inner.filled(**context)
        return Fix(self.action, **details)

    def steps(self) -> Iterator[Fix]:
        """This fix and each ``then`` after it."""
        step: Fix | None = self
        while step is not None:
            yield step
            step = step.then

    def own_words(self) -> str:
        """The action alone in neutral words (without ``otherwise`` and ``then``)."""
        words = FIX_ACTIONS[self.action].words
        if callable(words):
            return words(self)
        return words.format_map({name: self.text(name) for name in FIX_ACTIONS[self.action].params})

    def words(self) -> str:
        """The fix in neutral words (for a log, ``str(error)``, the API): see :func:`combine`."""
        return combine(self, Fix.own_words)

    def to_json(self) -> dict[str, object]:
        """``{"action": ..., details...}`` (a nested fix as its own JSON)."""
        data: dict[str, object] = {"action": self.action}
        for key, value in self._details:
            data[key] = value.to_json() if isinstance(value, Fix) else list(value) if isinstance(value, tuple) \
                else value
        return data

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Fix) and (self.action, self._details) == (other.action, other._details)

    def __hash__(self) -> int:
        return hash((self.action, self._details))

    def __repr__(self) -> str:
        args = "".join(f", {key}={value!r}" for key, value in self._details)
        return f"Fix({self.action!r}{args})"

    def __str__(self) -> str:
        return self.words()


def joined(cause: str, fix_text: str) -> str:
    """A cause and its fix in one text: ``cause; fix``, or, after a cause of several lines (a
    listing), the fix as a sentence on a line of its own."""
    if "\n" not in cause:
        return f"{cause}; {fix_text}"
    return f"{cause}\n{fix_text[:1].upper()}{fix_text[1:]}" + ("" if fix_text.endswith(".") else ".")


def combine(fix: Fix, say: Callable[[Fix], str]) -> str:
    """``fix`` in a front end's words: ``say`` of the action, then ``, or`` its ``otherwise`` and
    ``; then`` its ``then`` (each said the same way). Every explainer composes through it."""
    text = say(fix)
    if fix.otherwise is not None:
        text += ", or " + combine(fix.otherwise, say)
    if fix.then is not None:
        text += "; then " + combine(fix.then, say)
    return text


class StoryloomError(Exception):
    """An error meant for a person: ``cause`` says what was wrong, ``fix`` the way out (or None);
    ``code`` names the class for programs.

    ``StoryloomError(message)`` keeps the message as the cause; ``StoryloomError(cause,
    fix=Fix(...))`` adds the way out, said in neutral words by ``str(error)``; ``cause=`` sets
    a shorter cause than the message. Every subclass states its own ``code`` and, in ``fixes``,
    the actions its fix may name (``docs/errors.md`` is made from both)."""

    code: str = "storyloom_error"
    #: The fix actions this class's errors may carry (checked when one is made).
    fixes: tuple[str, ...] = ()

    def __init__(self, message: str = "", *args: object, cause: str | None = None, fix: Fix | None = None) -> None:
        assert fix is None or fix.action in type(self).fixes, (  # a programming error, found by the tests
            f"{type(self).__name__} does not list the fix {fix.action!r} in its fixes")
        self.cause = message if cause is None else cause
        self.fix = fix
        super().__init__(message if fix is None else joined(message, fix.words()), *args)


def advice(text: str, **more: FixDetail) -> Fix:
    """A way out in words that read the same in every front end (a server setting to change, the
    request an admin runs, "check again"); never a front end's command or menu."""
    return Fix("advice", text=text, **more)


@dataclass(frozen=True)
class Notice:
    """Something a person should know that is not an error (a set-up's notice, once per machine):
    a ``cause`` and a ``fix`` as an error has them, said by the same explainers."""

    cause: str
    fix: Fix | None = None

    def __str__(self) -> str:
        return self.cause if self.fix is None else joined(self.cause, self.fix.words())
