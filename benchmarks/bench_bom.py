"""Time the bill of materials and cabling plan of large fabrics (run by hand).

The physical layer walks the device graph link by link (every link needs a length, a medium
and two ends), so its cost grows with the link count. Target: the 8,192-GPU NDR fat-tree
(24,576 links) in under 2 s, and the 65,536-endpoint fat-tree of 64-port switches (196,608
links) in under 15 s, graph build included, on a current laptop core.
"""

from __future__ import annotations

import time

from designer.catalog import default_catalog
from designer.io.cabling_csv import cabling_to_csv
from designer.model.physical.bom import build_bom
from designer.model.physical.media import physical_layer
from designer.model.topology.derive import derive
from designer.model.topology.presets import new_design


def main() -> None:
    catalog = default_catalog()
    designs = {
        "8k NDR fat-tree": new_design(catalog, "fat-tree", gpus=8192, server="dgx-h100", switch="qm9700"),
        "65k-endpoint 64-port fat-tree": new_design(catalog, "fat-tree", gpus=64**3 // 4, gpus_per_node=1,
                                                    radix=64, speed=400),
    }
    for name, design in designs.items():
        start = time.perf_counter()
        d = derive(design, catalog)
        d.graph
        built = time.perf_counter()
        bom = build_bom(d, catalog)
        priced = time.perf_counter()
        text = cabling_to_csv(physical_layer(d, catalog), catalog)
        done = time.perf_counter()
        print(f"{name}: {d.metrics.links_total:,} links; graph {built - start:.2f} s, BOM {priced - built:.2f} s, "
              f"cabling plan {done - priced:.2f} s ({len(text) / 1e6:.1f} MB); total {done - start:.2f} s; "
              f"{bom.optics_count:,} transceivers, {bom.cable_count:,} cables")


if __name__ == "__main__":
    main()
