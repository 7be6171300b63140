"""What a Drafft user types to join a Storyloom team's database (``remote invite --for-drafft``).

Drafft (drafft.dev) syncs its PouchDB with a CouchDB database: in its Project Settings >
Remote Replication it takes the server URL, the database name and a user name and password
(its "advanced mode": the database and the user exist already, which ``remote invite`` made
sure of). Drafft writes a lock as ``locked: true, lockedBy: <its Options > Username>``, and the
server's lock rules accept a lock only in the name of the user who signs in, so that Drafft
user name must be the server user name, exactly (same case).
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from typing import Protocol

from storyloom.errors import Fix
from storyloom.sync.cors import DRAFFT_EXAMPLE_ORIGIN

#: How the owner makes sure the server allows a Drafft teammate's origin: check, then turn CORS on.
CORS_FIX = Fix("check_server", then=Fix("allow_origins", origins=("ORIGIN",)))


class InvitedUser(Protocol):
    """What :func:`drafft_instructions` needs of a :class:`~storyloom.sync.server_setup.Invitation`."""

    @property
    def username(self) -> str: ...

    @property
    def password(self) -> str | None: ...


def drafft_instructions(invitation: InvitedUser, *, server: str, database: str,
                        say: Callable[[Fix], str] = Fix.words) -> str:
    """The text an owner hands to a Drafft teammate: the four values to type into Drafft and
    the Drafft user name to set so that its locks are accepted (``server`` without the
    database, as Drafft asks for them apart). ``say`` words :data:`CORS_FIX` (the front end's
    explainer: the owner reads that part)."""
    user = invitation.username
    password = invitation.password if invitation.password is not None else \
        "(the one they already have: it was not changed)"
    return "\n".join([
        f"For {user} in Drafft:",
        f"  1. Options > Username: {user}",
        "     exactly the server user name, same case: the server accepts a lock only in the name of the user",
        "     who signs in, so a lock taken under any other name is refused",
        "  2. Open (or create) a project, then Project Settings > Remote Replication, advanced mode",
        "     (the database and the user exist already), and enter:",
        f"       Server URL:    {server.rstrip('/')}",
        f"       Database name: {database}",
        f"       Username:      {user}",
        f"       Password:      {password}",
        "  3. Turn sync on. Drafft runs in a browser engine, so the server must allow its origin (CORS,",
        f"     for example {DRAFFT_EXAMPLE_ORIGIN}):",
        textwrap.fill(say(CORS_FIX) + ".", width=100, initial_indent="     ", subsequent_indent="     ",
                      break_long_words=False, break_on_hyphens=False),
    ])


__all__ = ["CORS_FIX", "drafft_instructions"]
