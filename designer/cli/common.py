"""Shared pieces of the subcommands: argument types, errors shown as one line, output."""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

from designer.catalog import CatalogError, UnknownPartError
from designer.io.atomic import WriteRefused, check_target
from designer.io.project import ProjectFileError, is_project_file
from designer.limits import MEMORY_BUDGET_ENV, InputError, cli_number, memory_budget, quote, terminal_text
from designer.model.common.footprint import (
    BYTES_PER_DEVICE,
    BYTES_PER_LINK,
    START_BYTES,
    bytes_label,
    peak_bytes,
)
from designer.model.common.units import parse_size
from designer.model.intent.design import FabricDesign
from designer.model.topology.sizing import SizingError

if TYPE_CHECKING:
    from designer.model.topology.derive import Derived

# Errors a user can cause; each is printed as one line, never as a traceback.
USER_ERRORS = (InputError, SizingError, UnknownPartError, ProjectFileError, CatalogError, ValueError, OSError)

# Ranges of the command line's numbers, checked before any work is sized from them.
MAX_GPUS = 2**22            # --gpus: four million; the sizing ceilings refuse far less
MAX_NODES = 2**20           # --nodes, --nodes-per-su
MAX_BYTES = 2**50           # a message size: 1 PiB
MAX_GBPS = 102_400          # a link speed: 100 Tb/s


# The argparse sub-parsers object each command's add_parser(sub) adds its parser to.
SubParsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


class CommandError(Exception):
    """A subcommand's refusal, printed as one line with a non-zero exit."""


def bounded_int(low: float, high: float) -> Callable[[str], int]:
    """An argparse type: a whole number from `low` to `high`, refused before any work."""

    def parse(text: str) -> int:
        try:
            return cli_number(text, "", low, high, whole=True)
        except InputError as exc:
            raise argparse.ArgumentTypeError(exc.reason) from None

    parse.__name__ = "whole number"
    return parse


def bounded_float(low: float, high: float, low_open: bool = False) -> Callable[[str], float]:
    """An argparse type: a finite number in [low, high] ((low, high] with low_open); no NaN or inf."""

    def parse(text: str) -> float:
        try:
            return float(cli_number(text, "", low, high, low_open=low_open))
        except InputError as exc:
            raise argparse.ArgumentTypeError(exc.reason) from None

    parse.__name__ = "number"
    return parse


def named_for_terminal(design: FabricDesign) -> FabricDesign:
    """The design with its name as a terminal may show it (control characters escaped); the
    same object when the name needs nothing."""
    shown = terminal_text(design.meta.name)
    if shown == design.meta.name:
        return design
    return dataclasses.replace(design, meta=dataclasses.replace(design.meta, name=shown))


def check_memory(links: int, what: str, fits: str, devices: int = 0) -> None:
    """Refuse, before anything is built, a command whose estimated peak memory for `links`
    links between `devices` devices is above the budget (limits.memory_budget); `fits` names the
    path that does fit."""
    try:
        budget = memory_budget()
    except InputError as exc:
        raise CommandError(str(exc)) from None
    need = peak_bytes(links, devices)
    if need > budget:
        raise CommandError(f"{what} needs an estimated {bytes_label(need)} of memory for {links:,} links "
                           f"and {devices:,} devices (heuristic: {bytes_label(START_BYTES)} + {BYTES_PER_LINK:,} "
                           f"bytes a link + {BYTES_PER_DEVICE:,} bytes a device), above the "
                           f"budget of {bytes_label(budget)} ({MEMORY_BUDGET_ENV} sets it); {fits}")


def check_design_memory(derived: Derived, what: str) -> None:
    """check_memory for a design whose links the closed form counts (its metrics)."""
    m = derived.metrics
    check_memory(m.links_total, what,
                 f"'fabric-designer metrics' gives its counts in closed form in about {bytes_label(START_BYTES)}",
                 devices=m.servers + m.switches_total)


def non_empty(text: str) -> str:
    """An argparse type for a catalog id or a name: an empty value is refused, not taken as unset."""
    if not text.strip():
        raise argparse.ArgumentTypeError("must not be empty (leave the option out for the default)")
    return text


non_empty.__name__ = "value"


def positive_int(text: str) -> int:
    """A whole number from 1 to 2**22: every count the command line takes is far below that."""
    return bounded_int(1, MAX_GPUS)(text)


# ASCII digits only, as cli_number takes them; \Z so that a trailing newline is refused.
_SPEED = re.compile(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([GT])?(?:b|bps|bit/s)?\s*\Z", re.IGNORECASE | re.ASCII)


def speed_gbps(text: str) -> int:
    """'400G' -> 400, '1.6T' -> 1600, '800' -> 800."""
    match = _SPEED.match(text) if len(text) <= 40 else None
    if not match:
        raise argparse.ArgumentTypeError(f"malformed speed '{text}' (use a form like 400G or 1.6T)")
    value = float(match.group(1)) * (1000 if (match.group(2) or "G").upper() == "T" else 1)
    if value <= 0 or not value.is_integer() or value > MAX_GBPS:
        raise argparse.ArgumentTypeError(f"speed '{text}' must be a whole number of Gb/s from 1 to {MAX_GBPS:,}")
    return int(value)


def size_bytes(text: str) -> int:
    """'8GiB' -> 8589934592; K, M, G, T are binary (KiB, MiB, ...), as in nccl-tests."""
    if len(text) > 40:
        raise argparse.ArgumentTypeError(f"size '{text[:40]}...' is too long")
    try:
        value = parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if value > MAX_BYTES:
        raise argparse.ArgumentTypeError(f"size '{text}' is out of range (at most 1 PiB)")
    return value


def check_project_target(path: str, force: bool = False) -> Path:
    """Where a command may write a project file; refused before any work.

    A folder is named as the folder. An existing file that is not a Fabric Designer project is
    not replaced unless --force is given: it may be anything the user keeps under that name.
    """
    try:
        out = check_target(path)
    except WriteRefused as exc:
        raise CommandError(str(exc)) from None
    if out.exists() and not force and not is_project_file(out):
        raise CommandError(f"{out} exists and is not a Fabric Designer project; give --force to replace it")
    return out


def output_file(text: str) -> str:
    """An argparse type for an output file option (-o, --csv, --cabling, ...): a folder, a FIFO,
    a device or a missing folder is refused before any work, naming it."""
    if not text.strip():
        raise argparse.ArgumentTypeError("must not be empty")
    try:
        check_target(text)
    except WriteRefused as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


output_file.__name__ = "file name"


_JSON_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029]")


def print_json(data: object) -> None:
    """JSON on stdout, all or nothing: NaN and Infinity are refused (they are not JSON), and a
    value that cannot be encoded stops the command before a byte is written."""
    try:
        text = json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False)
        text.encode("utf-8")
        # json escapes C0 controls itself; DEL, C1 controls and the Unicode line separators can
        # only stand inside strings, where \\uXXXX is the same text and safe on a terminal.
        text = _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    except (ValueError, UnicodeEncodeError) as exc:
        raise CommandError(f"the result cannot be written as JSON ({quote(str(exc), 80)})") from None
    sys.stdout.write(text + "\n")


def table(rows: Sequence[tuple[object, ...]], headers: tuple[object, ...] | None = None) -> str:
    """A plain text table with right-aligned numbers."""
    all_rows = ([headers] if headers else []) + [tuple("" if c is None else c for c in r) for r in rows]
    cols = len(all_rows[0]) if all_rows else 0
    widths = [max(len(str(r[i])) for r in all_rows) for i in range(cols)]
    lines = []
    for n, row in enumerate(all_rows):
        cells = []
        for i, cell in enumerate(row):
            text = str(cell)
            numeric = isinstance(cell, (int, float)) and not isinstance(cell, bool)
            cells.append(text.rjust(widths[i]) if numeric else text.ljust(widths[i]))
        lines.append("  ".join(cells).rstrip())
        if headers and n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)
