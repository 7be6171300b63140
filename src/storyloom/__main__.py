import sys

from storyloom.cli.main import main

sys.exit(main())
