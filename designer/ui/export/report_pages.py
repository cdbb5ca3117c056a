"""The report's pages of figures: metrics, BOM, collective curves, the two compared fabrics.

Each function fills the body rectangle of one page (device units) through `Ink`.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF

from designer.model.common.units import bandwidth_label, rate_label
from designer.model.common.units import duration_label as duration
from designer.model.performance.collectives import CollectiveResult
from designer.model.physical.bom import CATEGORIES
from designer.ui.export import page
from designer.ui.export.charts import Marker, Series, chart
from designer.ui.export.diagram import Diagram, DiagramSource, View, speed_label
from designer.ui.export.facts import Facts, money, money_exact, power, ratio, size
from designer.ui.export.ink import Ink
from designer.ui.export.page import CENTER, LEFT, RIGHT, Column
from designer.ui.theme import FAMILY_HUES, TIER_HUES

SEVERITY_LABEL = {"error": "Error", "warning": "Warning", "info": "Note"}
ABOUT_NUMBERS = (
    "Counts, bandwidths, oversubscription and hops are computed from the design (in closed form for a "
    "template fabric, by max-flow once it is edited by hand). Estimates are labelled where they appear: "
    "power figures the catalog marks as estimates, the built-in prices (illustrative, not quotes), and "
    "collective times and bandwidths (an NCCL-style cost model on catalog figures, not measurements).")
KEY_SIZES = (1 << 20, 64 << 20, 1 << 30)
ALLREDUCE_COLOR = FAMILY_HUES["infiniband"]
ALLTOALL_COLOR = TIER_HUES["core"]


def _two_columns(rect: QRectF, ink: Ink, split: float = 0.5) -> tuple[QRectF, QRectF]:
    gap = ink.pt(18)
    w = (rect.width() - gap)
    left = QRectF(rect.left(), rect.top(), w * split, rect.height())
    right = QRectF(left.right() + gap, rect.top(), w * (1 - split), rect.height())
    return left, right


def _sub_title_height(ink: Ink) -> float:
    return ink.line_height(10.5, True) + ink.pt(4)


def _sub_title(ink: Ink, rect: QRectF, text: str) -> float:
    h = ink.line_height(10.5, True)
    ink.text(QRectF(rect.left(), rect.top(), rect.width(), h), text, 10.5, ink.theme.text, bold=True, align=LEFT)
    return h + ink.pt(4)


def metrics_page(ink: Ink, rect: QRectF, f: Facts) -> None:
    m = f.metrics
    d = f.derived
    r, plan = d.resolved, d.plan
    y = rect.top() + page.section_title(ink, rect, "Metrics summary", "computed from the design; estimates marked")
    body = QRectF(rect.left(), y, rect.width(), rect.bottom() - y)
    left, right = _two_columns(body, ink, 0.44)
    columns = [Column("Item", 0.48), Column("Value", 0.52)]
    sus = f"{plan.sus} SU{'s' if plan.sus != 1 else ''}"
    structure = f"{sus} of {plan.rail_su_size} servers" if plan.rail_su_size else \
        (f"{plan.pods} pods" if plan.tiers == 3 else "one leaf-spine block")
    rows: list[tuple[str, ...]] = [
        ("Template", f"{page.TEMPLATE_LABEL.get(m.template, m.template)}, {m.tiers} tiers"),
        ("Technology", r.technology.name),
        ("Structure", structure),
        ("Planes", f"{m.planes}"),
        ("Servers", f"{m.servers:,} × {r.server.name}"),
        ("GPUs", f"{m.gpus:,} ({r.gpus_per_server} per server)"),
        ("Endpoints (NIC ports)", f"{m.endpoints:,} ({m.rails} rails per plane)"),
        ("Server links", f"{speed_label(m.link_gbps)} per port"),
        ("Switch-to-switch links", f"{speed_label(m.uplink_gbps)}"),
        ("Bisection bandwidth", bandwidth_label(m.bisection_gbps)),
        ("Bisection ratio", f"{m.bisection_ratio:.0%} of full ({bandwidth_label(m.full_bisection_gbps)}), "
                            f"{m.bisection_method}"),
        ("Max switch hops", f"{m.max_hops} (same rail: {m.max_hops_same_rail})"),
        ("Growth headroom", f"{m.headroom_gpus:,} GPUs before {m.headroom_limit}"),
    ]
    y = left.top() + _sub_title(ink, left, "Cluster and fabric")
    y += page.table(ink, QRectF(left.left(), y, left.width(), left.bottom() - y), columns, rows, 8.5) + ink.pt(14)
    notes = [("About these numbers", ABOUT_NUMBERS)]
    if f.design.meta.notes.strip():
        notes.insert(0, ("Notes", f.design.meta.notes.strip()))
    for title, text in notes:
        if left.bottom() - y < ink.pt(40):
            break
        y += _sub_title(ink, QRectF(left.left(), y, left.width(), 20), title)
        y += ink.paragraph(QRectF(left.left(), y, left.width(), left.bottom() - y), text, 8, ink.theme.muted) \
            + ink.pt(12)

    y = right.top() + _sub_title(ink, right, "Switches by tier")
    tiers = [t for t in ("leaf", "spine", "core") if m.switches_by_tier.get(t)]
    models = {"leaf": r.leaf_switch.name, "spine": r.spine_switch.name, "core": r.core_switch.name}
    cols = [Column("Tier", 0.6), Column("Switches", 0.7, RIGHT), Column("Model", 1.35),
            Column("Ports used", 0.8, RIGHT), Column("Free", 0.55, RIGHT), Column("Oversub.", 0.75, RIGHT)]
    rows = []
    for t in tiers:
        ports = m.ports_by_tier.get(t)
        rows.append((t.capitalize(), f"{m.switches_by_tier[t]:,}", models[t],
                     f"{ports.ports_used:,}" if ports else "—", f"{ports.ports_free:,}" if ports else "—",
                     ratio(ports.oversubscription_worst) if ports else "—"))
    rows.append(("Total", f"{m.switches_total:,}", "", "", "", ""))
    used = page.table(ink, QRectF(right.left(), y, right.width(), page.table_height(ink, len(rows))), cols, rows, 8.5,
                      [""] * (len(rows) - 1) + ["bold"])
    y += used + ink.pt(14)
    y += _sub_title(ink, QRectF(right.left(), y, right.width(), 20), "Links")
    names = {"node-leaf": "Server to leaf", "leaf-spine": "Leaf to spine", "spine-core": "Spine to core",
             "manual": "Added by hand"}
    rows = [(names.get(k, k), f"{v:,}", speed_label(m.link_gbps if k == "node-leaf" else m.uplink_gbps))
            for k, v in m.links_by_tier.items()]
    rows.append(("Total", f"{m.links_total:,}", ""))
    cols = [Column("Tier", 1.4), Column("Links", 0.8, RIGHT), Column("Speed", 0.8, RIGHT)]
    used = page.table(ink, QRectF(right.left(), y, right.width(), page.table_height(ink, len(rows))), cols, rows, 8.5,
                      [""] * (len(rows) - 1) + ["bold"])
    y += used + ink.pt(14)
    findings = sorted(m.findings, key=lambda x: ("error", "warning", "info").index(x.severity)
                      if x.severity in ("error", "warning", "info") else 3)
    tally = [f"{n} {label}{'s' if n != 1 else ''}" for label, n in
             (("error", len(m.errors)), ("warning", sum(f.severity == "warning" for f in findings)),
              ("note", sum(f.severity == "info" for f in findings))) if n]
    y += _sub_title(ink, QRectF(right.left(), y, right.width(), 20),
                    "Findings" + (f" · {', '.join(tally)}" if tally else ""))
    if not findings:
        ink.text(QRectF(right.left(), y, right.width(), ink.line_height(8.5)), "No problems found.", 8.5,
                 ink.theme.muted, align=LEFT)
    line = ink.line_height(8.5)
    for k, finding in enumerate(findings):
        text = f"{SEVERITY_LABEL.get(finding.severity, finding.severity)}: {finding.message}"
        need = ink.paragraph_height(right.width(), text, 8.5) + ink.pt(3)
        last = k == len(findings) - 1
        if y + need + (0 if last else line) > right.bottom():
            ink.text(QRectF(right.left(), y, right.width(), line),
                     f"… and {len(findings) - k} more: `fabric-designer metrics` lists them all.", 8.5,
                     ink.theme.muted, align=LEFT, elide=True)
            break
        color = ink.theme.severity(finding.severity) if finding.severity != "info" else ink.theme.text
        y += ink.paragraph(QRectF(right.left(), y, right.width(), need), text, 8.5, color) + ink.pt(3)


def bom_page(ink: Ink, rect: QRectF, f: Facts) -> None:
    y = rect.top() + page.section_title(ink, rect, "Bill of materials",
                                        "counts from the physical layer; prices per the price book")
    t = ink.theme
    b = f.bom
    if b is None:
        ink.paragraph(QRectF(rect.left(), y, rect.width(), rect.bottom() - y),
                      f"The bill of materials could not be built: {f.bom_error or 'unknown reason'}.", 9.5, t.error)
        return
    label = "Prices are illustrative estimates, not quotes (built-in price book)." if b.illustrative_prices else \
        "Prices from the price book: " + ", ".join(b.price_sources) + "."
    lh = ink.line_height(9, True)
    ink.text(QRectF(rect.left(), y, rect.width(), lh), label, 9, t.warning if b.illustrative_prices else t.text,
             bold=True, align=LEFT, elide=True)
    y += lh + ink.pt(8)
    incomplete = b.incomplete_note()
    if incomplete:
        # Unpriced parts count as 0: the totals are lower bounds, and the report says so up front.
        ink.text(QRectF(rect.left(), y, rect.width(), lh), f"Cost totals are {incomplete}.", 9, t.error,
                 bold=True, align=LEFT, elide=True)
        y += lh + ink.pt(8)
    mark = " (incomplete)" if incomplete else ""
    counts = b.counts or {}
    totals = [("Network cost",
               f"{money_exact(b.total_cost, b.currency)}, {money_exact(b.cost_per_gpu, b.currency)} per GPU"
               + mark),
              ("Network power", f"{power(b.total_power_w)}, {b.power_per_gpu_w:,.1f} W per GPU"
               + (" (includes estimates)" if f.power_is_estimate else "")),
              ("Transceivers", f"{b.optics_count:,} modules"
               + (f" ({counts['transceivers']['switch_side']:,} switch side)" if "transceivers" in counts else "")),
              ("Cables and fibers", f"{b.cable_count:,}")]
    if "network_racks" in counts:
        totals.append(("Network racks", f"{counts['network_racks']:,}"))
    if counts.get("co_packaged_optics"):
        totals.append(("Switch optics", "co-packaged: " + ", ".join(counts["co_packaged_optics"])))
    cooled = counts.get("liquid_cooled", {})
    if cooled.get("parts"):
        totals.append(("Liquid cooling",
                       f"{cooled['server_racks']:,} server racks, {cooled['network_racks']:,} network racks"))
    # Top: the summary by category, and the totals per GPU.
    cats = [c for c in CATEGORIES if b.by_category(c)]
    top_h = _sub_title_height(ink) + page.table_height(ink, max(len(cats) + 1, len(totals)))
    left, right = _two_columns(QRectF(rect.left(), y, rect.width(), top_h), ink, 0.55)
    yy = left.top() + _sub_title(ink, left, "By category")
    cols = [Column("Category", 1.3), Column("Quantity", 0.8, RIGHT), Column("Cost", 1.1, RIGHT),
            Column("Share of cost", 0.8, RIGHT), Column("Power", 0.8, RIGHT)]
    rows: list[tuple[str, ...]] = []
    total = b.total_cost or 1.0
    for cat in cats:
        items = b.by_category(cat)
        cost = sum(i.extended_price for i in items)
        watts = sum(i.total_power_w for i in items)
        rows.append((cat, f"{sum(i.quantity for i in items):,}", money_exact(cost, b.currency),
                     f"{cost / total:.0%}", power(watts) if watts else "—"))
    rows.append(("Total", "", money_exact(b.total_cost, b.currency) + mark, "100%", power(b.total_power_w)))
    page.table(ink, QRectF(left.left(), yy, left.width(), left.bottom() - yy), cols, rows, 8.5,
               [""] * (len(rows) - 1) + ["bold"])
    yy = right.top() + _sub_title(ink, right, "Totals")
    page.table(ink, QRectF(right.left(), yy, right.width(), right.bottom() - yy),
               [Column("Item", 0.8), Column("Value", 2.2, RIGHT)], totals, 8.5)
    y += top_h + ink.pt(14)
    # Below: every line item, full width so that descriptions (lengths, sides) stay whole.
    y += _sub_title(ink, QRectF(rect.left(), y, rect.width(), 20), "Line items")
    cols = [Column("Part number", 1.2), Column("Description", 4.6), Column("Quantity", 0.75, RIGHT),
            Column("Unit price", 0.85, RIGHT), Column("Extended", 1.0, RIGHT), Column("Power", 0.75, RIGHT)]
    rows, styles = [], []
    for cat in cats:
        rows.append((cat,))
        styles.append("group")
        for i in b.by_category(cat):
            rows.append((i.part_number or "—", i.description, f"{i.quantity:,}",
                         money_exact(i.unit_price, b.currency) if i.unit_price else "—",
                         money_exact(i.extended_price, b.currency) if i.extended_price else "—",
                         power(i.total_power_w) if i.total_power_w else "—"))
            styles.append("")
    warnings = [x for x in b.findings if x.severity in ("error", "warning")]
    notes = ["A dash: no price (included with the server, or missing from the price book) or no power."]
    if counts.get("co_packaged_optics"):
        notes.append("Co-packaged optics: the switch ports take fibers directly, so the bill has no switch-side "
                     "transceivers; their optics power (9 W per 1.6 Tb/s interface against about 30 W for a "
                     "pluggable one) is from NVIDIA's technical blog 'Scaling AI Factories with Co-Packaged "
                     "Optics' (Aug 2025) and is counted in the switch's power (an estimate).")
    notes += [f"{SEVERITY_LABEL[w.severity]}: {w.message}" for w in warnings[:3]]
    size_pt = 7.5
    row_h = ink.line_height(size_pt) + ink.pt(4)
    notes_h = len(notes) * ink.line_height(7.5) + ink.pt(6)
    fits = int((rect.bottom() - y - notes_h) // row_h) - 1
    shown = rows if len(rows) <= fits else rows[:max(0, fits - 1)]
    if len(shown) < len(rows):
        notes.insert(0, f"{len(rows) - len(shown)} more rows: `fabric-designer bom` lists them all.")
    used = page.table(ink, QRectF(rect.left(), y, rect.width(), rect.bottom() - y - notes_h), cols, shown, size_pt,
                      styles[:len(shown)])
    y += used + ink.pt(6)
    for note in notes:
        color = t.severity(note.split(":")[0].lower()) if note.startswith(("Warning", "Error")) else t.muted
        y += ink.paragraph(QRectF(rect.left(), y, rect.width(), rect.bottom() - y), note, 7.5, color)


def collectives_page(ink: Ink, rect: QRectF, f: Facts) -> None:
    y = rect.top() + page.section_title(ink, rect, "Collective performance (estimate)",
                                        "NCCL-style cost model on catalog figures; not a measurement")
    t = ink.theme
    try:
        from designer.model.performance.collectives import sweep

        ar = sweep(f.derived, "allreduce")
        a2a = sweep(f.derived, "alltoall")
    except Exception as exc:  # the design has no estimate (e.g. a figure is missing): say so
        ink.paragraph(QRectF(rect.left(), y, rect.width(), rect.bottom() - y),
                      f"No collective estimate for this design: {exc}", 9.5, t.error)
        return
    gpus = ar.gpus
    intro = (f"Estimated for {gpus:,} GPUs, {ar.placement} placement, algorithm chosen per size as NCCL would "
             f"(auto). Sizes are the buffer per GPU, as in nccl-tests; busbw follows nccl-tests' definition.")
    y += ink.paragraph(QRectF(rect.left(), y, rect.width(), ink.line_height(8.5) * 2.2), intro, 8.5, t.muted)
    y += ink.pt(6)
    table_rows = 1 + 2 * len(KEY_SIZES)
    table_h = page.table_height(ink, table_rows, 8) + ink.line_height(10.5, True) + ink.pt(6)
    charts_h = rect.bottom() - y - table_h - ink.pt(12)
    left, right = _two_columns(QRectF(rect.left(), y, rect.width(), charts_h), ink)
    series_bw = [Series("All-reduce", *ar.curve("busbw"), ALLREDUCE_COLOR),
                 Series("All-to-all", *a2a.curve("busbw"), ALLTOALL_COLOR, dashed=True)]
    series_t = [Series("All-reduce", *ar.curve("time"), ALLREDUCE_COLOR),
                Series("All-to-all", *a2a.curve("time"), ALLTOALL_COLOR, dashed=True)]
    markers_bw, markers_t = [], []
    if f.allreduce is not None:
        a = f.allreduce
        markers_bw.append(Marker(a.size_bytes, a.busbw_GBps, f"{a.busbw_GBps:,.0f} GB/s at {size(a.size_bytes)}",
                                 ALLREDUCE_COLOR))
        markers_t.append(Marker(a.size_bytes, a.time_us, f"{duration(a.time_us)} at {size(a.size_bytes)}",
                                ALLREDUCE_COLOR))
    chart(ink, left, "Bus bandwidth (estimate)", series_bw, "busbw in GB/s", markers=markers_bw)
    chart(ink, right, "Time per collective (estimate)", series_t, "time, log scale", log_y=True, markers=markers_t)
    y = rect.bottom() - table_h
    y += _sub_title(ink, QRectF(rect.left(), y, rect.width(), 20), "At key sizes")
    rows: list[tuple[str, ...]] = []
    styles: list[str] = []
    by_size: dict[tuple[str, int], CollectiveResult] = {}
    for name, sw in (("All-reduce", ar), ("All-to-all", a2a)):
        for result in sw.results:
            by_size[(name, result.size_bytes)] = result
    for name in ("All-reduce", "All-to-all"):
        for s in KEY_SIZES:
            res = by_size.get((name, s))
            if res is None:
                continue
            rows.append((name, size(s), duration(res.time_us), f"{res.busbw_GBps:,.1f} GB/s",
                         f"{res.algbw_GBps:,.1f} GB/s", res.algorithm, res.bottleneck))
            styles.append("")
    cols = [Column("Collective", 0.9), Column("Size per GPU", 0.8, RIGHT), Column("Time", 0.8, RIGHT),
            Column("busbw", 0.9, RIGHT), Column("algbw", 0.9, RIGHT), Column("Algorithm", 1.0, CENTER),
            Column("Limited by", 2.2)]
    page.table(ink, QRectF(rect.left(), y, rect.width(), rect.bottom() - y), cols, rows, 8, styles)


def comparison_diagrams_page(ink: Ink, rect: QRectF, a: Facts, b: Facts, catalog) -> None:
    y = rect.top() + page.section_title(ink, rect, "Comparison: the two fabrics", "same scale of detail")
    side_by_side(ink, QRectF(rect.left(), y, rect.width(), rect.bottom() - y), a, b, catalog)


def side_by_side(ink: Ink, rect: QRectF, a: Facts, b: Facts, catalog, scale: float = 1.0) -> None:
    """Two designs next to each other: name, diagram and key figures of each."""
    left, right = _two_columns(rect, ink)
    t = ink.theme

    def heading(facts: Facts) -> tuple[str, str]:
        return (facts.design.meta.name,
                f"{facts.derived.resolved.technology.name} · {page.describe(facts.design, facts.derived)}")

    # The names and descriptions wrap rather than lose their ends (a long counterpart name, a
    # server model with its variant); both diagrams start below the taller heading, level.
    heads = [heading(a), heading(b)]
    lh = max(ink.paragraph_height(left.width(), name, 11 * scale, True) for name, _ in heads)
    sub = max(ink.paragraph_height(left.width(), about, 8.5 * scale) for _, about in heads)
    for facts, box, (name, about) in ((a, left, heads[0]), (b, right, heads[1])):
        ink.paragraph(QRectF(box.left(), box.top(), box.width(), lh), name, 11 * scale, t.text, bold=True)
        ink.paragraph(QRectF(box.left(), box.top() + lh, box.width(), sub), about, 8.5 * scale, t.muted)
        cards = [c for c in facts.cards() if c.title in ("Switches", "Network cost", "Network power",
                                                         "All-reduce busbw")]
        cards_h = page.cards_height(ink, 0.85 * scale, len(cards), box.width())
        top = box.top() + lh + sub + ink.pt(8 * scale)
        source = DiagramSource(facts.design, catalog, facts.derived)
        diagram = Diagram(source, View(), text_scale=0.85 * scale)
        diagram.paint(ink, QRectF(box.left(), top, box.width(), box.bottom() - top - cards_h - ink.pt(10 * scale)))
        page.cards(ink, QRectF(box.left(), box.bottom() - cards_h, box.width(), cards_h), cards, 0.85 * scale)


def resilience_page(ink: Ink, rect: QRectF, f: Facts, growth_limit_gpus: int = 16384) -> None:
    """What if it fails (N-1, computed), how often (estimated from sourced rates), what if it grows."""
    from designer.model.decisions.interruptions import RateTableError, interruptions, unit_name
    from designer.model.decisions.whatif import n_minus_one

    t = ink.theme
    d = f.derived
    y = rect.top() + page.section_title(ink, rect, "Resilience and growth",
                                        "failures and growth computed; failure rates and prices estimated")
    y += _sub_title(ink, QRectF(rect.left(), y, rect.width(), 20), "What if it fails: any one switch (computed)")
    report = n_minus_one(d)
    rows: list[tuple[str, ...]]
    rows = [(tier, f"{report.switches[tier]:,}", w.failure.label, f"{w.gpus_cut:,} of {w.gpus:,}",
             f"{w.ratio_after:.1%}", ratio(w.leaf_oversub_after) if w.leaf_oversub_after else "no uplinks",
             "continues" + (f" at {w.nic_share:.0%} NIC bandwidth" if w.nic_share < 1 else "")
             if w.job_continues else "stops")
            for tier, w in report.worst.items()]
    cols = [Column("Tier", 0.6), Column("Switches", 0.7, RIGHT), Column("Worst failure", 1.0),
            Column("GPUs cut off", 1.0, RIGHT), Column("Bisection after", 0.9, RIGHT),
            Column("Leaf oversub.", 0.9, RIGHT), Column("A job on every GPU", 1.6)]
    y += page.table(ink, QRectF(rect.left(), y, rect.width(), rect.bottom() - y), cols, rows, 8.5) + ink.pt(4)
    y += ink.paragraph(QRectF(rect.left(), y, rect.width(), rect.bottom() - y),
                       f"Method: {report.method}. Bisection is stated against the intact fabric's full bisection.",
                       7.5, t.muted) + ink.pt(10)

    y += _sub_title(ink, QRectF(rect.left(), y, rect.width(), 20), "How often (estimated: counts x published rates)")
    try:
        intr = interruptions(d)
    except RateTableError as exc:
        y += ink.paragraph(QRectF(rect.left(), y, rect.width(), rect.bottom() - y), str(exc), 8.5, t.error)
        intr = None
    if intr is not None:
        rows = [(e.rate.label, f"{e.units:,} {unit_name(e.rate.applies_to)}",
                 rate_label(e.per_month),
                 e.rate.source or "—") for e in intr.expected]
        cols = [Column("Kind", 1.6), Column("Of", 1.0, RIGHT), Column("Per month", 0.8, RIGHT),
                Column("Source", 2.4, wrap=True)]
        y += page.table(ink, QRectF(rect.left(), y, rect.width(), rect.bottom() - y), cols, rows, 8) + ink.pt(4)
        lines = []
        for share in (intr.design_share, intr.other_share):
            if share is not None and share.share is not None:
                lines.append(f"{share.label} ({share.planes} plane{'s' if share.planes > 1 else ''}): "
                             f"{share.share:.0%} of link and NIC failures stop a job")
        lines.append("Measured figures come from other fleets (Alibaba HPN, SIGCOMM 2024; Meta Llama 3, 2024) "
                     "and are extrapolated to this design by link or GPU count.")
        for line in lines:
            y += ink.paragraph(QRectF(rect.left(), y, rect.width(), rect.bottom() - y), line, 7.5, t.text)
        y += ink.pt(10)

    plan = f.design.growth          # the design's own target and phases, when it stores them
    target = plan.target_gpus if plan.stored and plan.target_gpus is not None else f.metrics.gpus * 4
    phases = list(plan.phases) or None
    how = f"in the design's phases {plan.phases_text()}" if phases else "in doubling phases"
    y += _sub_title(ink, QRectF(rect.left(), y, rect.width(), 20),
                    f"What if it grows: to {target:,} GPUs {how}")
    if target > growth_limit_gpus:
        ink.paragraph(QRectF(rect.left(), y, rect.width(), rect.bottom() - y),
                      f"Not drawn here for {target:,} GPUs: run `fabric-designer grow FILE --to-gpus N`.", 8.5, t.muted)
        return
    from designer.model.decisions.growth import GrowthError, grow  # only where the growth is drawn

    try:
        g = grow(f.design, target, phases)
    except (GrowthError, ValueError) as exc:
        ink.paragraph(QRectF(rect.left(), y, rect.width(), rect.bottom() - y), f"No growth path: {exc}", 8.5, t.muted)
        return
    rows, styles = [], []
    for path in (g.path, g.alternative):
        if path is None:
            continue
        rows.append((f"{path.label}: {'needs recabling' if path.needs_recabling else 'no recabling'}",))
        styles.append("group")
        for p in path.phases:
            rows.append((str(p.number), f"{p.gpus:,}", "/".join(str(p.switches.get(k, 0)) for k in ("leaf", "spine",
                                                                                                    "core")),
                         ", ".join(f"{n:,} {k}" for k, n in p.reserved_ports.items()) or "—",
                         money(p.cost_delta, g.currency), f"{p.recabled_links:,}"))
            styles.append("")
    cols = [Column("Phase", 0.5), Column("GPUs", 0.7, RIGHT), Column("Leaf/spine/core", 1.0),
            Column("Ports reserved", 1.2), Column("Bought (estimate)", 1.0, RIGHT), Column("Links moved", 0.8, RIGHT)]
    y += page.table(ink, QRectF(rect.left(), y, rect.width(), rect.bottom() - y), cols, rows, 8, styles) + ink.pt(4)
    for note in [r for p in g.path.phases for r in p.recabling][:3] + list(g.notes):
        y += ink.paragraph(QRectF(rect.left(), y, rect.width(), rect.bottom() - y), note, 7.5, t.muted)
