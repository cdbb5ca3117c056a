"""How often will it fail: expected link failures and interruptions from counts and a rate table.

The counts (links, transceivers, cables, NICs, switches, GPUs) are computed from the design.
The rates come from resources/reliability/failure_rates.toml, each with its source and with
what was measured there and what is extrapolated here; the products are therefore estimates.
A rate with no published figure is listed as missing, never guessed.

Whether one failure stops a job is computed with the failure model (whatif): one link of
each tier is failed on the graph. On a single-plane fabric a NIC-leaf link takes its GPU
away; with two planes the GPU keeps its other NIC and the job runs on at reduced bandwidth.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from designer.catalog.loader import RESOURCES
from designer.limits import InputError, parse_toml, quote, read_text, terminal_text
from designer.model.decisions.whatif import Failure, what_if
from designer.model.intent.design import FabricDesign
from designer.model.physical.bom import build_bom
from designer.model.topology.builders import _spread, nic_id, plane_prefix
from designer.model.topology.derive import Derived, derive
from designer.model.topology.edited_fabric import plan_assignment
from designer.model.topology.sizing import SizingError

RATES_FILE = RESOURCES / "reliability" / "failure_rates.toml"
DAYS_PER_MONTH = 30.0
UNITS = ("links", "gpus", "transceivers", "cables", "nics", "switches")
# What each count is, as a reader says it: the window, the report and the CLI name it alike.
UNIT_NAMES = {"gpus": "GPUs", "nics": "NIC ports", "links.node-leaf": "server links",
              "links.leaf-spine": "leaf-spine links", "links.spine-core": "spine-core links",
              "links.manual": "manual links"}


def unit_name(key: str) -> str:
    """A count's key as a reader says it: 'gpus' is GPUs, 'links.leaf-spine' leaf-spine links."""
    return UNIT_NAMES.get(key, key)


# A rate table is a few KiB; a megabyte is far more than any real one.
MAX_RATES_BYTES = 2**20


# The entries that are words, not numbers: a number, a list or NaN there is a slip, refused.
_TEXT_KEYS = ("id", "label", "per", "measured", "extrapolated", "source")


class RateTableError(ValueError):
    """The failure-rate table cannot be read: one line naming the entry."""


@dataclass(frozen=True)
class Rate:
    id: str
    label: str
    applies_to: str
    per: str
    per_unit_day: float | None     # None: no published figure
    measured: str
    extrapolated: str
    source: str


def _per_day(row: dict[str, Any], where: str) -> float | None:
    per = row.get("per")
    try:
        if per == "gpu-day":
            if "events" not in row:
                return None
            rate = float(row["events"]) / (float(row["gpus"]) * float(row["days"]))
            if not math.isfinite(rate) or rate < 0:
                raise RateTableError(f"{where}: events, gpus and days must give a finite rate, zero or more")
            return rate
        if "value" not in row:
            return None
        value = float(row["value"])
        if not math.isfinite(value) or value < 0:
            raise RateTableError(f"{where}: a rate must be a finite number, zero or more")
        if per == "link-month":
            return value / DAYS_PER_MONTH
        if per == "unit-year":
            return value / 365.0
    except (KeyError, TypeError, ValueError, ZeroDivisionError) as exc:
        if isinstance(exc, RateTableError):
            raise
        raise RateTableError(f"{where}: malformed rate ({exc})") from None
    raise RateTableError(f"{where}: unknown kind per = {per!r} (use link-month, gpu-day or unit-year)")


def load_rates(path: str | Path | None = None) -> tuple[Rate, ...]:
    """The rate table (the built-in one unless `path` names another)."""
    path = Path(path) if path else RATES_FILE
    try:
        # The one capped parse: nesting, number length and text bounds as for every TOML file.
        data = parse_toml(read_text(path, "failure-rate table", MAX_RATES_BYTES), str(path))
    except InputError as exc:
        raise RateTableError(f"cannot read failure rates: {exc}") from None
    rows = data.get("rate", [])
    if not isinstance(rows, list) or not all(isinstance(row, dict) for row in rows):
        raise RateTableError(f"{path.name}: expected [[rate]] tables")
    out = []
    for n, row in enumerate(rows, start=1):
        where = f"{terminal_text(path.name)}, rate {terminal_text(str(row.get('id', n)))}"
        if row.get("applies_to") not in UNITS:
            raise RateTableError(f"{where}: applies_to must be one of {', '.join(UNITS)}")
        for key in _TEXT_KEYS:
            if key in row and not isinstance(row[key], str):
                raise RateTableError(f"{where}: {key} must be text, got {quote(row[key], 40)}")
        out.append(Rate(str(row.get("id", n)), str(row.get("label", row.get("id", n))), row["applies_to"],
                        str(row.get("per", "")), _per_day(row, where), str(row.get("measured", "")),
                        str(row.get("extrapolated", "")), str(row.get("source", ""))))
    return tuple(out)


@dataclass(frozen=True)
class Expected:
    rate: Rate
    units: int

    @property
    def per_day(self) -> float | None:
        return None if self.rate.per_unit_day is None else self.units * self.rate.per_unit_day

    @property
    def per_month(self) -> float | None:
        return None if self.per_day is None else self.per_day * DAYS_PER_MONTH

    def to_json(self) -> dict[str, Any]:
        r = self.rate
        return {"id": r.id, "label": r.label, "applies_to": r.applies_to, "units": self.units,
                "per_day": self.per_day, "per_month": self.per_month, "estimated": True,
                "measured": r.measured, "extrapolated": r.extrapolated, "source": r.source,
                "published": r.per_unit_day is not None}


@dataclass(frozen=True)
class StopShare:
    label: str                      # the fabric the share is for
    planes: int
    share: float | None             # of expected link and NIC failures, the part that stops a job
    stops_by_kind: dict[str, bool]  # link tier or "nic" -> one failure cuts a GPU off

    def to_json(self) -> dict[str, Any]:
        return {"label": self.label, "planes": self.planes, "share": self.share,
                "stops_by_kind": dict(self.stops_by_kind),
                "computed": "which failures stop a job", "estimated": "the share (from the rates)"}


@dataclass(frozen=True)
class Interruptions:
    counts: dict[str, int]
    expected: tuple[Expected, ...]
    design_share: StopShare
    other_share: StopShare | None   # the same cluster with the other plane count
    notes: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"counts": dict(self.counts), "expected": [e.to_json() for e in self.expected],
                "stop_share": self.design_share.to_json(),
                "stop_share_other_planes": self.other_share.to_json() if self.other_share else None,
                "notes": list(self.notes)}


def optics_failures_per_month(links: int, transceivers: int, rates: tuple[Rate, ...]) -> float | None:
    """Expected link and pluggable-module failures per month: the rates that apply to links and
    to transceivers, each times its count, added (None when no such rate is published). A
    co-packaged-optics fabric has fewer modules, hence fewer expected failures, links equal."""
    units = {"links": links, "transceivers": transceivers}
    parts = [units[r.applies_to] * r.per_unit_day * DAYS_PER_MONTH for r in rates
             if r.applies_to in units and r.per_unit_day is not None]
    return sum(parts) if parts else None


def counts_of(derived: Derived) -> dict[str, int]:
    m = derived.metrics
    bom = build_bom(derived)
    return {"gpus": m.gpus, "links": m.links_total, "transceivers": bom.optics_count,
            "cables": bom.cable_count, "nics": m.endpoints, "switches": m.switches_total,
            **{f"links.{t}": n for t, n in m.links_by_tier.items()}}


def _first_links(derived: Derived) -> list[tuple[str, tuple[str, str]]] | None:
    """The first link of each tier, as the device graph lists them, without building it: in a
    template every link of a tier stands as every other does (the same leaf uplinks, the same
    NICs per GPU), so the first of each is the one the graph would give. Edited designs: None."""
    if derived.design.edits:
        return None
    plan, r = derived.plan, derived.resolved
    pre = plane_prefix(0, r.planes)
    leaf = plan_assignment(plan, r.rails)[0][0]   # the first endpoint's, without a tuple per endpoint
    out = [("node-leaf", (f"{pre}leaf-{leaf + 1}", nic_id(0, 0)))]
    up = next((t for t, n in enumerate(_spread(plan.leaf_up, max(plan.spines_per_pod, 1), 0)) if n), None)
    if up is not None and plan.spines:
        out.append(("leaf-spine", (f"{pre}leaf-1", f"{pre}spine-{up + 1}")))
    if plan.tiers == 3 and plan.cores:
        up = next((t for t, n in enumerate(_spread(plan.spine_up, max(plan.core_groups_size, 1), 0)) if n), None)
        if up is not None:
            out.append(("spine-core", (f"{pre}spine-1", f"{pre}core-{up % plan.cores + 1}")))
    return out


def _stops(derived: Derived) -> dict[str, bool]:
    """Per link tier: does failing one such link cut a GPU off? (the first link of the tier)."""
    out: dict[str, bool] = {}
    firsts = _first_links(derived)
    links: Iterable[tuple[str, str, str]] = (((u, v, tier) for tier, (u, v) in firsts) if firsts is not None
             else derived.graph.edges(data="tier"))
    for u, v, tier in links:
        if tier in out or tier == "manual":
            continue
        out[tier] = what_if(derived, Failure(links=((u, v),)), "max-flow", flow=False).gpus_cut > 0
    out["nic"] = out.get("node-leaf", True)   # a failed NIC port is its NIC-leaf link gone
    return out


def stop_share(derived: Derived, rates: tuple[Rate, ...], label: str = "this design") -> StopShare:
    stops = _stops(derived)
    m = derived.metrics
    weights: dict[str, float] = {}
    link_rate = next((r.per_unit_day for r in rates if r.id == "link"), None)
    nic_rate = next((r.per_unit_day for r in rates if r.id == "nic"), None)
    if link_rate is not None:
        for tier, n in m.links_by_tier.items():
            weights[tier] = n * link_rate
    if nic_rate is not None:
        weights["nic"] = m.gpus * nic_rate
    total = sum(weights.values())
    share = sum(w for k, w in weights.items() if stops.get(k)) / total if total else None
    return StopShare(label, m.planes, share, stops)


def interruptions(derived: Derived, rates: tuple[Rate, ...] | None = None) -> Interruptions:
    rates = rates if rates is not None else load_rates()
    counts = counts_of(derived)
    expected = tuple(Expected(r, counts[r.applies_to]) for r in rates)
    notes = [f"{e.rate.label}: no published rate; not estimated" for e in expected if e.per_day is None]
    mine = stop_share(derived, rates)
    other = None
    try:
        counterpart, label = _other_planes(derived)
        other = stop_share(derive(counterpart), rates, label)
    except SizingError as exc:
        notes.append(f"no counterpart with another plane count: {exc}")
    return Interruptions(counts, expected, mine, other, tuple(notes))


def _other_planes(derived: Derived) -> tuple[FabricDesign, str]:
    """The same cluster on one plane, or (from one plane) on two with every GPU in both.

    Two planes keep the GPU's bandwidth as twice the ports at half the speed, the way the
    B300 Ethernet reference design pairs 2 x 400G against one 800G port.
    """
    r, design = derived.resolved, derived.design
    if r.planes > 1:
        fabric = replace(design.fabric, planes=1)
        return replace(design, fabric=fabric, edits=()), "the same cluster on one plane"
    ports, speed = r.ports_per_server * 2, r.port_gbps // 2
    cluster = replace(design.cluster, ports_per_server=ports, port_gbps=speed)
    fabric = replace(design.fabric, planes=2, link_gbps=None, uplink_gbps=None)
    label = f"two planes, {ports} x {speed}G per server"
    return replace(design, cluster=cluster, fabric=fabric, edits=()), label
