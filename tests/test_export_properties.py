"""Property tests: whatever the fabric or the text, the exports stay valid.

For random fabrics (templates, radixes, tiers, planes, views), the Slurm tree has each node once
under a leaf and one top, the containerlab lab uses no interface twice, and NetBox's cables end
on listed interfaces. For random text, the quoting helpers round-trip through real parsers.
"""

from __future__ import annotations

import csv
import io
import xml.etree.ElementTree as ET
from collections import Counter

import yaml
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from designer.catalog import default_catalog
from designer.io import hostlist
from designer.io.containerlab import containerlab_yaml
from designer.io.export_source import ExportError, ExportOptions, ExportSource
from designer.io.markup import clean_text, xml_attr, xml_text, yaml_str
from designer.io.netbox_csv import netbox_files
from designer.io.slurm_topology import topology_conf_tree
from designer.model.topology.presets import new_design
from designer.model.topology.sizing import SizingError
from tests.helpers import examples

CAT = default_catalog()

fabrics = st.fixed_dictionaries({
    "template": st.sampled_from(["leaf-spine", "fat-tree", "rail-optimized"]),
    "nodes": st.integers(1, 48),
    "server": st.sampled_from(["dgx-h100", "dgx-b300-eth"]),
    "radix": st.sampled_from([8, 16, 32]),
    "tiers": st.sampled_from([None, 2, 3]),
    "nodes_per_su": st.integers(2, 16),
    "planes": st.sampled_from([None, 2]),
    "view": st.sampled_from(["fabric", "su:1", "su:2", "plane:1", "plane:2"]),
})


def _source(req) -> ExportSource | None:
    server = CAT.server(req["server"])
    try:
        design = new_design(CAT, req["template"], nodes=req["nodes"], server=req["server"], radix=req["radix"],
                            speed=server.port_gbps, tiers=req["tiers"], nodes_per_su=req["nodes_per_su"],
                            planes=req["planes"], technology="roce-400g")
        return ExportSource(design, CAT, ExportOptions(view=req["view"]))
    except (SizingError, ExportError):
        return None


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow,
          HealthCheck.filter_too_much])
@given(fabrics)
def test_exports_of_any_fabric_are_consistent(req):
    src = _source(req)
    assume(src is not None)
    # Slurm: every node of the view once under a leaf, one top, every switch below it.
    leaves, uppers = {}, {}
    for line in topology_conf_tree(src).splitlines():
        if line.startswith("SwitchName="):
            fields = dict(item.split("=", 1) for item in line.split())
            target = leaves if "Nodes" in fields else uppers
            target[fields["SwitchName"]] = hostlist.expand(fields.get("Nodes") or fields["Switches"])
    counts = Counter(n for nodes in leaves.values() for n in nodes)
    assert set(counts) == {src.host(s) for s in src.servers} and set(counts.values()) == {1}
    children = {c for kids in uppers.values() for c in kids}
    roots = (set(leaves) | set(uppers)) - children
    assert len(roots) == 1
    # containerlab with servers: endpoints exist, no interface twice, one link per fabric link.
    doc = yaml.safe_load(containerlab_yaml(ExportSource(src.design, CAT, ExportOptions(view=req["view"],
                                                                                        clab_servers=True))))
    ends = [e for link in doc["topology"]["links"] for e in link["endpoints"]]
    assert all(e.split(":")[0] in doc["topology"]["nodes"] for e in ends)
    assert len(ends) == len(set(ends)) == 2 * sum(1 for _ in src.edges())
    # NetBox: every cable end is an interface listed once.
    files = netbox_files(src)
    templates = {(t["manufacturer"], t["model"]): [i["name"] for i in t["interfaces"]]
                 for t in yaml.safe_load_all(files["04-device-types.yaml"])}
    devices = list(csv.DictReader(io.StringIO(files["06-devices.csv"])))
    interfaces = {(d["name"], i) for d in devices for i in templates[(d["manufacturer"], d["device_type"])]}
    cables = list(csv.DictReader(io.StringIO(files["08-cables.csv"])))
    ends = Counter((c[f"side_{s}_device"], c[f"side_{s}_name"]) for c in cables for s in "ab")
    assert set(ends.values()) <= {1} and set(ends) <= interfaces


@settings(max_examples=examples(150), deadline=None)
@given(st.text(max_size=40))
def test_quoted_text_reads_back_exactly(text):
    assert yaml.safe_load(f"key: {yaml_str(text)}\n")["key"] == clean_text(text)
    element = ET.fromstring(f'<a b="{xml_attr(text)}">{xml_text(text)}</a>'.encode())
    assert element.get("b") == clean_text(text)
    assert (element.text or "") == clean_text(text).replace("\r\n", "\n").replace("\r", "\n")
