"""What the command line needs before it knows the command: the parser that refuses in one line.

Kept free of the model, numpy and networkx, so that `fabric-designer --help` and the dispatch of
a command load nothing the command does not use (designer/cli/main.py imports the chosen
command's module only).
"""

from __future__ import annotations

import argparse
from typing import Any, NoReturn, TextIO

from designer.limits import terminal_lines


def one_line(text: object, limit: int = 600) -> str:
    """A message as one printable line: a value quoted from input may hold line breaks, control
    characters, lone surrogates or a whole file; none of that reaches the terminal."""
    out = "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in str(text))
    return out if len(out) <= limit else out[:limit - 1] + "\u2026"


class TerminalStream:
    """Standard output as the commands write it: a control character that came from a name
    (ESC clearing the screen, a carriage return overwriting a line) is shown escaped. Line breaks
    pass, so the commands escape the names they print in a line (`terminal_text`)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        return self.stream.write(terminal_lines(text))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr (with the command name) and exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {one_line(message)}\n")
