"""Entry point of the packaged application: the window by default, the command line otherwise."""

import sys

from designer.cli.main import main

if __name__ == "__main__":
    if len(sys.argv) == 1:  # started from a launcher or a file manager: open the window
        sys.argv.append("gui")
    sys.exit(main())
