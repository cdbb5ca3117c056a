"""Entry point of the packaged application: the window by default, the command line otherwise."""

import multiprocessing
import sys

from designer.cli.main import main

if __name__ == "__main__":
    # The window computes in child processes; a frozen executable must let them start as children.
    multiprocessing.freeze_support()
    if len(sys.argv) == 1:  # started from a launcher or a file manager: open the window
        sys.argv.append("gui")
    sys.exit(main())
