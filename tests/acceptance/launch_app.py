"""Start the desktop app exactly as ``storyloom app`` does, with the read-only probe
(``probe.py``) listening on ``$STORYLOOM_TEST_PROBE``: the acceptance test runs this file as the
app's process."""

from __future__ import annotations

import os
import sys

from storyloom.cli.verb_app import launch
from storyloom.gui import application


def main() -> int:
    from probe import Probe  # beside this file (sys.path[0] when run as a script)

    create = application.create_application

    def create_with_probe(argv: object) -> object:
        app = create(argv)  # type: ignore[arg-type]
        app._acceptance_probe = Probe(os.environ["STORYLOOM_TEST_PROBE"], app)  # type: ignore[attr-defined]
        return app

    application.create_application = create_with_probe  # type: ignore[assignment]
    return launch(sys.argv[1] if len(sys.argv) > 1 else None)


if __name__ == "__main__":
    sys.exit(main())
