"""``python -m attnio``: the same command line as the ``attnio`` script."""

import sys

from attnio.cli import main

if __name__ == "__main__":
    sys.exit(main())
