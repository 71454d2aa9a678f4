"""``python -m elicitkit``: the command line (see `elicitkit.cli`)."""

import sys

from elicitkit.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
