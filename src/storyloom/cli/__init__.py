"""The ``storyloom`` command."""
