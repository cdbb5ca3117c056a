"""Entry point of `fabric-designer`. Each subcommand lives in its own module and registers itself."""

from __future__ import annotations

import importlib
import os
import sys

from designer import __version__
from designer.cli.common import USER_ERRORS, CommandError, OneLineParser, one_line

# Subcommand modules, in the order `--help` lists them. Each has add_parser(subparsers).
COMMANDS = [
    "designer.cli.cmd_new",
    "designer.cli.cmd_metrics",
    "designer.cli.cmd_gui",
    "designer.cli.cmd_bom",
    "designer.cli.cmd_counterpart",
    "designer.cli.cmd_compare",
    "designer.cli.cmd_collectives",
    "designer.cli.cmd_render",
    "designer.cli.cmd_report",
    "designer.cli.cmd_sweep",
    "designer.cli.cmd_export",
    "designer.cli.cmd_import",
    "designer.cli.cmd_audit",
    "designer.cli.cmd_whatif",
    "designer.cli.cmd_grow",
]


def build_parser() -> OneLineParser:
    parser = OneLineParser(prog="fabric-designer",
                           description="Design, size and compare GPU-cluster compute fabrics.")
    parser.add_argument("--version", action="version", version=f"fabric-designer {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    sub.required = True
    for name in COMMANDS:
        importlib.import_module(name).add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code = int(args.run(args) or 0)
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's last flush
        return code
    except BrokenPipeError:
        # The reader went away (`metrics FILE | head`): end quietly. Point stdout at devnull so
        # the interpreter's final flush does not complain about the closed pipe either.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 0
    except CommandError as exc:
        print(f"fabric-designer {args.command}: error: {one_line(exc)}", file=sys.stderr)
        return 1
    except USER_ERRORS as exc:
        print(f"fabric-designer {args.command}: error: {one_line(exc)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # a bug: one line for the user, the traceback on request
        if os.environ.get("FABRIC_DESIGNER_DEBUG"):
            raise
        print(f"fabric-designer {args.command}: internal error: {type(exc).__name__}: {one_line(exc, 200)} "
              "(set FABRIC_DESIGNER_DEBUG=1 for details)", file=sys.stderr)
        return 3


if __name__ == "__main__":
    sys.exit(main())
