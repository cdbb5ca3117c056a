"""The InfiniBand twin's result in words and a table, for the command line and the window."""

from __future__ import annotations

from designer.twin.infiniband import TwinResult


def percent(x: float) -> str:
    return f"{x:.0%}"


_pct = percent


def twin_text(r: TwinResult) -> str:
    """The twin's report as the command line prints it and the window shows it."""
    out = [f"{r.design}: {r.switches:,} switches, {r.cas:,} CAs on the ibsim simulator"]
    if not r.subnet_up:
        out.append("OpenSM not run: the fabric was captured only")
    elif r.routed:
        out.append(f"OpenSM {r.engine} routed the fabric: tables on every switch in {r.seconds_to_route:.2f} s, "
                   f"subnet up {r.seconds_to_subnet_up:.1f} s after OpenSM started")
    else:
        out.append(f"OpenSM {r.engine} did not route the fabric: {r.reason}. It fell back to {r.routed_by} "
                   f"(subnet up after {r.seconds_to_subnet_up:.1f} s)")
    for f in r.faults:
        out.append(f"fault applied: {f.target}")
    if r.capture:
        out.append(f"capture written: {r.capture} (ibnetdiscover on the simulator; speeds are the simulator's)")
    if r.load is not None:
        out.append("")
        out.append("All-to-all flows per port (static routes):")
        for t in r.load.routes_per_port:
            out.append(f"  {t.tier:<18} {t.ports:>6,} ports  min {t.least:,}  mean {t.mean:,.1f}  max {t.most:,}")
        out.append("")
        out.append(f"{'pattern':<11} {'flows':>10}  {'worst port load':>24}  {'throughput':>22}  slowest flow")
        out.append(f"{'':<11} {'':>10}  {'tables / model':>24}  {'tables / model':>22}")
        for p in r.load.patterns:
            lost = f", {p.unrouted:,} unrouted" if p.unrouted else ""
            out.append(f"{p.pattern:<11} {p.flows:>10,}  {_pct(p.worst_load) + ' / ' + _pct(p.model_worst_load):>24}  "
                       f"{_pct(p.throughput) + ' / ' + _pct(p.model_throughput):>22}  {_pct(p.slowest)}{lost}")
        out.append("load: offered over capacity at the busiest port, the busiest NIC at line rate; throughput:")
        out.append("delivered over offered, max-min fair; model: each tier's load spread evenly over its links, "
                   "as adaptive routing approaches")
    out += [f"note: {n}" for n in r.notes]
    return "\n".join(out)
