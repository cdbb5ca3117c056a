"""Rail-only fabrics: one switch (or one rail fabric) per rail, and no spine between the rails.

In a rail-optimized fabric, rail p of every server meets rail p of every other server on a leaf,
and spines join the rails. Wang et al. ("Rail-only", arXiv 2307.12169) observe that LLM training
traffic that crosses rails can first cross the server's NVLink domain (NCCL's PXN), so the spines
can go: all-reduce and all-gather stay on their rail, and all-to-all pays one NVLink hop.

Sizing treats every rail of every plane as a fabric of its own (sizing.resolve). A rail-optimized
request with no tier count is built rail-only when the data say every rail fits one switch and
the server's NVLink domain spans all its GPUs: the same rule as the single switch (a spine tier
would then join nothing that NVLink does not already join). The rail-optimized two-tier design
is priced beside it in a note, and `--tiers 2` builds it.
"""

from __future__ import annotations

from collections.abc import Callable

from designer.catalog import Catalog, UnknownPartError
from designer.model.intent.design import FabricDesign
from designer.model.topology.sizing import Resolved, SizingError, plan_fabric, resolve
from designer.model.topology.switch_choice import Option, SwitchChoice


def nvlink_spans_server(r: Resolved) -> bool:
    """Every GPU of a server reaches every other over NVLink: a rail can hand traffic to another
    rail inside the server (PXN), which rail-only relies on."""
    return r.server.nvlink_domain_gpus >= r.gpus_per_server > 0


def rails_fit_one_switch(design: FabricDesign, catalog: Catalog) -> bool:
    """A rail-only design whose every rail fabric is a single switch."""
    try:
        r = resolve(design, catalog)
        return plan_fabric(design, r).tiers == 1
    except (SizingError, UnknownPartError, ValueError):
        return False


def _tiers(design: FabricDesign, catalog: Catalog) -> int:
    try:
        return plan_fabric(design, resolve(design, catalog)).tiers
    except (SizingError, UnknownPartError, ValueError):
        return 0


def _cost_text(o: Option) -> str:
    return f"{o.cost_text} {o.cost:,.0f}" if o.cost is not None else o.cost_text


def _saving(rail_only: Option, optimized: Option) -> str:
    if rail_only.cost is None or optimized.cost is None or rail_only.cost_text != optimized.cost_text:
        return "not priced (the price book lacks a part of one of them)"
    saved = optimized.cost - rail_only.cost
    share = saved / optimized.cost if optimized.cost else 0.0
    return f"{rail_only.cost_text} {saved:,.0f} ({share:.0%}) less"


def rail_only_by_default(catalog: Catalog, optimized: SwitchChoice,
                         build_rail_only: Callable[[], SwitchChoice], take: bool = True) -> SwitchChoice:
    """The rail-only choice in place of a rail-optimized one when every rail fits one switch and
    NVLink spans the server; else the rail-optimized choice unchanged. The note prices both.
    With `take` False (the template was named), the rail-optimized choice is kept and the note
    prices the rail-only alternative."""
    best = optimized.chosen
    if best is None or _tiers(optimized.design, catalog) <= 1:
        return optimized          # one switch already takes every endpoint (or nothing was sized)
    try:
        ro = build_rail_only()
    except (SizingError, UnknownPartError, ValueError):
        return optimized
    chosen = ro.chosen
    if chosen is None or not rails_fit_one_switch(ro.design, catalog):
        return optimized
    r = resolve(ro.design, catalog)
    if not nvlink_spans_server(r):
        return optimized
    rails = r.planes
    if not take:
        note = (f"rail-only alternative: every rail's {r.rails * ro.design.cluster.servers:,} ports fit one "
                f"{chosen.mode}: {chosen.switches:,} switches, {_cost_text(chosen)}, {_saving(chosen, best)} than "
                "this design, with all-to-all forwarded over NVLink (see collectives); --template rail-only "
                "builds it")
        return SwitchChoice(optimized.design, optimized.options, (*optimized.notes, note))
    note = (f"template: rail-only, one {chosen.mode} per rail ({rails} rails, {chosen.switches:,} switches, "
            f"{_cost_text(chosen)}): every rail's {r.rails * ro.design.cluster.servers:,} ports fit one switch and "
            f"the {r.server.name}'s NVLink domain joins its {r.gpus_per_server} GPUs, so cross-rail traffic "
            "crosses NVLink (NCCL PXN) instead of a spine; all-reduce and all-gather are unchanged, all-to-all "
            "pays the NVLink hop (see collectives). The rail-optimized alternative in "
            f"{_tiers(optimized.design, catalog)} tiers is {best.label}; rail-only costs {_saving(chosen, best)}. "
            "--tiers 2 builds the rail-optimized fabric")
    others = tuple(n for n in ro.notes if not n.startswith("tiers:"))
    return SwitchChoice(ro.design, ro.options, (note, *others))
