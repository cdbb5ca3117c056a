"""`collectives --sweep` on every example: the time never falls as the size grows, and twice the
size never takes more than twice the time (no cliff where the algorithm changes)."""

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
            # The sizes double from one to the next: a fixed cost plus a cost per byte takes at
            # most twice as long for twice the bytes, and so does the fastest of several.
            cliffs = np.flatnonzero(s.time_us[1:] > 2 * s.time_us[:-1] * (1 + 1e-9))
            assert cliffs.size == 0, (path.name, collective, placement,
                                      [(int(s.sizes[k]), s.algorithms[k], s.algorithms[k + 1]) for k in cliffs])
            checked += 1
    assert checked == len(C.COLLECTIVES) * len(C.PLACEMENTS)


GB300_8RACK = Path(__file__).resolve().parents[1] / "examples" / "gb300-nvl72-8rack.json"


def test_at_1_gib_on_8_gb300_racks_a_bandwidth_binds_not_latency():
    """The all-reduce of 1 GiB across 8 GB300 NVL72 racks spends most of its time moving bytes:
    the card names the link that binds, not latency."""
    derived = derive(load_design(GB300_8RACK), default_catalog())
    r = C.estimate(derived, "allreduce", 1 << 30)
    assert r.bottleneck != C.LATENCY
    ctx = C.context_for(derived)
    chosen = next(c for c in C.candidates(ctx, "allreduce")
                  if (c.algorithm, c.protocol) == (r.algorithm, r.protocol))
    assert chosen.us_per_byte * (1 << 30) > chosen.latency_us
    assert r.time_us == pytest.approx(chosen.latency_us + chosen.us_per_byte * (1 << 30))


@pytest.mark.parametrize("racks", [2, 8, 20])
def test_auto_takes_the_fastest_algorithm_and_protocol_at_every_size(racks):
    """As NCCL's tuner does: no NCCL algorithm asked for by name is faster than `auto`, across
    rack-scale NVLink domains too (where `auto` once followed NCCL's own model instead)."""
    from designer.model.topology.presets import new_design
    cat = default_catalog()
    derived = derive(new_design(cat, "rail-optimized", gpus=1440, server="gb200-nvl72-tray", switch="qm9700"), cat)
    auto = C.sweep(derived, "allreduce", 72 * racks, "auto")
    for algorithm in ("ring", "tree", "innetwork"):
        named = C.sweep(derived, "allreduce", 72 * racks, algorithm)
        assert np.all(auto.time_us <= named.time_us * (1 + 1e-9)), algorithm
