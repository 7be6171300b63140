"""The PySide6 desktop app: the only package that imports Qt.

It sits on the Qt-free ``storyloom.app`` layer (``Workspace``, ``ProjectSession``): widgets show
state and send intents; every rule lives below. ``application`` starts the app, ``theme`` and
``icons`` give every window the same look, ``project_manager`` lists the projects, and
``main_window`` shows one open project. (The screenshots of every window are rendered by the
repository's ``tools/screenshots``, not by this package.)
"""
