"""What a Drafft user types to join a Storyloom team's database (``remote invite --for-drafft``).

Drafft (drafft.dev) syncs its PouchDB with a CouchDB database: in its Project Settings >
Remote Replication it takes the server URL, the database name and a user name and password
(its "advanced mode": the database and the user exist already, which ``remote invite`` made
sure of). Drafft writes a lock as ``locked: true, lockedBy: <its Options > Username>``, and the
server's lock rules accept a lock only in the name of the user who signs in, so that Drafft
user name must be the server user name, exactly (same case).
"""

from __future__ import annotations

from typing import Protocol

from storyloom.sync.cors import DRAFFT_EXAMPLE_ORIGIN


class InvitedUser(Protocol):
    """What :func:`drafft_instructions` needs of a :class:`~storyloom.sync.server_setup.Invitation`."""

    @property
    def username(self) -> str: ...

    @property
    def password(self) -> str | None: ...


def drafft_instructions(invitation: InvitedUser, *, server: str, database: str) -> str:
    """The text an owner hands to a Drafft teammate: the four values to type into Drafft and
    the Drafft user name to set so that its locks are accepted (``server`` without the
    database, as Drafft asks for them apart)."""
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
        "  3. Turn sync on. Drafft runs in a browser engine, so the server must allow its origin (CORS):",
        "     `storyloom remote check PROJECT` shows whether it does, and a server admin turns it on with",
        f"     `storyloom remote setup PROJECT --cors-origin ORIGIN` (for example {DRAFFT_EXAMPLE_ORIGIN};",
        "     see docs/sync.md, \"A mixed Storyloom and Drafft team\").",
    ])


__all__ = ["drafft_instructions"]
