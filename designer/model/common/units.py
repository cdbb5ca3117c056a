"""How quantities read to a person: one spelling for the command line, the window and reports."""

from __future__ import annotations

import re

_BINARY = ((1 << 40, "TiB"), (1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB"))


def size_label(n: int) -> str:
    """Message sizes in binary units, as nccl-tests prints them: 8 B, 64 KiB, 1 GiB."""
    for factor, unit in _BINARY:
        if n >= factor and n % factor == 0:
            return f"{n // factor} {unit}"
    return f"{n:,} B"


def duration_label(us: float, micro: str = "\u00b5s") -> str:
    """A time given in microseconds, in the largest unit that keeps it above 1."""
    if us >= 1e6:
        return f"{us / 1e6:,.2f} s"
    if us >= 1e3:
        return f"{us / 1e3:,.2f} ms"
    return f"{us:,.1f} {micro}"


def ratio_label(value: float | None, missing: str = "\u2014") -> str:
    """An oversubscription ratio as the window, slides, report and command line all write it:
    1:1, 1.5:1, 1.91:1 (at most two decimals, no trailing zeros)."""
    if value is None:
        return missing
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return f"{text}:1"


# ASCII digits only (a full-width ８ is refused as on every numeric option); \Z, not $, so that a
# trailing newline is refused too.
_SIZE = re.compile(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([KMGT]i?B?|B)?\s*\Z", re.IGNORECASE | re.ASCII)
_SIZE_UNITS = {"": 1, "B": 1, "K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4}


def parse_size(text: str) -> int:
    """'8GiB' -> 8589934592; K, M, G, T are binary (KiB, MiB, ...), as in nccl-tests.

    Raises ValueError with a message fit for the user.
    """
    match = _SIZE.match(text)
    if not match:
        raise ValueError(f"malformed size '{text}' (use a form like 64KiB, 8MiB or 8GiB)")
    unit = (match.group(2) or "").upper()
    unit = unit[:-1] if len(unit) > 1 and unit.endswith("B") else unit   # 8GiB, 8GB -> 8Gi, 8G
    unit = unit.removesuffix("I")                                           # 8Gi -> 8G
    value = float(match.group(1)) * _SIZE_UNITS[unit]
    if value < 1 or not value.is_integer():
        raise ValueError(f"size '{text}' must be at least 1 byte, in whole bytes")
    return int(value)


def bandwidth_label(gbps: float) -> str:
    """One way to write an aggregate bandwidth everywhere: '409.6 Tb/s', '26.05 Pb/s'."""
    tbps = gbps / 1000
    return f"{tbps / 1000:,.2f} Pb/s" if tbps >= 1000 else f"{tbps:,.1f} Tb/s"


def power_label(watts: float) -> str:
    """One way to write a power everywhere: '850 W', '12.3 kW', '5.57 MW'."""
    if abs(watts) >= 1e6:
        return f"{watts / 1e6:,.2f} MW"
    if abs(watts) >= 1e3:
        return f"{watts / 1e3:,.1f} kW"
    return f"{watts:,.0f} W"


def figure_text(value: float, unit: str) -> str:
    """One way to write a comparison's figure without its unit, in the window, the report, the
    command line and slides alike: bandwidth in Tb/s to one decimal (as `bandwidth_label`), money
    to the dollar, whole numbers whole, and other figures to three significant digits or so."""
    if unit == "USD" and 0 < abs(value) < 100 and not float(value).is_integer():
        return f"{value:,.2f}"  # cost per step or per million tokens: cents matter
    if unit == "USD" or float(value).is_integer():
        return f"{value:,.0f}"
    if unit == "Tb/s":
        return f"{value:,.1f}"
    magnitude = abs(value)
    if magnitude >= 100:
        return f"{value:,.0f}"
    if magnitude >= 10:
        return f"{value:,.1f}"
    return f"{value:,.2f}"


def rate_label(per_day: float | None, missing: str = "no published rate") -> str:
    """A failure rate or an expected count as people read it: '0.65', or (a
    per-link-day rate of 1.9e-5 is '19 per million'), never in scientific notation."""
    if per_day is None:
        return missing
    if per_day == 0 or per_day >= 0.001:
        return f"{per_day:,.3g}"
    return f"{per_day * 1e6:,.3g} per million"

