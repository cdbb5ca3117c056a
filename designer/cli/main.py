"""Entry point of `fabric-designer`. Each subcommand lives in its own module and registers itself."""

from __future__ import annotations

import importlib
import os
import sys

from designer import __version__
from designer.cli.parser import OneLineParser, TerminalStream, one_line

# Sub-commands in the order `--help` lists them: name, module (with add_parser(subparsers)) and
# the one-line help `--help` shows. Only the chosen command's module is imported, so a command
# loads only what it uses; tests/test_cli_startup.py holds each line equal to its module's help.
COMMANDS: list[tuple[str, str, str]] = [
    ("new", "designer.cli.cmd_new", "make a new design file from a template"),
    ("metrics", "designer.cli.cmd_metrics", "print a design's metrics"),
    ("gui", "designer.cli.cmd_gui", "open the designer window"),
    ("bom", "designer.cli.cmd_bom", "bill of materials and cabling plan"),
    ("counterpart", "designer.cli.cmd_counterpart", "make the same cluster on another technology"),
    ("compare", "designer.cli.cmd_compare", "compare 2 to 5 designs side by side"),
    ("collectives", "designer.cli.cmd_collectives",
     "estimate collective times (all-reduce, all-gather...) on a design"),
    ("render", "designer.cli.cmd_render", "draw the fabric diagram as SVG, PDF or PNG"),
    ("report", "designer.cli.cmd_report", "write a PDF report: diagram, metrics, BOM, collectives, comparison"),
    ("sweep", "designer.cli.cmd_sweep", "explore the design space: every combination, with Pareto fronts"),
    ("export", "designer.cli.cmd_export",
     "write the design for Slurm, NetBox, containerlab, GraphML/DOT, draw.io or UFM"),
    ("import", "designer.cli.cmd_import", "read a fabric capture into a project file"),
    ("audit", "designer.cli.cmd_audit", "audit a fabric capture against a design"),
    ("whatif", "designer.cli.cmd_whatif", "what a failure does to the fabric"),
    ("grow", "designer.cli.cmd_grow", "plan a phased build-out to a target size"),
    ("catalog", "designer.cli.cmd_catalog", "list the hardware catalog's ids: servers, switches, technologies, media"),
    ("twin", "designer.cli.cmd_twin", "bring the design up on the real InfiniBand or routing stack"),
]


def chosen_command(argv: list[str]) -> str | None:
    """The sub-command named on the command line (top-level options take no values)."""
    return next((a for a in argv if not a.startswith("-")), None)


def build_parser(only: str | None = None) -> OneLineParser:
    """The parser; every command in full, or with `only`, that one in full and the rest as names."""
    parser = OneLineParser(prog="fabric-designer",
                           description="Design, size and compare GPU-cluster compute fabrics.")
    parser.add_argument("--version", action="version", version=f"fabric-designer {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    sub.required = True
    for name, module, summary in COMMANDS:
        if only is None or only == name:
            importlib.import_module(module).add_parser(sub)
        else:
            sub.add_parser(name, help=summary, add_help=False)
    return parser


def _stop(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def _stop_cleanly_on_signals() -> None:
    """SIGTERM and SIGHUP (a closed terminal, `timeout`, a scheduler's kill) end the command as
    an exception would, so that a write under way removes its temporary file or folder; the
    default action would leave them behind. SIGKILL cannot be caught: the next write beside
    them removes those."""
    import signal

    for name in ("SIGTERM", "SIGHUP"):
        number = getattr(signal, name, None)
        if number is None:
            continue
        try:
            signal.signal(number, _stop)
        except ValueError:  # not the main thread (a test running main() from a worker)
            return


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    command = chosen_command(argv)
    parser = build_parser(command if command in {name for name, _, _ in COMMANDS} else "")
    args = parser.parse_args(argv)
    from designer.cli.common import USER_ERRORS, CommandError  # loaded by every command already

    _stop_cleanly_on_signals()
    stdout = sys.stdout
    sys.stdout = TerminalStream(stdout)  # write() is all print() needs; the rest passes through
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
    finally:
        if isinstance(sys.stdout, TerminalStream):
            sys.stdout = stdout


if __name__ == "__main__":
    sys.exit(main())
