"""The routing twin's report as text lines, for the command line and the window alike."""

from __future__ import annotations

from collections import Counter

from designer.twin.routing import Phase, TwinReport

MAX_DOWN_LISTED = 12


def _widths_line(phase: Phase, every_link: bool) -> list[str]:
    if not phase.widths:
        return ["ECMP: no leaf reaches another leaf (a single leaf, or no leaf left)"]
    ok = [w for w in phase.widths if w.low == w.high == (w.uplinks if every_link else w.spines)]
    basis = "its uplinks" if every_link else "its spine count"
    out = [f"ECMP width to every other leaf's loopback: {len(ok)} of {len(phase.widths)} leaves equal to {basis}"]
    groups = Counter((w.low, w.high, w.spines, w.uplinks) for w in phase.widths)
    for (low, high, spines, uplinks), n in sorted(groups.items()):
        width = f"{low}" if low == high else f"{low} to {high}"
        out.append(f"  {n:>4} {'leaf' if n == 1 else 'leaves'}: width {width}, {spines} spines "
                   f"({uplinks} uplinks in the twin)")
    return out


def phase_lines(phase: Phase, every_link: bool) -> list[str]:
    verdict = (f"converged in {phase.seconds:.1f} s" if phase.converged else
               f"NOT converged after {phase.seconds:.1f} s (the last change seen)")
    out = [f"Routing: {verdict}",
           f"BGP sessions: {phase.established:,} of {phase.expected_sessions:,} up"]
    down = phase.down
    for s in down[:MAX_DOWN_LISTED]:
        out.append(f"  {s.switch} {s.interface}: {s.state} ({s.reason})")
    if len(down) > MAX_DOWN_LISTED:
        out.append(f"  and {len(down) - MAX_DOWN_LISTED:,} more down")
    faulted = phase.faulted
    if faulted:
        states = Counter(f"{s.state}: {s.reason}" for s in faulted)
        out.append(f"  {len(faulted):,} sessions down with the faults, as they should be ("
                   + "; ".join(f"{n} {what}" for what, n in states.most_common(3)) + ")")
    out += _widths_line(phase, every_link)
    out.append("Routes per tier (installed in the kernel; next hops of the BGP routes):")
    out.append(f"  {'tier':<6} {'switches':>8} {'routes':>8} {'per switch':>11} {'bgp':>7} {'next hops':>10}")
    for t in phase.tiers:
        per = f"{t.routes_min}" if t.routes_min == t.routes_max else f"{t.routes_min}-{t.routes_max}"
        out.append(f"  {t.tier:<6} {t.switches:>8,} {t.routes:>8,} {per:>11} {t.bgp_routes:>7,} {t.next_hops:>10,}")
    if phase.flows:
        out += phase.flows.lines()
    return out


def report_lines(report: TwinReport) -> list[str]:
    bundles = ("every design link is a veth pair" if report.every_link else
               f"bundles collapsed to one link per switch pair ({report.design_links:,} design links as "
               f"{report.links:,}; a leaf's ECMP width is then its spine count)")
    out = [f"Routing twin of \"{report.design}\": FRR (zebra, bgpd) in {report.switches:,} network namespaces, "
           f"{report.links:,} veth pairs",
           f"Links: {bundles}",
           "Configuration: each switch's frr.conf as the frr export writes it (designer.io.frr)",
           "", *phase_lines(report.before, report.every_link)]
    if report.after:
        out += ["", "Faults: " + ", ".join(f.target for f in report.faults)]
        out += _changes(report)
        out += phase_lines(report.after, report.every_link)
    out.append("")
    out.append("Clean-up: every namespace and daemon of the run removed" if not report.cleanup else
               "Clean-up: could not remove " + ", ".join(report.cleanup))
    return out


def _span(low_high: tuple[int, int]) -> str:
    low, high = low_high
    return f"{low}" if low == high else f"{low} to {high}"


def _changes(report: TwinReport) -> list[str]:
    """What reconverged: sessions lost, routes and ECMP widths before and after."""
    assert report.after is not None
    before, after = report.before, report.after
    out = [f"  sessions: {before.established:,} up before, {after.established:,} after "
           f"({before.established - after.established:,} gone with the faults)"]
    widths_before = {w.leaf: (w.low, w.high) for w in before.widths}
    moves: Counter[tuple[tuple[int, int], tuple[int, int]]] = Counter()
    for w in after.widths:
        if w.leaf in widths_before:
            moves[(widths_before[w.leaf], (w.low, w.high))] += 1
    for (b, a), n in sorted(moves.items()):
        change = ("unchanged" if a == b else f"down by {b[0] - a[0]}" if b[0] == b[1] and a[0] == a[1] else
                  "some leaves' width lower")
        out.append(f"  ECMP width {_span(b)} before, {_span(a)} after ({change}) on {n} of {len(after.widths)} "
                   f"{'leaf' if len(after.widths) == 1 else 'leaves'}")
    routes_before = {t.tier: t.routes for t in before.tiers}
    for t in after.tiers:
        out.append(f"  {t.tier} routes: {routes_before.get(t.tier, 0):,} before, {t.routes:,} after")
    return out
