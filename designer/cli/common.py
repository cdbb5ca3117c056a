"""Shared pieces of the subcommands: argument types, errors shown as one line, output."""

from __future__ import annotations

import argparse
import json
import re
import sys

from designer.catalog import CatalogError, UnknownPartError
from designer.io.project import ProjectFileError
from designer.model.common.units import parse_size
from designer.model.topology.sizing import SizingError

# Errors a user can cause; each is printed as one line, never as a traceback.
USER_ERRORS = (SizingError, UnknownPartError, ProjectFileError, CatalogError, ValueError, OSError)


class CommandError(Exception):
    """A subcommand's refusal, printed as one line with a non-zero exit."""


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr (with the command name) and exit 2."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message}\n")


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got '{text}'") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive whole number, got '{text}'")
    return value


_SPEED = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([GT])?(?:b|bps|bit/s)?\s*$", re.IGNORECASE)


def speed_gbps(text: str) -> int:
    """'400G' -> 400, '1.6T' -> 1600, '800' -> 800."""
    match = _SPEED.match(text)
    if not match:
        raise argparse.ArgumentTypeError(f"malformed speed '{text}' (use a form like 400G or 1.6T)")
    value = float(match.group(1)) * (1000 if (match.group(2) or "G").upper() == "T" else 1)
    if value <= 0 or not value.is_integer():
        raise argparse.ArgumentTypeError(f"speed '{text}' must be a positive whole number of Gb/s")
    return int(value)


def size_bytes(text: str) -> int:
    """'8GiB' -> 8589934592; K, M, G, T are binary (KiB, MiB, ...), as in nccl-tests."""
    try:
        return parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def print_json(data) -> None:
    json.dump(data, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")


def table(rows: list[tuple], headers: tuple | None = None) -> str:
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
