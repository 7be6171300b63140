"""API keys: one recipe for a strong random key (the app options' Generate button uses it too)."""

from __future__ import annotations

import secrets


def generate_api_key() -> str:
    """A strong random API key: ``secrets.token_urlsafe(32)`` (256 bits)."""
    return secrets.token_urlsafe(32)
