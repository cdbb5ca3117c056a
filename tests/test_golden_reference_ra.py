"""Golden tests against published NVIDIA reference-architecture tables, built as `new` builds them.

Figures: DGX B300 XDR RA (Table 3), DGX B300 Spectrum-X RA, DGX B200 RA, DGX H100 SuperPOD RA,
DGX GB200 SuperPOD RA (network-fabrics page: an SU is 8 NVL72 racks of 18 compute trays; beyond
one SU, 4 spine-leaf groups per SU, each of 8 leaves (one per rack) and 6 spines, attached to
6 core groups; fully non-blocking; up to 16 SU). Counts that page does not state in the text
(its Table 3 per-size totals, the 1-SU spine count, the core count) are not asserted as published.
Switches are named as the vendor spells them, which the catalog accepts.
"""

import json

import pytest

from designer.catalog import default_catalog
from designer.model.topology.derive import derive
from designer.model.topology.presets import new_design
from tests.helpers import cli_run

CAT = default_catalog()


def _metrics(**kw):
    m = derive(new_design(CAT, "rail-optimized", **kw), CAT).metrics
    assert not m.errors, [f.message for f in m.errors]
    return m


# DGX B300 on XDR InfiniBand (Q3400), 72 nodes per SU: (SU, leaves, spines).
B300_XDR = [(1, 8, 4), (4, 32, 18), (8, 64, 36), (18, 144, 72)]


@pytest.mark.parametrize("given_su", [72, None])
@pytest.mark.parametrize("sus,leaves,spines", B300_XDR)
def test_dgx_b300_xdr_table(sus, leaves, spines, given_su):
    # As typed: the SU of 72 nodes is the server's reference SU on XDR (catalog reference_su).
    m = _metrics(nodes=72 * sus, nodes_per_su=given_su, server="dgx-b300-xdr", switch="Q3400")
    assert m.switches_by_tier == {"leaf": leaves, "spine": spines, "core": 0}
    assert m.links_by_tier["leaf-spine"] == leaves * 72  # 72 down + 72 up per leaf
    assert m.uplink_gbps == 800 and m.oversubscription("leaf") == pytest.approx(1.0)


@pytest.mark.parametrize("given_su", [64, None])
def test_dgx_b300_spectrum_x_one_su_has_512_leaf_spine_links_at_800g(given_su):
    m = _metrics(nodes=64, nodes_per_su=given_su, server="dgx-b300-eth", technology="roce-800g")
    assert m.planes == 2
    assert m.switches_by_tier == {"leaf": 16, "spine": 8, "core": 0}
    assert m.links_by_tier["leaf-spine"] == 512
    assert m.uplink_gbps == 800 and m.link_gbps == 400
    assert m.oversubscription("leaf") == pytest.approx(1.0)


# DGX B300 Spectrum-X RA, Table 3 (two planes): (SU, leaves, spines) up to 8 SU, as typed.
B300_ETH = [(2, 32, 16), (4, 64, 32), (8, 128, 64)]


@pytest.mark.parametrize("sus,leaves,spines", B300_ETH)
def test_dgx_b300_spectrum_x_table(sus, leaves, spines):
    m = _metrics(nodes=64 * sus, server="dgx-b300-eth", technology="roce-800g")
    assert m.switches_by_tier == {"leaf": leaves, "spine": spines, "core": 0}
    assert m.links_by_tier["leaf-spine"] == 512 * sus


def test_dgx_b300_spectrum_x_16_su_is_two_tiers_of_384_switches():
    # 16 SU: 128 leaves per plane outgrow a spine's 64 ports at 800G; run as 2 x 400G, each spine
    # takes 128 leaves and the fabric stays in two tiers (RA Table 3: 256 leaves, 128 spines).
    from designer.model.topology.presets import new_design_choice
    choice = new_design_choice(CAT, "rail-optimized", nodes=64 * 16, server="dgx-b300-eth", technology="roce-800g")
    m = derive(choice.design, CAT).metrics
    assert m.tiers == 2 and m.switches_by_tier == {"leaf": 256, "spine": 128, "core": 0}
    # 8,192 leaf-spine cables of 800G (RA), each a twin-port pair of 400G links.
    assert m.uplink_gbps == 400 and m.links_by_tier["leaf-spine"] == 2 * 8192
    assert m.oversubscription("leaf") == pytest.approx(1.0) and m.bisection_ratio == pytest.approx(1.0)
    assert any(n.startswith("uplinks: the 800G cages run as 2 x 400G") for n in choice.notes)


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
    made = cli_run("new", "--template", "rail-optimized",
                   "--nodes", "32", "--server", "DGX-H100", "--switch", "MQM9700-NS2F", "-o", str(out))
    assert made.returncode == 0, made.stderr
    shown = cli_run("metrics", str(out), "--json")
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


# DGX GB200 SuperPOD, built as `new` builds it with the vendor's switch name.
GB200_SU_TRAYS = 8 * 18     # 8 NVL72 racks of 18 compute trays (4 GPUs, 4 x 400G each)


def _gb200(sus, **kw):
    design = new_design(CAT, "rail-optimized", nodes=GB200_SU_TRAYS * sus, server="gb200-nvl72-tray",
                        switch="QM9700", **kw)
    d = derive(design, CAT)
    assert not d.metrics.errors, [f.message for f in d.metrics.errors]
    return d


def test_gb200_nvl72_su_is_eight_racks_with_one_leaf_per_rack_and_rail():
    d = _gb200(1)
    m = d.metrics
    assert d.design.fabric.nodes_per_su == GB200_SU_TRAYS and m.gpus == 576
    assert m.switches_by_tier["leaf"] == 8 * 4        # one leaf per rack on each of the 4 rails
    assert m.oversubscription("leaf") == pytest.approx(1.0) and m.bisection_ratio == pytest.approx(1.0)
    assert not {"partial-rack", "split-rack", "partial-su"} & {f.code for f in m.findings}
    # Each leaf takes the 18 trays of one rack on its rail.
    leaves = {}
    for n, data in d.graph.nodes(data=True):
        if data["role"] == "nic":
            (leaf,) = d.graph[n]
            leaves.setdefault(leaf, set()).add((data["server"] // 18, data["rail"]))
    assert len(leaves) == 32 and all(len(v) == 1 for v in leaves.values())


def test_gb200_nvl72_flat_su_states_the_recabling_its_growth_needs():
    from designer.model.topology.presets import new_design_choice
    choice = new_design_choice(CAT, "rail-optimized", nodes=GB200_SU_TRAYS, server="gb200-nvl72-tray",
                               switch="QM9700")
    (note,) = [n for n in choice.notes if n.startswith("growth:")]
    assert "re-terminates all 576 leaf-spine links" in note and "--tiers 3" in note
    grouped = derive(new_design(CAT, "rail-optimized", nodes=GB200_SU_TRAYS, server="gb200-nvl72-tray",
                                switch="QM9700", tiers=3), CAT)
    # The groups built now: 4 per SU (one per rail), each of 8 leaves and 6 spines.
    assert grouped.plan.pods == 4 and grouped.plan.leaves_per_pod == 8 and grouped.plan.spines_per_pod == 6
    assert f"{grouped.metrics.switches_by_tier['spine']} spines" in note


def test_gb200_nvl72_16_su_builds_as_spine_leaf_groups():
    d = _gb200(16)
    m, plan = d.metrics, d.plan
    assert m.gpus == 9216
    assert m.tiers == 3
    # 4 spine-leaf groups per SU, each of 8 leaves and 6 spines: 64 groups.
    assert plan.pods == 16 * 4 and plan.leaves_per_pod == 8 and plan.spines_per_pod == 6
    assert m.switches_by_tier["leaf"] == 16 * 4 * 8 == 512
    assert m.switches_by_tier["spine"] == 16 * 4 * 6 == 384
    # Every leaf of a group is one rail of one SU.
    pods = {}
    for n, data in d.graph.nodes(data=True):
        if data["role"] == "nic":
            (leaf,) = d.graph[n]
            group = d.graph.nodes[leaf]["index"] // 8
            pods.setdefault(group, set()).add((data["server"] // GB200_SU_TRAYS, data["rail"]))
    assert len(pods) == 64 and all(len(v) == 1 for v in pods.values())
    # 6 core groups (one per spine position of a group), and fully non-blocking.
    cores_of = {}
    for a, b, data in d.graph.edges(data=True):
        if data["tier"] == "spine-core":
            spine, core = (a, b) if d.graph.nodes[a]["role"] == "spine" else (b, a)
            cores_of.setdefault(d.graph.nodes[spine]["index"] % 6, set()).add(core)
    assert len(cores_of) == 6
    assert sum(len(c) for c in cores_of.values()) == len(set().union(*cores_of.values()))  # disjoint
    assert m.oversubscription("leaf") == pytest.approx(1.0) and m.oversubscription("spine") == pytest.approx(1.0)
    assert m.links_by_tier["spine-core"] == m.links_by_tier["leaf-spine"] == m.links_by_tier["node-leaf"]


def test_gb200_nvl72_su_of_144_trays_from_the_command_line(tmp_path):
    out = tmp_path / "gb200.json"
    made = cli_run("new", "--template", "rail-optimized",
                   "--gpus", "9216", "--server", "gb200-nvl72-tray", "--nodes-per-su", "144",
                   "--switch", "QM9700", "-o", str(out))
    assert made.returncode == 0, made.stderr
    shown = cli_run("metrics", str(out), "--json")
    m = json.loads(shown.stdout)
    assert m["switches"]["by_tier"]["leaf"] == 512 and m["switches"]["by_tier"]["spine"] == 384
