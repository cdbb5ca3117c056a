"""Slurm hostlist expressions: `gpu-node-[0001-0032,0040]` for a run of numbered names.

Compression keeps the zero padding of the names (Slurm reads `[0001-0032]` back with four
digits) and only brackets a trailing number, the form every Slurm version parses.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable

_TRAILING = re.compile(r"^(.*?)(\d+)$")


def compress(names: Iterable[str]) -> str:
    """One hostlist expression for `names`, in a stable order (prefix, then number)."""
    groups: dict[tuple[str, int], list[int]] = defaultdict(list)
    plain: list[str] = []
    for name in dict.fromkeys(names):
        match = _TRAILING.match(name)
        if match is None:
            plain.append(name)
        else:
            prefix, digits = match.groups()
            padded = len(digits) > 1 and digits[0] == "0"
            groups[(prefix, len(digits) if padded else 0)].append(int(digits))
    # Unpadded numbers as wide as a padded run belong to it ('1000' after '0999'); width 0
    # means no padding, which Slurm reads back the same ('leaf-[9-10]').
    for prefix, _width in [k for k in groups if k[1] == 0]:
        for n in list(groups[(prefix, 0)]):
            if (prefix, len(str(n))) in groups:
                groups[(prefix, len(str(n)))].append(n)
                groups[(prefix, 0)].remove(n)
        if not groups[(prefix, 0)]:
            del groups[(prefix, 0)]
    parts = list(plain)
    for (prefix, width), numbers in sorted(groups.items()):
        numbers.sort()
        runs = _runs(numbers)
        if len(runs) == 1 and runs[0][0] == runs[0][1]:
            parts.append(f"{prefix}{runs[0][0]:0{width}d}")
            continue
        inner = ",".join(f"{a:0{width}d}" if a == b else f"{a:0{width}d}-{b:0{width}d}" for a, b in runs)
        parts.append(f"{prefix}[{inner}]")
    return ",".join(parts)


def _runs(numbers: list[int]) -> list[tuple[int, int]]:
    runs: list[tuple[int, int]] = []
    for n in numbers:
        if runs and n == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], n)
        else:
            runs.append((n, n))
    return runs


def _split_top(text: str) -> list[str]:
    """Split at commas outside brackets."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth < 0:
                raise ValueError(f"unbalanced ']' in hostlist '{text}'")
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    if depth:
        raise ValueError(f"unbalanced '[' in hostlist '{text}'")
    parts.append(text[start:])
    return [p for p in (s.strip() for s in parts) if p]


def expand(text: str) -> list[str]:
    """Every name of a hostlist expression, in order (the inverse of `compress`)."""
    names: list[str] = []
    for part in _split_top(text):
        match = re.fullmatch(r"([^\[\]]*)\[([^\[\]]+)\]([^\[\]]*)", part)
        if match is None:
            if "[" in part or "]" in part:
                raise ValueError(f"malformed hostlist item '{part}'")
            names.append(part)
            continue
        prefix, ranges, suffix = match.groups()
        for item in ranges.split(","):
            lo, _, hi = item.strip().partition("-")
            if not lo.isdigit() or (hi and not hi.isdigit()):
                raise ValueError(f"malformed range '{item}' in hostlist '{text}'")
            width = len(lo)
            for n in range(int(lo), int(hi or lo) + 1):
                names.append(f"{prefix}{n:0{width}d}{suffix}")
    return names
