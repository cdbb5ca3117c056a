"""Time importing and auditing a 10,000-node ibnetdiscover dump (run by `make bench`).

The dump is a 1,152-server rail-optimized NDR fabric in three tiers, exported by the
ibnetdiscover writer: 9,216 HCAs, 864 switches and one SHARP aggregation node per switch,
about 10,900 nodes and 27,600 links. Twenty links are removed before export so the audit has
findings to report. The same fabric on RoCE (Spectrum-4 SN5600) is then written as the LLDP
tables its switches would report (`lldpctl -f json` records) and timed the same way.
Target: parse, infer and audit together in a few seconds on one core.

`--131k` adds the rows of the 131,072-GPU round trip (the two-plane k=64 fat-tree of QM9700
switches, 10,240 switches and 393,216 links): the design exported as ibnetdiscover, then, each
in a fresh process with its own peak memory, `import` (read, infer, audit against the inferred
design: 0 differences expected) and `audit --against` the design (what the command does: read,
infer, audit), each step's CPU seconds (start-up not included: `bench_every_command.py` has the
commands whole). Target: the audit under 30 s and 1 GB.
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import subprocess
import sys
import tempfile
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


# Runs in a fresh interpreter so that its peak memory is its own.
_ROUND_TRIP = """
import json, sys, time
clock = time.process_time
from designer.io.fabric_capture import load_capture
from designer.io.project import load_design
from designer.model.decisions.audit import audit
from designer.model.topology.inference import infer_design
path, against = sys.argv[1], sys.argv[2]
start = clock()
fabric = load_capture(path)
read = clock()
inference = infer_design(fabric)
inferred = clock()
# Objects the read and the inference made: a capture read in bulk makes them only when asked
# (its devices and links are views of its columns, which keep a list once every one is made).
made = [len(getattr(fabric.devices, "_made", None) or ()), len(getattr(fabric.links, "_made", None) or ())]
design = load_design(against) if against != "-" else None
report = audit(fabric, design=design, inference=inference)
done = clock()
with open("/proc/self/status") as fh:
    peak = next(int(line.split()[1]) for line in fh if line.startswith("VmHWM")) / 1024
counts = {k: len(getattr(report, k)) for k in ("missing_devices", "missing_links", "extra_links", "miswired",
                                                 "swapped", "degraded_links")}
print(json.dumps([read - start, inferred - read, done - inferred, peak, counts,
                  inference.design.fabric.template if inference.design else None, made]))
"""


def round_trip_131k() -> None:
    from designer.io.project import save_design
    from designer.model.topology.presets import new_design
    catalog = default_catalog()
    design = new_design(catalog, "fat-tree", gpus=131072, switch="qm9700", planes=2)
    with tempfile.TemporaryDirectory() as tmp:
        capture, project = os.path.join(tmp, "131k.topo"), os.path.join(tmp, "131k.json")
        start = time.perf_counter()
        text = export_ibnetdiscover(derive(design, catalog))
        with open(capture, "w") as fh:
            fh.write(text)
        print(f"131K export ibnetdiscover: {time.perf_counter() - start:.1f} s, {len(text) / 2**20:.0f} MiB")
        del text
        save_design(design, project)
        for label, against in (("import (infer, audit against the inferred design)", "-"),
                               ("audit --against the design", project)):
            out = subprocess.run([sys.executable, "-c", _ROUND_TRIP, capture, against], check=True,
                                 capture_output=True, text=True).stdout
            read, infer, aud, peak, counts, template, (devices, links) = json.loads(out)
            total = read + infer + aud
            print(f"131K {label}: CPU read {read:.2f} s, infer {infer:.2f} s, audit {aud:.2f} s, total {total:.2f} s, "
                  f"peak {peak:,.0f} MB; inferred {template}; differences {sum(counts.values())} {counts}; "
                  f"read and inference made {devices:,} device and {links:,} link objects")


if __name__ == "__main__":
    main()
    if "--131k" in sys.argv:
        round_trip_131k()
