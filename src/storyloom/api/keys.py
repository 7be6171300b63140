"""API keys: one recipe for a strong random key (the app options' Generate button uses it too),
and the one rule every key source is held to (the options, ``$STORYLOOM_API_KEY``, a key file,
the Options dialog, and the server at start).
"""

from __future__ import annotations

# A shorter key can be guessed by a client trying keys (a local program, or a LAN peer when
# the server listens beyond loopback); a generated key has 43 characters.
MIN_API_KEY_LENGTH = 16
GENERATE_KEY_COMMAND = "storyloom options set api.key new"


def generate_api_key() -> str:
    """A strong random API key: ``secrets.token_urlsafe(32)`` (256 bits)."""
    import secrets  # here: a quick CLI verb that only reads the options never makes a key

    return secrets.token_urlsafe(32)


def api_key_problem(key: str, source: str = "the API key") -> str | None:
    """Why ``key`` cannot serve as an API key (a sentence naming ``source`` and how to get a
    good key), or ``None`` when it can. The key itself is never part of the sentence."""
    length = len(key.strip())
    if length >= MIN_API_KEY_LENGTH:
        return None
    return (
        f"{source} is too short ({length} character{'' if length == 1 else 's'}): an API key needs at least "
        f"{MIN_API_KEY_LENGTH} characters, so that it cannot be guessed. Generate a strong random "
        f"key with `{GENERATE_KEY_COMMAND}` (or Generate in the app's Options)"
    )
