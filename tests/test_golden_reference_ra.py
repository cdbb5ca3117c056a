"""Golden tests against published NVIDIA reference-architecture tables, built as `new` builds them.

Figures: DGX B300 XDR RA (Table 3), DGX B300 Spectrum-X RA, DGX B200 RA, DGX H100 SuperPOD RA.
Switches are named as the vendor spells them, which the catalog accepts.
"""

import json
import subprocess
import sys

import pytest

from designer.catalog import default_catalog
from designer.model.topology.derive import derive
from designer.model.topology.presets import new_design

CAT = default_catalog()


def _metrics(**kw):
    m = derive(new_design(CAT, "rail-optimized", **kw), CAT).metrics
    assert not m.errors, [f.message for f in m.errors]
    return m


# DGX B300 on XDR InfiniBand (Q3400), 72 nodes per SU: (SU, leaves, spines).
B300_XDR = [(1, 8, 4), (4, 32, 18), (8, 64, 36), (18, 144, 72)]


@pytest.mark.parametrize("sus,leaves,spines", B300_XDR)
def test_dgx_b300_xdr_table(sus, leaves, spines):
    m = _metrics(nodes=72 * sus, nodes_per_su=72, server="dgx-b300-xdr", switch="Q3400")
    assert m.switches_by_tier == {"leaf": leaves, "spine": spines, "core": 0}
    assert m.links_by_tier["leaf-spine"] == leaves * 72  # 72 down + 72 up per leaf
    assert m.uplink_gbps == 800 and m.oversubscription("leaf") == pytest.approx(1.0)


def test_dgx_b300_spectrum_x_one_su_has_512_leaf_spine_links_at_800g():
    m = _metrics(nodes=64, nodes_per_su=64, server="dgx-b300-eth", technology="roce-800g")
    assert m.planes == 2
    assert m.switches_by_tier == {"leaf": 16, "spine": 8, "core": 0}
    assert m.links_by_tier["leaf-spine"] == 512
    assert m.uplink_gbps == 800 and m.link_gbps == 400
    assert m.oversubscription("leaf") == pytest.approx(1.0)


# DGX B200, 32 nodes per SU on QM9700: (SU, leaves, spines, cores); the core tier appears at 16 SU.
B200 = [(2, 16, 8, 0), (4, 32, 16, 0), (8, 64, 32, 0), (16, 128, 128, 64), (32, 256, 256, 128),
        (64, 512, 512, 256)]


@pytest.mark.parametrize("sus,leaves,spines,cores", B200)
def test_dgx_b200_table(sus, leaves, spines, cores):
    m = _metrics(nodes=32 * sus, server="dgx-b200", switch="QM9700")
    assert m.switches_by_tier == {"leaf": leaves, "spine": spines, "core": cores}
    assert m.oversubscription("leaf") == pytest.approx(1.0)
    assert m.bisection_ratio == pytest.approx(1.0)


def test_dgx_h100_one_su_with_the_vendor_part_number(tmp_path):
    out = tmp_path / "h100.json"
    made = subprocess.run([sys.executable, "-m", "designer.cli.main", "new", "--template", "rail-optimized",
                           "--nodes", "32", "--server", "DGX-H100", "--switch", "MQM9700-NS2F", "-o", str(out)],
                          capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    shown = subprocess.run([sys.executable, "-m", "designer.cli.main", "metrics", str(out), "--json"],
                           capture_output=True, text=True)
    m = json.loads(shown.stdout)
    assert m["switches"]["by_tier"] == {"leaf": 8, "spine": 4, "core": 0}
    assert m["switches"]["by_model"] == {"qm9700": 12}


def test_switch_without_speed_runs_at_its_native_speed():
    design = new_design(CAT, "rail-optimized", nodes=72, nodes_per_su=72, switch="q3400")
    m = derive(design, CAT).metrics
    assert design.cluster.server == "dgx-b300-xdr" and m.link_gbps == 800
    assert m.switches_by_tier == {"leaf": 8, "spine": 4, "core": 0}


def test_gb200_nvl72_su_is_whole_racks_by_default():
    # 8 NVL72 racks (144 compute trays, 576 GPUs): each leaf takes one rack's trays on its rail.
    design = new_design(CAT, "rail-optimized", nodes=144, server="gb200-nvl72-tray")
    assert design.fabric.nodes_per_su % 18 == 0
    m = derive(design, CAT).metrics
    assert m.gpus == 576
    assert not [f for f in m.findings if f.code in ("partial-rack", "split-rack")]


def test_partial_and_split_racks_are_findings():
    design = new_design(CAT, "rail-optimized", nodes=100, nodes_per_su=32, server="gb200-nvl72-tray")
    codes = {f.code for f in derive(design, CAT).metrics.findings}
    assert {"partial-rack", "split-rack"} <= codes
    whole = new_design(CAT, "rail-optimized", nodes=144, nodes_per_su=18, server="gb200-nvl72-tray")
    assert not {"partial-rack", "split-rack"} & {f.code for f in derive(whole, CAT).metrics.findings}


def test_three_tier_spines_split_ports_by_their_achieved_downlinks():
    # 32 NVL72 racks (576 trays): each spine has 24 leaf links, so 24 uplinks, and 36 cores carry them.
    m = derive(new_design(CAT, "rail-optimized", nodes=576, server="gb200-nvl72-tray"), CAT).metrics
    assert m.tiers == 3
    assert m.oversubscription("spine") == pytest.approx(1.0)
    assert m.switches_by_tier["core"] == 36
    assert m.links_by_tier["spine-core"] == m.links_by_tier["leaf-spine"] == 2304
    assert m.ports_by_tier["core"].ports_free == 0
