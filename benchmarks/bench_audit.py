"""Time importing and auditing a 10,000-node ibnetdiscover dump (run by `make bench`).

The dump is a 1,152-server rail-optimized NDR fabric in three tiers, exported by the
ibnetdiscover writer: 9,216 HCAs, 864 switches and one SHARP aggregation node per switch,
about 10,900 nodes and 27,600 links. Twenty links are removed before export so the audit has
findings to report. Target: parse, infer and audit together in a few seconds on one core.
"""

from __future__ import annotations

import dataclasses
import random
import time

from designer.catalog import default_catalog
from designer.io.ibnetdiscover import export_ibnetdiscover, parse_ibnetdiscover
from designer.model.decisions.audit import audit
from designer.model.intent.design import ClusterSpec, Edit, FabricDesign, FabricSpec
from designer.model.topology.derive import derive
from designer.model.topology.inference import infer_design


def main() -> None:
    catalog = default_catalog()
    design = FabricDesign(cluster=ClusterSpec(servers=1152), fabric=FabricSpec(template="rail-optimized", tiers=3))
    g = derive(design, catalog).graph
    cut = random.Random(7).sample(sorted((u, v) for u, v in g.edges()), 20)
    broken = dataclasses.replace(design, edits=tuple(Edit("remove-links", a, b) for a, b in cut))
    text = export_ibnetdiscover(derive(broken, catalog))
    start = time.perf_counter()
    fabric = parse_ibnetdiscover(text)
    parsed = time.perf_counter()
    inference = infer_design(fabric, catalog)
    inferred = time.perf_counter()
    report = audit(fabric, inference=inference, catalog=catalog)
    done = time.perf_counter()
    print(f"dump: {len(text) / 2**20:.1f} MiB, {len(fabric.devices):,} nodes, {len(fabric.links):,} links")
    print(f"parse {parsed - start:.2f} s, infer {inferred - parsed:.2f} s, audit {done - inferred:.2f} s, "
          f"total {done - start:.2f} s")
    print(f"findings: {len(report.missing_links)} missing links (20 removed), "
          f"{len(report.extra_links)} extra, {len(report.miswired)} miswired")


if __name__ == "__main__":
    main()
