"""``python -m tools.screenshots DIR [--only NAME] [--scale 2] [--light-only]`` (from the
checkout's root; ``scripts/screenshots`` runs it)."""

import sys

from tools.screenshots import main

sys.exit(main())
