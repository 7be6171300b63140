"""Storyloom: a narrative-design studio for game teams."""

__version__ = "0.1.0"
APP_NAME = "Storyloom"
