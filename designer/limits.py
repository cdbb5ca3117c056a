"""The one validation layer for everything read from outside: files, the user catalog, prices, numbers.

Project files, the user catalog, price books and command-line numbers all pass through here.
Every refusal is one InputError whose message names the file (or option) and the field, and
quotes at most QUOTE_CHARS characters of the offending value. The checks run before any work
is sized from the input: a file is read with a byte cap (never trusting st_size), nesting,
digit counts and string lengths are bounded, and numbers must be finite and in range.

This module imports nothing from designer, so the catalog, the model and io may all use it.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal, overload

# --- the stated limits (see README, "Reliability") -------------------------------------------------
MAX_FILE_BYTES = 64 * 2**20     # a project, catalog or price file; the largest example is ~10 KiB
MAX_DEPTH = 64                  # nesting of objects and lists; a design is at most ~6 deep
MAX_NUMBER_CHARS = 40           # a number literal: enough for any float, far below Python's 4,300 digits
MAX_TEXT_CHARS = 100_000        # any one string (a 10,000-character name is fine)
MAX_RADIX = 2048                # ports of one switch; the largest switches today have 512
QUOTE_CHARS = 80                # how much of a bad value a message quotes
MAX_JSON_VALUES = 4_000_000     # values in one JSON file (counted by its commas): a design holds ~1,000
MAX_CAPTURE_VALUES = 16_000_000  # an LLDP capture of a 131,072-GPU fabric holds a few million

_SURROGATE = re.compile("[\ud800-\udfff]")
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
BOM = "\ufeff"
_INT_CEILING = 10**MAX_NUMBER_CHARS


class InputError(ValueError):
    """Input from outside the program is refused; the message is fit to show the user as it is.

    `source` names the file or option, `field` the field path inside it (either may be empty).
    Every loader (project files, catalog, price books) and the window raise this type or a
    subclass of it.
    """

    def __init__(self, message: str, source: str = "", field: str = "") -> None:
        self.source = str(source)
        self.field = field
        self.reason = message
        where = ": ".join(p for p in (self.source, field) if p)
        super().__init__(f"{where}: {message}" if where else message)


def quote(value: object, limit: int = QUOTE_CHARS) -> str:
    """A value as a message may quote it: repr, at most `limit` characters, surrogates escaped."""
    text = repr(value)
    if len(text) > limit:
        text = text[:limit - 1] + "\u2026"
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def printable(text: str) -> str:
    """Text without control characters or lone surrogates (for XML, terminals and titles)."""
    return _SURROGATE.sub("\ufffd", _CONTROL.sub("", text))


# C0 and C1 control characters, DEL, and the Unicode line and paragraph separators: each can move
# the cursor, clear the screen or start a new line on a terminal.
_TERMINAL_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
_NAMED_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def terminal_text(text: str) -> str:
    """User text as a terminal may show it: every control character written as an escape
    (a newline as \\n, ESC as \\x1b), so that a name can neither forge a line nor clear the
    screen. Printable text, including non-ASCII letters, is left as it is."""
    return _TERMINAL_UNSAFE.sub(_escape_one, text)


_TERMINAL_UNSAFE_BUT_LINES = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")


def terminal_lines(text: str) -> str:
    """Text of several lines as a terminal may show it: line breaks and tabs kept, every other
    control character escaped (ESC, a carriage return, C1 controls such as CSI)."""
    return _TERMINAL_UNSAFE_BUT_LINES.sub(_escape_one, text)


def check_one_line(text: str, source: str, field: str) -> str:
    """An identifier, part number or name that outputs write inside a line (a CSV cell, an
    ibnetdiscover description, a terminal row): a line break or control character is refused."""
    bad = _TERMINAL_UNSAFE.search(text)
    if bad:
        raise InputError(f"holds a control character ({terminal_text(bad.group())}); names are one line of text",
                         source, field)
    return text


def _escape_one(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED_ESCAPES.get(char)
    if named:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


# --- reading ----------------------------------------------------------------------------------------

def _not_regular(mode: int) -> str | None:
    """What a non-regular file is ("a FIFO", "a device", ...), or None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def read_capped(path: str | os.PathLike[str], limit: int = MAX_FILE_BYTES, what: str = "file") -> bytes:
    """The bytes of a regular file, refusing more than `limit` bytes by reading, not by trusting
    st_size; a FIFO, a device (/dev/zero) or a socket is refused at once, without reading.

    The file is opened without blocking (a FIFO with no writer would wait forever) and checked
    through the open handle, so it cannot be swapped between the check and the read.
    """
    p = Path(path)
    try:
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        raise InputError("no such file" if what in ("file", "project file") else f"no such {what}", str(p)) from None
    except IsADirectoryError:
        raise InputError(f"is a folder, not a {what}", str(p)) from None
    except OSError as exc:
        raise InputError(f"cannot read ({exc.strerror or exc})", str(p)) from None
    # Checked on the descriptor before wrapping it: os.fdopen refuses a folder itself, with an
    # error that names the descriptor number instead of the path.
    try:
        kind = _not_regular(os.fstat(fd).st_mode)
    except OSError as exc:
        os.close(fd)
        raise InputError(f"cannot read ({exc.strerror or exc})", str(p)) from None
    if kind is not None:
        os.close(fd)
        raise InputError(f"is {kind}, not a {what}" if kind.startswith("a ") else f"{kind}, not a {what}", str(p))
    with os.fdopen(fd, "rb") as fh:
        try:
            raw = fh.read(limit + 1)
        except OSError as exc:
            raise InputError(f"cannot read ({exc.strerror or exc})", str(p)) from None
    if len(raw) > limit:
        size = f"{limit // 2**20} MiB" if limit >= 2**20 else f"{limit:,} bytes"
        raise InputError(f"larger than {size}; not a {what}", str(p))
    return raw


def decode_text(raw: bytes, source: str) -> str:
    """UTF-8 text; a leading byte-order mark (Excel, Notepad) is dropped."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"not a text file (invalid UTF-8 at byte {exc.start})", source) from None
    return text[1:] if text.startswith(BOM) else text


def read_text(path: str | os.PathLike[str], what: str = "file", limit: int = MAX_FILE_BYTES) -> str:
    return decode_text(read_capped(path, limit, what), str(path))


# --- JSON -------------------------------------------------------------------------------------------

_NOT_STRUCTURE = re.compile(r"[^\[\]{},]+")
_EMPTY_PAIR = re.compile(r"\[\]|\{\}")
# Deletes every ASCII character but the structure ([]{},), as str.translate does in C.
_ASCII_NOT_STRUCTURE = {code: None for code in range(128) if chr(code) not in "[]{},"}


def _structure(text: str) -> str:
    """The brackets and commas of JSON text outside its strings, in order.

    Each step is a C-level string operation (never a Python loop over characters, nor a regular
    expression that could backtrack): escaped backslashes and quotes are dropped, so every quote
    left opens or closes a string; splitting on quotes leaves the text outside strings at the even
    places (an unterminated string runs to the end); then all but the structure is deleted.
    """
    plain = text.replace("\\\\", "").replace('\\"', "")
    outside = "".join(plain.split('"')[0::2]).translate(_ASCII_NOT_STRUCTURE)
    if not outside.isascii():  # garbage outside strings; the parser refuses it after this
        outside = _NOT_STRUCTURE.sub("", outside)
    return outside


def check_depth(text: str, source: str, limit: int = MAX_DEPTH, max_values: int = MAX_JSON_VALUES) -> None:
    """Refuse nesting deeper than `limit`, or more than `max_values` values, before any parser
    recurses or allocates a value.

    Linear, and in C: the structure outside strings is taken (`_structure`), the values counted by
    its commas, then the innermost empty pairs removed one level a pass (at most `limit` passes).
    Brackets left unclosed (a truncated file) count as levels too.
    """
    structure = _structure(text)
    if structure.count(",") > max_values:
        raise InputError(f"holds more than {max_values:,} values, more than any file of its kind", source)
    structure = structure.replace(",", "")
    levels = 0
    while structure and levels <= limit:
        reduced = _EMPTY_PAIR.sub("", structure)   # one scan: a pair emptied by it waits a pass
        if len(reduced) == len(structure):
            break
        levels += 1
        structure = reduced
    if levels > limit or levels + structure.count("[") + structure.count("{") > limit:
        raise InputError(f"nested more than {limit} levels deep", source)


class _Bad:
    """A marker the JSON hooks leave where a value is refused; the walk reports it with its path."""

    def __init__(self, why: str) -> None:
        self.why = why


class _Pairs(dict[str, Any]):
    duplicate: str | None = None


def _pairs(items: Iterable[tuple[str, Any]]) -> _Pairs:
    out = _Pairs()
    for key, value in items:
        if key in out and out.duplicate is None:
            out.duplicate = key
        out[key] = value
    return out


def _int(text: str) -> int | _Bad:
    if len(text.lstrip("-")) > MAX_NUMBER_CHARS:
        return _Bad(f"a number of {len(text.lstrip('-')):,} digits is out of range")
    return int(text)


def _float(text: str) -> float | _Bad:
    if len(text) > MAX_NUMBER_CHARS:
        return _Bad(f"a number literal of {len(text):,} characters is out of range")
    value = float(text)
    if not math.isfinite(value):
        return _Bad(f"{quote(text)} is out of range (numbers must be finite)")
    return value


def _constant(text: str) -> _Bad:
    return _Bad(f"{text} is not a number (numbers must be finite)")


def load_json(text: str, source: str) -> Any:
    """Parse JSON text with every outside-input bound applied; raises InputError naming the field."""
    if text.startswith(BOM):
        text = text[1:]
    check_depth(text, source)
    try:
        doc = json.loads(text, object_pairs_hook=_pairs, parse_int=_int, parse_float=_float,
                         parse_constant=_constant)
    except json.JSONDecodeError as exc:
        hint = " (the file looks truncated)" if exc.pos >= len(text.rstrip()) - 1 else ""
        raise InputError(f"not valid JSON at line {exc.lineno}, column {exc.colno}{hint}", source) from None
    except (RecursionError, ValueError) as exc:  # belt and braces behind check_depth and the hooks
        raise InputError(f"cannot be read ({type(exc).__name__})", source) from None
    check_tree(doc, source)
    return doc


class _Refused(ValueError):
    """A number the hooks refuse while parsing (the fast path, which walks no tree after)."""


def _at_once(hook: Any) -> Any:
    def parse(text: str) -> Any:
        value = hook(text)
        if isinstance(value, _Bad):
            raise _Refused(value.why)
        return value

    return parse


_SPACE = re.compile(r"\s*")
# \uD800-\uDBFF followed by \uDC00-\uDFFF is one character; either half alone is not text.
_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}"
                                r"|\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def load_json_documents(text: str, source: str, max_values: int = MAX_JSON_VALUES,
                        duplicate_keys: bool = False, text_limit: int = MAX_TEXT_CHARS,
                        walk: bool = True) -> list[Any]:
    """Every JSON document of a text holding one or more of them back to back (a capture of
    several switches' `lldpctl -f json`), under the same bounds as `load_json`: nesting and value
    count checked before parsing, numbers and text after. `duplicate_keys` keeps the last value
    of a repeated key, as the tools that write captures expect their readers to.

    `walk=False` is the path for captures of hundreds of megabytes: numbers are refused while
    parsing and lone surrogates are looked for in the text, so no tree is walked in Python after
    (the walk takes seconds a megabyte); strings are bounded by the file's cap only.
    """
    if text.startswith(BOM):
        text = text[1:]
    check_depth(text, source, MAX_DEPTH, max_values)
    hook = dict if duplicate_keys else _pairs
    if walk:
        decoder = json.JSONDecoder(object_pairs_hook=hook, parse_int=_int, parse_float=_float,
                                   parse_constant=_constant)
    else:
        lone = next((m for m in _ESCAPED_SURROGATE.finditer(text) if len(m.group()) == 6), None)
        if lone is not None:
            line = text.count("\n", 0, lone.start()) + 1
            raise InputError(f"holds a lone surrogate ({lone.group()}) at line {line}, which is not text", source)
        decoder = json.JSONDecoder(object_pairs_hook=hook, parse_int=_at_once(_int),
                                   parse_float=_at_once(_float), parse_constant=_at_once(_constant))
    docs: list[Any] = []
    pos, end = 0, len(text)
    try:
        while True:
            pos = _SPACE.match(text, pos).end()  # type: ignore[union-attr]  # \s* always matches
            if pos >= end:
                break
            doc, pos = decoder.raw_decode(text, pos)
            docs.append(doc)
    except _Refused as exc:
        raise InputError(str(exc), source) from None
    except json.JSONDecodeError as exc:
        hint = " (the file looks truncated)" if exc.pos >= len(text.rstrip()) - 1 else ""
        raise InputError(f"not valid JSON at line {exc.lineno}, column {exc.colno}{hint}", source) from None
    except (RecursionError, ValueError) as exc:  # belt and braces behind check_depth and the hooks
        raise InputError(f"cannot be read ({type(exc).__name__})", source) from None
    if walk:
        for doc in docs:
            check_tree(doc, source, text_limit=text_limit)
    return docs


def join(path: str, key: object) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    name = str(key)
    shown = name if name.isidentifier() else quote(name, 40)
    return f"{path}.{shown}" if path else shown


def check_tree(value: object, source: str, path: str = "", text_limit: int = MAX_TEXT_CHARS) -> None:
    """Bounds on a parsed tree (JSON or TOML): finite numbers, bounded text, no lone surrogates,
    no duplicate keys. Depth is bounded by the parser's caller."""
    stack = [(value, path, 0)]
    while stack:
        item, where, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise InputError(f"nested more than {MAX_DEPTH} levels deep", source, where)
        if isinstance(item, _Bad):
            raise InputError(item.why, source, where)
        if isinstance(item, str):
            check_text(item, source, where, text_limit)
        elif isinstance(item, float):
            if not math.isfinite(item):
                raise InputError(f"{quote(item)} is out of range (numbers must be finite)", source, where)
        elif isinstance(item, int) and not isinstance(item, bool):
            if abs(item) >= _INT_CEILING:
                raise InputError(f"a number of more than {MAX_NUMBER_CHARS} digits is out of range", source, where)
        elif isinstance(item, dict):
            duplicate = getattr(item, "duplicate", None)
            if duplicate is not None:
                raise InputError("the key appears twice; keep one", source, join(where, duplicate))
            for key, sub in item.items():
                check_text(str(key), source, where or "<key>")
                stack.append((sub, join(where, key), depth + 1))
        elif isinstance(item, (list, tuple)):
            stack.extend((sub, join(where, i), depth + 1) for i, sub in enumerate(item))


def check_text(text: str, source: str, field: str, limit: int = MAX_TEXT_CHARS) -> str:
    if len(text) > limit:
        raise InputError(f"text of {len(text):,} characters is longer than {limit:,}", source, field)
    bad = _SURROGATE.search(text)
    if bad:
        raise InputError(f"holds a lone surrogate (\\u{ord(bad.group()):04x}), which is not text",
                         source, field)
    return text


# --- numbers ------------------------------------------------------------------------------------------

def parse_toml(text: str, source: str) -> dict[str, Any]:
    """TOML text with the same bounds as JSON (tomllib already refuses duplicate keys)."""
    import tomllib

    if text.startswith(BOM):
        text = text[1:]
    check_depth_toml(text, source)
    long_number = _TOML_LONG_NUMBER.search(text)
    if long_number:
        raise InputError(f"a number of more than {MAX_NUMBER_CHARS} digits is out of range", source,
                         long_number.group(1))
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"not valid TOML ({exc})", source) from None
    except (RecursionError, ValueError) as exc:  # e.g. an integer beyond Python's digit limit
        raise InputError(f"cannot be read ({type(exc).__name__}: {quote(str(exc), 60)})", source) from None
    check_tree(data, source)
    return data


# As _STRING: a string ends at its quote or at the end of its line, never by backtracking.
_TOML_TOKENS = re.compile(r'"(?:[^"\\\n]|\\[^\n])*+(?:"|\\?$)|\'[^\'\n]*+(?:\'|$)|#[^\n]*|[\[\]{}]', re.M)


# Anchored at a line start, so that a long run of name characters is scanned once, not once
# per starting position.
_TOML_LONG_NUMBER = re.compile(r'^[ \t]*([\w.\-"]+)[ \t]*=[ \t]*[+-]?\d[\d_]{' + str(MAX_NUMBER_CHARS) + ',}', re.M)


def check_depth_toml(text: str, source: str, limit: int = MAX_DEPTH) -> None:
    """Nesting of inline arrays and tables, bounded before tomllib recurses."""
    depth = 0
    for match in _TOML_TOKENS.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > limit:
                raise InputError(f"nested more than {limit} levels deep", source)
        elif token in "]}":
            depth = max(0, depth - 1)


@overload
def check_number(value: object, source: str, field: str, low: float, high: float, whole: Literal[True],
                 low_open: bool = False) -> int: ...
@overload
def check_number(value: object, source: str, field: str, low: float, high: float, whole: Literal[False] = False,
                 low_open: bool = False) -> float: ...
@overload
def check_number(value: object, source: str, field: str, low: float, high: float, whole: bool,
                 low_open: bool = False) -> int | float: ...
def check_number(value: object, source: str, field: str, low: float, high: float, whole: bool = False,
                 low_open: bool = False) -> float:
    """`value` as a finite number in [low, high] (or (low, high] with low_open); whole numbers
    when `whole`. The message states the range."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"expected a number, got {quote(value)}", source, field)
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"{quote(value)} is not a finite number", source, field)
    if whole and isinstance(value, float) and not value.is_integer():
        raise InputError(f"expected a whole number, got {quote(value)}", source, field)
    too_low = value <= low if low_open else value < low
    if too_low and whole and low == 1:
        raise InputError(f"must be a positive whole number, got {quote(value)}", source, field)
    if too_low or value > high:
        bracket = "(" if low_open else "from"
        span = (f"{bracket} {_num(low)} to {_num(high)}" if not low_open
                else f"above {_num(low)} and at most {_num(high)}")
        raise InputError(f"{quote(value)} is out of range ({span})", source, field)
    return int(value) if whole else value


def _num(x: float) -> str:
    if isinstance(x, int) or float(x).is_integer():
        return f"{int(x):,}"
    return f"{x:g}"


@overload
def cli_number(text: str, option: str, low: float, high: float, whole: Literal[True],
               low_open: bool = False) -> int: ...
@overload
def cli_number(text: str, option: str, low: float, high: float, whole: Literal[False] = False,
               low_open: bool = False) -> float: ...
@overload
def cli_number(text: str, option: str, low: float, high: float, whole: bool,
               low_open: bool = False) -> int | float: ...
def cli_number(text: str, option: str, low: float, high: float, whole: bool = False,
               low_open: bool = False) -> float:
    """A command-line number, bounded before any work: digits, finiteness and range."""
    raw = text.strip()
    if len(raw) > MAX_NUMBER_CHARS:
        raise InputError(f"{quote(text, 40)} is too long for a number", option)
    # ASCII digits only: Python's int() and float() also take full-width digits (６４),
    # underscores (1_000) and, for a count, an exponent (1e3), none of which a user means.
    if whole:
        if not _ASCII_INT.fullmatch(raw):
            raise InputError(f"expected a whole number in plain digits (like 64), got {quote(text, 40)}",
                             option)
        value: float = int(raw)
    else:
        if not _ASCII_FLOAT.fullmatch(raw):
            raise InputError(f"expected a number in plain digits (like 2 or 1.5), got {quote(text, 40)}",
                             option)
        value = float(raw)
    return check_number(value, option, "", low, high, whole, low_open)


_ASCII_INT = re.compile(r"[+-]?[0-9]+", re.ASCII)
# NaN and infinity spelled out are numbers here, so that the range check names them as such.
_ASCII_FLOAT = re.compile(r"[+-]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|nan|inf|infinity)",
                          re.ASCII | re.IGNORECASE)


MEMORY_BUDGET_ENV = "FABRIC_DESIGNER_MEMORY_BUDGET"
MEMORY_SHARE = 0.5   # of the machine's memory, by default: the window and other programs keep the rest
_MEMORY = re.compile(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([KMGT]?)(?:i?B)?\s*\Z", re.IGNORECASE | re.ASCII)


def memory_budget() -> int:
    """Bytes a command may plan to use: FABRIC_DESIGNER_MEMORY_BUDGET ('4G', '1500M', bytes), or
    MEMORY_SHARE of the machine's memory; never more than the process's address-space limit."""
    text = os.environ.get(MEMORY_BUDGET_ENV, "")
    if text:
        match = _MEMORY.match(text) if len(text) <= 40 else None
        if not match:
            raise InputError(f"{quote(text, 40)} is not a memory size (use a form like 4G or 1500M)",
                             MEMORY_BUDGET_ENV)
        budget = int(float(match.group(1)) * 1024 ** "_KMGT".index(match.group(2).upper() or "_"))
    else:
        try:
            budget = int(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") * MEMORY_SHARE)
        except (AttributeError, ValueError, OSError):  # not POSIX: no figure, no refusal
            budget = 2**62
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        if soft != resource.RLIM_INFINITY:
            budget = min(budget, soft)
    except (ImportError, ValueError, OSError):
        pass
    return budget


def config_dir() -> Path:
    """The user's settings folder; FABRIC_DESIGNER_CONFIG_DIR moves it (the user catalog and price
    book live there too)."""
    env = os.environ.get("FABRIC_DESIGNER_CONFIG_DIR")
    if env:
        return Path(env)
    from platformdirs import user_config_dir

    return Path(user_config_dir("fabric-designer"))
