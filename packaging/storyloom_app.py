"""The bundle's ``storyloom-app`` executable: the desktop app (what the .desktop file starts).

Arguments are Qt's (``-platform``, ``-style``...); the app reads them from ``sys.argv``. Once the
app module has the ``storyloom-app`` gui-script's ``main()``, the call below becomes
``application.main()`` (one line; the bundle and the installed command then start the same way).
"""

import sys

from storyloom.gui import application

if __name__ == "__main__":
    sys.exit(application.main())
