"""Every format on every example its technology fits: the file parses with the tool's kind of
parser and holds every link of the design once."""

from __future__ import annotations

import csv
import io
import re
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest
import yaml

from designer.catalog import default_catalog
from designer.io.export_source import ExportSource
from designer.io.exporters import FORMATS
from designer.io.project import load_design

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
# The 65,536-endpoint example is timed by benchmarks/bench_export.py instead; its Slurm files are
# checked in test_export_slurm.py.
SMALL = sorted(p for p in EXAMPLES.glob("*.json") if p.stem != "k64-fat-tree-hosts")
_SOURCES: dict[Path, ExportSource] = {}


def _source(path: Path) -> ExportSource:
    if path not in _SOURCES:
        _SOURCES[path] = ExportSource(load_design(path), default_catalog())
    return _SOURCES[path]


def _cases():
    catalog = default_catalog()
    for path in SMALL:
        family = catalog.technology(load_design(path).fabric.technology).family
        for fmt in FORMATS.values():
            if fmt.name.startswith("slurm"):
                continue
            if fmt.family in (None, family):
                yield pytest.param(path, fmt.name, id=f"{path.stem}-{fmt.name}")


@pytest.mark.parametrize("path, name", list(_cases()))
def test_format_parses_and_holds_every_link_once(path, name):
    src = _source(path)
    assert FORMATS[name].family in (None, src.family)
    m = src.derived.metrics
    rendered = FORMATS[name].render(src)
    if name == "netbox":
        cables = list(csv.DictReader(io.StringIO(rendered["08-cables.csv"])))
        assert len(cables) == m.links_total
        assert len({c["label"] for c in cables}) == m.links_total
    elif name == "ndt":
        rows = list(csv.DictReader(io.StringIO(rendered)))
        assert len(rows) == m.links_total
    elif name == "clab":
        doc = yaml.safe_load(rendered)
        ends = [e for link in doc["topology"]["links"] for e in link["endpoints"]]
        # The stock sonic-vs image holds 32 ports: one lab link per connected pair of switches.
        pairs = {frozenset((lo, up)) for lo, up, _ in src.edges() if not lo.startswith("srv-")}
        assert len(ends) == len(set(ends)) == 2 * len(pairs)
        assert {e.split(":")[0] for e in ends} <= set(doc["topology"]["nodes"])
    elif name == "graphml":
        ns = {"g": "http://graphml.graphdrawing.org/xmlns"}
        graph = ET.fromstring(rendered.encode("utf-8")).find("g:graph", ns)
        # The cluster's other networks come along, each node and edge named by its network.
        def compute(kind: str) -> list:
            return [e for e in graph.findall(f"g:{kind}", ns)
                    if not any(d.get("key") in ("n_network", "e_network") for d in e.findall("g:data", ns))]
        assert len(compute("node")) == m.servers + m.endpoints + m.switches_total
        assert len(compute("edge")) == m.links_total + m.endpoints   # links, NIC to server
        assert bool(src.derived.design.networks) == (len(compute("node")) < len(graph.findall("g:node", ns)))
    elif name == "dot":
        assert len(re.findall(r'^  "[^"]+" -- "[^"]+" \[', rendered, re.M)) == m.links_total
        assert rendered.rstrip().endswith("}")
    elif name == "drawio":
        root = ET.fromstring(rendered.encode("utf-8"))
        links = Counter()
        for obj in root.iter("object"):
            if obj.get("links"):
                links["links"] += int(obj.get("links"))
        assert links["links"] == m.links_total
    else:  # a format added to the registry later: at least it renders something
        assert rendered
