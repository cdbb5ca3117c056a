"""The shortcuts of the bill's groups (class_groups.py) equal the plain computations they stand
for: groups found on one block of links and repeated equal those found on every link; rows
classed by a count, a refinement column by column or a hash equal numpy's sort of the rows; and
the bill stays the per-link count's on designs whose blocks repeat and whose runs straddle the
50 m multimode reach, with planes sharing NIC cages, oversubscribed leaves and idle leaves."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from designer.catalog import UnknownPartError, default_catalog
from designer.model.common.arrays import sorted_distinct
from designer.model.intent.design import replace_path
from designer.model.physical import class_groups
from designer.model.physical.class_bom import class_physical
from designer.model.physical.class_groups import Groups, block_planes
from designer.model.physical.class_parts import first_plane_tiers
from designer.model.physical.closed_form_bom import closed_form_physical, first_plane_links
from designer.model.physical.group_arrays import row_classes
from designer.model.physical.link_arrays import DeviceCodes
from designer.model.physical.media import host_ports_per_cage
from designer.model.topology.derive import derive
from designer.model.topology.presets import new_design
from designer.model.topology.sizing import SizingError
from tests.helpers import examples
from tests.test_class_bom import _rail_only_with_idle_leaves
from tests.test_closed_form_bom import template_designs

CAT = default_catalog()
_SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])


def _partition(inverse: np.ndarray) -> list[tuple[int, ...]]:
    """The classes of a labelling as sets of their members, whatever the labels."""
    classes: dict[int, list[int]] = {}
    for i, label in enumerate(inverse.tolist()):
        classes.setdefault(label, []).append(i)
    return sorted(tuple(members) for members in classes.values())


@settings(max_examples=examples(200), **_SETTINGS)
@given(st.data())
def test_row_classes_equal_numpys_unique_rows(data):
    """Each path (a count over a short range, a refinement column by column, one number per row
    sorted, a hash checked against the rows) gives numpy's classes of rows and each class's
    first row."""
    n = data.draw(st.integers(1, 300))
    width = data.draw(st.sampled_from([1, 2, 3, 5, 17, 70, 300]))
    high = data.draw(st.sampled_from([1, 3, 40, 5000, 2**40]))
    rows = data.draw(hnp.arrays(np.int64, (n, width), elements=st.integers(0, high)))
    if data.draw(st.booleans()):   # rows repeated far more often than not, as rows of runs are
        rows = rows[data.draw(hnp.arrays(np.int64, n, elements=st.integers(0, max(0, min(n, 8) - 1))))]
    if data.draw(st.booleans()):
        rows = np.asfortranarray(rows)
    first, inverse = row_classes(rows)
    _, np_first, np_inverse = np.unique(rows, axis=0, return_index=True, return_inverse=True)
    assert _partition(inverse) == _partition(np_inverse.reshape(-1))
    assert sorted(first.tolist()) == sorted(np_first.tolist())
    assert np.array_equal(inverse[first], np.arange(len(first)))


@given(hnp.arrays(np.int64, st.integers(0, 200), elements=st.integers(-(2**40), 2**40)))
def test_sorted_distinct_is_numpys_unique(values):
    assert np.array_equal(sorted_distinct(values), np.unique(values))


@given(st.one_of(hnp.arrays(np.float64, hnp.array_shapes(max_dims=2, max_side=30),
                            elements=st.floats(-1e6, 1e6, allow_nan=False).map(lambda x: round(x, 1))),
                 hnp.arrays(np.dtype("U4"), st.integers(0, 60), elements=st.sampled_from(["a", "bb", "leaf", ""]))))
def test_sorted_distinct_is_numpys_unique_on_runs_names_and_matrices(values):
    """The replacement of every plain `np.unique` in the model and io: float runs, names and
    matrices (flattened) give numpy's answer, its dtype included."""
    got, expected = sorted_distinct(values), np.unique(values)
    assert got.dtype == expected.dtype and np.array_equal(got, expected)


def _tiers(d):
    r = d.resolved
    dev = DeviceCodes(d.design.cluster.servers, d.plan, r.planes)
    first = first_plane_links(r, d.plan, dev, ordered=False)[0]
    if not len(first.tier) or int(first.tier.max()) > 2 or np.any(np.diff(first.tier) < 0):
        return dev, None
    return dev, first_plane_tiers(d, CAT, first)


_GROUP_ARRAYS = ("order0", "a_host", "link_tier", "first_of_tier", "group", "rank", "lorder", "g_start", "g_nlinks",
                 "hosted", "g_ncages", "by_size", "shape")


def _spy(find, blocks: list[int]):
    """`find`, its answers (block counts) noted in `blocks`."""
    def spy(*args):
        blocks.append(find(*args))
        return blocks[-1]
    return spy


def _same_groups(design, monkeypatch) -> int:
    """Each tier's groups as found on one block and repeated equal those found on every link;
    how many tiers were found in blocks."""
    d = derive(design, CAT)
    dev, tiers = _tiers(d)
    if tiers is None:
        return 0
    r = d.resolved
    k_host = host_ports_per_cage(CAT, d)[0]
    repeated = 0
    for tier in tiers:
        block = block_planes(tier, k_host, r.planes, r.rails)
        if block is None:
            continue
        blocks: list[int] = []
        with monkeypatch.context() as m:
            for name in ("translated_blocks", "renamed_blocks"):
                m.setattr(class_groups, name, _spy(getattr(class_groups, name), blocks))
            found = Groups(tier, dev, block, k_host, r.planes, r.rails)
        with monkeypatch.context() as m:
            m.setattr(class_groups, "translated_blocks", lambda *args: 1)
            m.setattr(class_groups, "renamed_blocks", lambda *args: 1)
            whole = Groups(tier, dev, block, k_host, r.planes, r.rails)
        repeated += int(max(blocks, default=1) > 1)
        assert found.n_groups == whole.n_groups and found.n0 == whole.n0
        for name in _GROUP_ARRAYS:
            if name == "shape":   # shape numbers are the classes' own: compare the classes
                for bucket, other in zip(found.buckets, whole.buckets, strict=True):
                    assert _partition(found.shape[bucket.groups]) == _partition(whole.shape[other.groups])
                continue
            assert np.array_equal(getattr(found, name), getattr(whole, name)), name
        assert np.array_equal(found.local_a, whole.local_a) and np.array_equal(found.local_b, whole.local_b)
        for bucket, other in zip(found.buckets, whole.buckets, strict=True):
            assert (bucket.width, bucket.start) == (other.width, other.start)
            assert np.array_equal(bucket.groups, other.groups)
        _reads_equal_the_arrays(found)
    return repeated


def _reads_equal_the_arrays(groups: Groups) -> None:
    """What a count reads of a few groups, and of a bucket's groups, from the first block equals
    the same read of the arrays over every block."""
    for b, bucket in enumerate(groups.buckets):
        assert np.array_equal(groups.bucket_shapes(b), groups.shape[bucket.groups])
        assert np.array_equal(groups.bucket_hosted(b), groups.hosted[bucket.groups])
        assert np.array_equal(groups.bucket_first_links(b), groups.first_of_tier[bucket.groups])
        places = np.unique(np.r_[0, len(bucket.groups) // 2, len(bucket.groups) - 1])
        assert np.array_equal(groups.bucket_first_links(b, places), groups.first_of_tier[bucket.groups[places]])
        links = groups.by_size[bucket.start:bucket.start + bucket.width * len(bucket.groups)]
        assert groups.bucket_cages(b) == int(max(groups.local_a[links].max(), groups.local_b[links].max())) + 1
    for g in {0, groups.n_groups // 2, groups.n_groups - 1}:
        width = int(groups.g_nlinks[g])
        assert groups.width(g) == width and groups.cages_of(g) == int(groups.g_ncages[g])
        assert groups.is_hosted(g) == bool(groups.hosted[g])
        links = groups.links(g)
        assert np.array_equal(links, groups.lorder[groups.g_start[g]:groups.g_start[g] + width])
        assert [groups.rank_of(i) for i in links.tolist()] == groups.rank[links].tolist()
        local_a, local_b = groups.local_cages(links)
        assert np.array_equal(local_a, groups.local_a[links]) and np.array_equal(local_b, groups.local_b[links])


@settings(max_examples=examples(120), **_SETTINGS)
@given(template_designs())
def test_groups_found_on_one_block_equal_those_found_on_every_link(design):
    with pytest.MonkeyPatch.context() as monkeypatch:
        _same_groups(design, monkeypatch)


@st.composite
def repeating_designs(draw):
    """Designs whose tiers repeat in blocks (pods, leaves, rail groups), planes sharing NIC
    cages, oversubscribed leaves, rows whose runs straddle the 50 m multimode reach."""
    template = draw(st.sampled_from(["fat-tree", "rail-optimized", "leaf-spine", "rail-only"]))
    server = draw(st.sampled_from(["dgx-h100", "hgx-b300-eth-4plane", "dgx-b200", "dgx-b300-eth"]))
    switch = draw(st.sampled_from([None, "qm9700", "tomahawk5-51t", "tomahawk6-102t", "sn5600"]))
    try:
        design = new_design(CAT, template, gpus=draw(st.sampled_from([512, 1024, 2048])), server=server,
                            switch=switch, oversubscription=draw(st.sampled_from([1.0, 1.0, 2.0, 3.0])),
                            planes=draw(st.sampled_from([None, 1, 2, 4])), tiers=draw(st.sampled_from([None, 3])))
        for path, value in (("floorplan.placement", draw(st.sampled_from(["middle-of-row", "su-racks",
                                                                            "network-row"]))),
                            ("floorplan.racks_per_row", draw(st.sampled_from([4, 10, 24, 40]))),
                            # rows 10 to 14 m apart: runs of a few rows cross 50 m
                            ("floorplan.row_pitch_m", draw(st.sampled_from([2.4, 10.0, 12.5, 14.0])))):
            design = replace_path(design, path, value)
        derive(design, CAT)
    except (SizingError, UnknownPartError, ValueError):
        assume(False)
    return design


@settings(max_examples=examples(40), **_SETTINGS)
@given(repeating_designs())
def test_repeating_designs_group_alike_and_bill_as_the_per_link_count(design):
    with pytest.MonkeyPatch.context() as monkeypatch:
        _same_groups(design, monkeypatch)
    d = derive(design, CAT)
    counted = class_physical(d, CAT)
    if counted is not None:
        per_link = closed_form_physical(d, CAT)
        assert counted == per_link
        assert [list(m) for m in counted.media_counts.values()] == [list(m) for m in per_link.media_counts.values()]


def test_a_fat_tree_pods_groups_are_found_on_one_block(monkeypatch):
    """The premise of the shortcut on the fabrics it is for: a two-plane QM9700 fat-tree's tiers
    repeat (pods, groups of spines), and the groups found so equal those found on every link."""
    design = new_design(CAT, "fat-tree", gpus=2048, switch="qm9700", planes=2)
    assert _same_groups(design, monkeypatch) >= 2


@pytest.mark.parametrize(("server", "switch", "technology", "nodes", "leaves", "planes", "switches_per_rack",
                          "placement"), [
    ("dgx-b300-eth", "qm9700", "roce-400g", 1, 4, 2, 1, "middle-of-row"),
    ("dgx-h100", "sn5600", None, 2, 8, 2, 1, "network-row"),
    ("dgx-b300-eth", "sn5600", None, 2, 3, 2, 16, "su-racks"),
])
def test_idle_leaves_groups_equal_those_found_on_every_link(server, switch, technology, nodes, leaves, planes,
                                                            switches_per_rack, placement, monkeypatch):
    design = _rail_only_with_idle_leaves(server, switch, technology, nodes, leaves, planes, switches_per_rack,
                                         placement)
    _same_groups(design, monkeypatch)
