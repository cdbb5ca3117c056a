"""`fabric-designer gui`: the designer window, or a screenshot of it.

Without a display (a Linux session with neither DISPLAY nor WAYLAND_DISPLAY, and no Qt
platform chosen), or without the X11 libraries Qt needs, the command says so in one line and
prints the design's metrics instead.
"""

from __future__ import annotations

import argparse
import os
import re

from designer.cli.common import SubParsers, output_file
from designer.limits import quote
from designer.ui.display_check import window_blocker


def add_parser(sub: SubParsers) -> None:
    p = sub.add_parser("gui", help="open the designer window",
                       description="Open the designer window, optionally with a design file. With "
                                   "--screenshot, render the window offscreen to a PNG and exit.")
    p.add_argument("file", nargs="?", help="project file to open")
    p.add_argument("--screenshot", metavar="PNG", type=output_file,
                   help="render the window to this PNG file and exit")
    p.add_argument("--size", default="1600x1000", type=window_size,
                   help="window size for --screenshot, e.g. 1600x1000")
    p.set_defaults(run=run)


# ASCII digits, as every numeric option; \Z so that a trailing newline is refused.
_SIZE = re.compile(r"\s*([0-9]{1,6})\s*[xX]\s*([0-9]{1,6})\s*\Z", re.ASCII)


def window_size(text: str) -> tuple[int, int]:
    """An argparse type for --size: WIDTHxHEIGHT in pixels, checked before Qt starts."""
    match = _SIZE.match(text) if len(text) <= 40 else None
    if not match:
        raise argparse.ArgumentTypeError(f"malformed size {quote(text, 40)} (use a form like 1600x1000)")
    w, h = int(match.group(1)), int(match.group(2))
    if not (200 <= w <= 10000 and 200 <= h <= 10000):
        raise argparse.ArgumentTypeError(f"{text} is out of range (200 to 10000 pixels a side)")
    return w, h


window_size.__name__ = "size"


def run(args: argparse.Namespace) -> int:
    if args.screenshot:
        # Every argument is checked before Qt starts (argparse types above, the design here).
        size = args.size
        os.environ["QT_QPA_PLATFORM"] = "offscreen"  # before the QApplication exists
        if args.file:
            from designer.io.project import load_design

            load_design(args.file)  # a bad file: one line from the caller, no window
        from designer.ui.app import render_screenshot

        render_screenshot(args.file, args.screenshot, size)
        print(f"wrote {args.screenshot}")
        return 0
    blocker = window_blocker()
    if blocker:
        print(f"fabric-designer gui: {blocker}; "
              + ("showing the design's metrics instead" if args.file else "give a design file to see its metrics"))
        if args.file:
            from designer.cli.cmd_metrics import summary
            from designer.io.project import load_design
            from designer.model.topology.derive import derive

            print(summary(derive(load_design(args.file)).metrics))
        return 0
    from designer.ui.app import run_window

    return run_window(args.file)
