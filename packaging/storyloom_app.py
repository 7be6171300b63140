"""The bundle's ``storyloom-app`` executable: the desktop app (what the .desktop file starts).

Arguments are Qt's (``-platform``, ``-style``...); the app reads them from ``sys.argv``."""

import sys

from storyloom.gui.application import run as app_main

if __name__ == "__main__":
    sys.exit(app_main(sys.argv))
