"""Time importing and auditing a 10,000-node ibnetdiscover dump (run by `make bench`).

The dump is a 1,152-server rail-optimized NDR fabric in three tiers, exported by the
ibnetdiscover writer: 9,216 HCAs, 864 switches and one SHARP aggregation node per switch,
about 10,900 nodes and 27,600 links. Twenty links are removed before export so the audit has
findings to report. The same fabric on RoCE (Spectrum-4 SN5600) is then written as the LLDP
tables its switches would report (`lldpctl -f json` records) and timed the same way.
Target: parse, infer and audit together in a few seconds on one core.
"""

from __future__ import annotations

import dataclasses
import random
import time

from designer.catalog import default_catalog
from designer.io.fabric_capture import parse_capture
from designer.io.ibnetdiscover import export_ibnetdiscover, parse_ibnetdiscover
from designer.io.lldp import export_lldp_json
from designer.model.decisions.audit import audit
from designer.model.intent.design import ClusterSpec, Edit, FabricDesign, FabricSpec
from designer.model.topology.derive import derive
from designer.model.topology.inference import infer_design


def _time(label: str, text: str, parse, catalog) -> None:
    start = time.perf_counter()
    fabric = parse(text)
    parsed = time.perf_counter()
    inference = infer_design(fabric, catalog)
    inferred = time.perf_counter()
    report = audit(fabric, inference=inference, catalog=catalog)
    done = time.perf_counter()
    print(f"{label}: {len(text) / 2**20:.1f} MiB, {len(fabric.devices):,} nodes, {len(fabric.links):,} links")
    print(f"parse {parsed - start:.2f} s, infer {inferred - parsed:.2f} s, audit {done - inferred:.2f} s, "
          f"total {done - start:.2f} s")
    print(f"findings: {len(report.missing_links)} missing links (20 removed), "
          f"{len(report.extra_links)} extra, {len(report.miswired)} miswired")


def main() -> None:
    catalog = default_catalog()
    for label, fabric, export, parse in (
            ("dump", FabricSpec(template="rail-optimized", tiers=3),
             export_ibnetdiscover, parse_ibnetdiscover),
            ("lldp", FabricSpec(template="rail-optimized", tiers=3, technology="roce-400g", switch="sn5600"),
             export_lldp_json, lambda text: parse_capture(text, "lldp.json"))):
        design = FabricDesign(cluster=ClusterSpec(servers=1152), fabric=fabric)
        g = derive(design, catalog).graph
        cut = random.Random(7).sample(sorted((u, v) for u, v in g.edges()), 20)
        broken = dataclasses.replace(design, edits=tuple(Edit("remove-links", a, b) for a, b in cut))
        _time(label, export(derive(broken, catalog)), parse, catalog)


if __name__ == "__main__":
    main()
