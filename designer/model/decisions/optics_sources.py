"""Where the figures that set a pluggable fabric apart from its co-packaged-optics twin come from.

A comparison with a co-packaged-optics (CPO) switch turns on three rows: the transceiver count,
the network power and the expected failures per month. Each has its source in the data (the CPO
switch's catalog entry, the failure-rate table); this module names them in one line each, so that
the command line, its JSON and the report state them beside the figures.
"""

from __future__ import annotations

from collections.abc import Sequence

from designer.model.decisions.interruptions import Rate
from designer.model.physical.bom import switch_models
from designer.model.topology.derive import Derived


def _clause(source: str, *words: str) -> str:
    """The clause of a catalog source (clauses are separated by '; ') that names all of `words`,
    else the whole source: a long source keeps only the part behind the figure at hand."""
    for clause in source.split("; "):
        if all(w.lower() in clause.lower() for w in words):
            return clause.strip()
    return source.strip()


def optics_sources(designs: Sequence[Derived], rates: tuple[Rate, ...] | None) -> tuple[str, ...]:
    """One line per figure a CPO switch changes, with its source; () when no design has one."""
    cpo = {sw.id: sw for d in designs for sw in switch_models(d) if sw.co_packaged_optics}
    if not cpo:
        return ()
    lines = []
    for sw in sorted(cpo.values(), key=lambda s: s.id):
        lines.append(f"transceivers: {sw.name} ports take fibers directly, so its fabric has no switch-side "
                     f"modules; {_clause(sw.source, 'newsroom')}")
        basis = "an estimate" if sw.is_estimate("power_w") else "as published"
        lines.append(f"network power: {sw.name} at {sw.power_w:,.0f} W with its optics ({basis}); "
                     f"{_clause(sw.source, 'blog', ' W ')}")
    for rate in rates or ():
        if rate.applies_to not in ("links", "transceivers") or rate.per_unit_day is None:
            continue   # the rates optics_failures_per_month adds, as the failures row counts them
        lines.append(f"failures / month: {rate.label}, {rate.per_unit_day * 365:.3g} per {rate.applies_to[:-1]}-"
                     f"year over each design's {rate.applies_to}; source: {rate.source}")
    return tuple(lines)
