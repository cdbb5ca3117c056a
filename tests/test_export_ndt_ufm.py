"""The NDT export as UFM's NDT plugin reads it (Mellanox/ufm_sdk_3.0, UFM_NDT_Plugin,
topo_diff.parse_ndt_file with its shipped ndt.conf): the rules are encoded here, so a fresh clone
checks them without the plugin.

- The file is read with csv.DictReader; the start device column is '#StartDevice',
  '#Fields:StartDevice' or 'StartDevice'; 'StartPort', 'EndDevice' and 'EndPort' are read by name.
- Each row's StartPort and EndPort must match one of the patterns (re.match) with a non-empty
  first group, or the row is an error ("Failed to parse PortType.SOURCE ..."), and one error makes
  the plugin return nothing. A switch_to_switch file is read with the switch patterns, a
  switch_to_host file with the switch and the host patterns.
- The shipped switch patterns are below; the shipped host pattern matches its developers' host
  names only, so a site sets its own: the export's documentation gives `(^\\S+ mlx5_\\d+$)`.
- On UFM's side a host port is the HCA's node description, `<host> mlx5_<k>`.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest

from designer.catalog import default_catalog
from designer.io.export_source import ExportError, ExportOptions, ExportSource
from designer.io.ndt import ndt_csv
from designer.io.project import load_design

ROOT = Path(__file__).resolve().parents[1]
CAT = default_catalog()
SWITCH_PATTERNS = [r"^Port (\d+)$", r"(^Blade \d+_Port \d+/\d+$)", r"^Port (\d+/\d+/\d+$)", r"^Port (\d+/\d+/\d+/\d+$)",
                   r"^Port (\S+/\d+/\d+$)", r"^Port (\S+/\d+/\d+/\d+$)", r"^Port (\S+)$"]
SHIPPED_HOST_PATTERNS = [r"(^(SAT|DSM)\d+ ibp.*$)"]
SITE_HOST_PATTERNS = [r"(^\S+ mlx5_\d+$)"]
START_KEYS = ("#StartDevice", "#Fields:StartDevice", "StartDevice")


def ufm_errors(text: str, patterns: list[str]) -> list[str]:
    """The errors parse_ndt_file would report for `text` read with `patterns`."""
    rows = list(csv.DictReader(io.StringIO(text)))
    if not rows:
        return ["empty or cannot be parsed"]
    errors = []
    for index, row in enumerate(rows):
        start_key = next((k for k in START_KEYS if row.get(k)), "")
        for kind, device_key, port_key in (("SOURCE", start_key, "StartPort"), ("DESTINATION", "EndDevice", "EndPort")):
            if not row.get(device_key):
                errors.append(f"{kind} line {index}: no device")
                continue
            port = ""
            for pattern in patterns:
                match = re.match(pattern, row[port_key])
                if match:
                    port = match.group(1)
            if not port:
                errors.append(f"Failed to parse PortType.{kind}: {row[port_key]}, line: {index}")
    return errors


def _ndt(path: Path, **options) -> str:
    return ndt_csv(ExportSource(load_design(path), CAT, ExportOptions(**options)))


INFINIBAND = [p for p in sorted((ROOT / "examples").glob("*.json"))
              if CAT.technology(load_design(p).fabric.technology or "ib-ndr").family == "infiniband"]


# The 131K-GPU example runs with `make test-slow`: the smaller ones go through the same rules.
@pytest.mark.parametrize("path", [pytest.param(p, marks=pytest.mark.slow) if p.stem == "k64-fat-tree-hosts" else p
                                  for p in INFINIBAND], ids=lambda p: p.stem)
def test_ufm_reads_every_infiniband_example_with_no_error(path):
    to_host = _ndt(path, ndt_kind="switch-to-host")
    to_switch = _ndt(path, ndt_kind="switch-to-switch")
    assert ufm_errors(to_switch, SWITCH_PATTERNS) == []
    assert ufm_errors(to_host, SWITCH_PATTERNS + SITE_HOST_PATTERNS) == []
    assert ufm_errors(_ndt(path), SWITCH_PATTERNS + SITE_HOST_PATTERNS) == []   # all links, as switch_to_host
    hosts = [row["StartPort"] for row in csv.DictReader(io.StringIO(to_host))]
    assert hosts and all(re.fullmatch(r"\S+ mlx5_\d+", h) for h in hosts)
    switch_rows = list(csv.DictReader(io.StringIO(to_switch)))
    assert all(r["StartPort"].startswith("Port ") and r["EndPort"].startswith("Port ") for r in switch_rows)


def test_a_host_row_fails_ufms_shipped_host_pattern_until_the_site_sets_its_own():
    """Why the documentation asks for a host pattern: the shipped one knows SAT/DSM names only."""
    text = _ndt(INFINIBAND[0], ndt_kind="switch-to-host")
    assert ufm_errors(text, SWITCH_PATTERNS + SHIPPED_HOST_PATTERNS)
    assert ufm_errors(text, SWITCH_PATTERNS + SITE_HOST_PATTERNS) == []


def test_hca_names_map_nic_ports_to_the_hosts_real_hca_numbering():
    path = ROOT / "examples" / "dgx-h100-superpod-1su.json"
    names = ("mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11")
    rows = list(csv.DictReader(io.StringIO(_ndt(path, ndt_kind="switch-to-host", hca_names=names))))
    assert {r["StartPort"].split(" ")[1] for r in rows} == set(names)
    with pytest.raises(ExportError, match="lists 2 HCA name"):
        _ndt(path, hca_names=("mlx5_0", "mlx5_1"))
