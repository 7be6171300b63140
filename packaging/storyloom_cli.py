"""The bundle's ``storyloom`` executable: the command line (with no verb it opens the app)."""

import sys

from storyloom.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
