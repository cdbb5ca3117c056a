"""What a buyer orders: the variant of a module each cage takes, and a cable's length in its
ordering number, from the rules in resources/parts/orderable.toml (each with its source).

A twin-port OSFP module goes finned-top into an air-cooled switch and flat-top into a DGX H100
cage; a single-port OSFP module is flat-top for an adapter cage. Where the source names the
variant but not its ordering number, the line says so rather than guess one.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from designer.catalog.entries import Cable, Transceiver
from designer.catalog.loader import RESOURCES
from designer.limits import parse_toml, read_text

RULES_FILE = RESOURCES / "parts" / "orderable.toml"


@dataclass(frozen=True)
class Orderable:
    part_number: str    # what to order ("" when no number is known)
    note: str           # the variant and its source, or why the number is not settled


@lru_cache(maxsize=1)
def rules() -> dict[str, Any]:
    return parse_toml(read_text(RULES_FILE, "orderable-parts rules"), str(RULES_FILE))


def _cage(module: Transceiver, side: str) -> str | None:
    """Which cage rule a module on this side follows, or None (no OSFP variant to choose)."""
    if "OSFP" not in module.form_factors:
        return None
    twin = module.connectors > 1
    if side == "switch":
        return "switch_twin_port" if twin else None
    return "server_twin_port" if twin else "adapter_single_port"


def module_part(module: Transceiver, side: str) -> Orderable:
    """The orderable module for one end: `side` is 'switch' or 'host'."""
    which = _cage(module, side)
    if which is None or not module.part_number:
        return Orderable(module.part_number, "")
    rule = rules()["cage"][which]
    text = f"{rule['top']} {rule['applies'].split(' in ', 1)[-1]}".strip()
    if rule.get("unsettled"):
        return Orderable(f"{module.part_number} ({rule['top']} variant)",
                         f"{text}: {rule['unsettled']} (source: {rule['source']})")
    return Orderable(module.part_number, f"{text} (source: {rule['source']})")


def length_code(metres: float) -> str | None:
    """NVIDIA's length code: 1 -> 'N001', 1.5 -> 'N01A', 100 -> 'N100'; None for other fractions."""
    whole = int(metres)
    half = metres - whole
    if half == 0 and 0 < whole <= 999:
        return f"N{whole:03d}"
    if half == 0.5 and 0 <= whole <= 99:
        return f"N{whole:02d}A"
    return None


def cable_part(cable: Cable, metres: float) -> Orderable:
    """The cable's ordering number with its length where the vendor's numbering carries it."""
    length = rules()["length"]
    code = length_code(metres)
    base = cable.part_number
    if not base or code is None:
        return Orderable(base, "")
    if base in length.get("confirmed", []):
        return Orderable(f"{base}-{code}", f"length in the ordering number (source: {length['source']})")
    if base in length.get("assumed", []):
        return Orderable(f"{base}-{code}", length["assumed_note"])
    return Orderable(base, "")
