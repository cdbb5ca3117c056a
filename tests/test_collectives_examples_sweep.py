"""`collectives --sweep` on every example: the time never falls as the size grows."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from designer.catalog import default_catalog
from designer.io.project import load_design
from designer.model.performance import collectives as C
from designer.model.topology.derive import derive

EXAMPLES = sorted((Path(__file__).resolve().parents[1] / "examples").glob("*.json"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_every_collective_and_placement_of_every_example_is_non_decreasing(path):
    derived = derive(load_design(path), default_catalog())
    checked = 0
    for collective in C.COLLECTIVES:
        for placement in C.PLACEMENTS:
            s = C.sweep(derived, collective, None, "auto", placement, C.SWEEP_SIZES)
            assert np.all(np.isfinite(s.time_us)) and np.all(s.time_us > 0)
            falls = np.flatnonzero(np.diff(s.time_us) < 0)
            assert falls.size == 0, (path.name, collective, placement,
                                     [(int(s.sizes[k]), float(s.time_us[k]), float(s.time_us[k + 1])) for k in falls])
            checked += 1
    assert checked == len(C.COLLECTIVES) * len(C.PLACEMENTS)


def test_the_bottleneck_names_nccls_choice_where_a_faster_algorithm_exists():
    """On GB300 NVL72 racks NCCL's model switches to NVLSTree at 512 MiB where the estimate finds the
    tree faster: the row says the choice binds, not latency, and gives the faster time."""
    derived = derive(load_design(Path(__file__).resolve().parents[1] / "examples" / "gb300-nvl72-8rack.json"),
                     default_catalog())
    s = C.sweep(derived, "allreduce", None, "auto", "packed", [1 << 29, 1 << 30])
    assert any(r.algorithm == "nvls+tree" for r in s.results)
    for r in s.results:
        if r.algorithm == "nvls+tree":
            assert r.bottleneck.startswith("NCCL's choice (tree/"), r.bottleneck
            assert r.bottleneck != C.LATENCY
