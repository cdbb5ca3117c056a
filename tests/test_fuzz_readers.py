"""A standing fuzz suite for the readers of captures and rate tables (the project-file, catalog and
price-book readers have theirs in test_fuzz_inputs.py).

Inputs are the tool's own exports mutated line by line and byte by byte, and text from each
format's alphabet. Every case must end cleanly: a fabric (whose inference then says what it can),
or one refusal of the reader's own error type. A traceback, another exception type or a case
slower than the bound is a defect. The budget here is small so that `make test` stays quick;
benchmarks/bench_hostile_input.py runs the same cases longer and prints the figures.
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter

import pytest
from helpers import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.catalog import default_catalog
from designer.io.fabric_capture import CaptureError, load_capture, parse_capture
from designer.io.ibnetdiscover import export_ibnetdiscover
from designer.io.lldp import export_lldp_json
from designer.model.decisions.interruptions import RateTableError, load_rates
from designer.model.topology.derive import derive
from designer.model.topology.inference import infer_design
from designer.model.topology.presets import new_design

# The last test writes the whole run's tally: under pytest-xdist every test of this file runs
# on one worker (`make test` passes --dist loadgroup).
pytestmark = pytest.mark.xdist_group("fuzz-readers")

CAT = default_catalog()
# A case may take this much of the process's CPU time: CPU, not wall time, so that another user
# of the machine cannot fail the test; the benchmark prints the real (wall) figures.
SECONDS = 10.0
# Examples per reader: 60 in `make test-slow`, 24 in `make test` (the quick profile's share,
# tests/conftest.py); benchmarks/bench_fuzz_readers.py raises it through FUZZ_EXAMPLES.
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES") or examples(60))
TALLY: Counter = Counter()      # cases, read, refused, slowest_ms; FUZZ_TALLY=path writes it as JSON
IB = export_ibnetdiscover(derive(new_design(CAT, "rail-optimized", nodes=4, server="dgx-h100", switch="qm9700",
                                            nodes_per_su=4), CAT))
ETH = export_lldp_json(derive(new_design(CAT, "leaf-spine", nodes=4, server="dgx-h100", technology="roce-400g"), CAT))
CSV = ("local_device,local_port,remote_device,remote_port,speed\n"
       "leaf01,swp1,srv1,eth0,400G\nspine01,swp1,leaf01,swp51,400G\n")
IB_TOKENS = ["Switch", "Ca", "Rt", '"S-0002c903000a0b0c"', '"H-0002c903000a0b0d"', "[1]", "[65]", "(4)", "#",
             '"MF0;leaf-1:MQM9700/U1"', '"srv-1 mlx5_0"', "lid 3", "4xNDR", "1xSDR", "vendid=0x2c9", "devid=0xd2f2",
             "\t", " ", "\n", "\r", "\x00", "\ufeff", "999999999999", "-1", '"', "enhanced port 0", "lmc 0"]


def _start() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def _timed(started: tuple[float, float]) -> None:
    wall, cpu = time.perf_counter() - started[0], time.process_time() - started[1]
    TALLY["cases"] += 1
    TALLY["slowest_ms"] = max(TALLY["slowest_ms"], round(wall * 1000))
    assert cpu < SECONDS


def _ends_cleanly(text: str) -> None:
    started = _start()
    try:
        fabric = parse_capture(text, "fuzz")
    except CaptureError as exc:
        message = str(exc)
        assert message and "\n" not in message.strip() and "Traceback" not in message
        TALLY["refused"] += 1
    else:
        inference = infer_design(fabric, CAT)
        assert inference.design is not None or inference.problems
        TALLY["read"] += 1
    _timed(started)


def _mutations(base: str):
    lines = base.split("\n")
    return st.one_of(
        # drop, duplicate or swap lines
        st.lists(st.integers(0, len(lines) - 1), min_size=1, max_size=8).map(
            lambda idx: "\n".join(ln for i, ln in enumerate(lines) if i not in set(idx))),
        st.tuples(st.integers(0, len(lines) - 1), st.integers(0, len(lines) - 1)).map(
            lambda ij: "\n".join(lines[:ij[0]] + [lines[ij[1]]] + lines[ij[0]:])),
        # flip characters anywhere
        st.lists(st.tuples(st.integers(0, len(base) - 1), st.characters()), min_size=1, max_size=12).map(
            lambda flips: _flip(base, flips)),
        # truncate
        st.integers(0, len(base)).map(lambda n: base[:n]),
    )


def _flip(base: str, flips) -> str:
    chars = list(base)
    for i, ch in flips:
        chars[i] = ch
    return "".join(chars)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(_mutations(IB), st.lists(st.sampled_from(IB_TOKENS), max_size=60).map("".join)))
def test_fuzz_the_ibnetdiscover_reader(text):
    _ends_cleanly(text)


json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(allow_nan=False), st.text(max_size=12)),
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.sampled_from(["lldp", "interface", "chassis", "port", "id", "value",
                                                             "descr", "name", "type", "mac", "ifname", "capability",
                                                             "enabled", "auto-negotiation", "current", "x"]),
                                            inner, max_size=4)),
    max_leaves=20)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(_mutations(ETH), json_values.map(lambda v: json.dumps({"lldp": v}))))
def test_fuzz_the_lldp_json_reader(text):
    _ends_cleanly(text)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(_mutations(CSV), st.lists(st.lists(st.text(st.sampled_from("ab,\"\n\r01GT: \t"), max_size=8),
                                                     min_size=1, max_size=6), max_size=8).map(
    lambda rows: "local_device,local_port,remote_device,remote_port\n" + "\n".join(",".join(r) for r in rows))))
def test_fuzz_the_lldp_csv_reader(text):
    _ends_cleanly(text)


RATE_TOKENS = ["[[rate]]", "\n", 'id = "x"', 'applies_to = "link"', 'applies_to = "gpu"', 'per = "link-month"',
               'per = "gpu-day"', 'per = "unit-year"', "value = 1e-5", "value = -1", "value = nan", "value = inf",
               'value = "x"', "rate = 2", "[rate]", "= =", '"""', "#", "[[rate.x]]", "value = 1e308"]


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(st.one_of(st.lists(st.sampled_from(RATE_TOKENS), max_size=30).map("\n".join), st.text(max_size=200)))
def test_fuzz_the_rate_table_reader(tmp_path, text):
    path = tmp_path / "rates.toml"
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    started = _start()
    try:
        rates = load_rates(path)
    except RateTableError as exc:
        assert str(exc) and "Traceback" not in str(exc)
        TALLY["refused"] += 1
    else:
        assert all(r.per_unit_day is None or r.per_unit_day >= 0 for r in rates)
        TALLY["read"] += 1
    _timed(started)


def test_a_capture_file_goes_through_the_capped_reader(tmp_path):
    path = tmp_path / "capture.txt"
    path.write_text(IB, encoding="utf-8")
    assert len(load_capture(path).devices) == len(parse_capture(IB).devices)
    path.write_bytes(b"\xff\xfe" + IB.encode())
    try:
        load_capture(path)
    except CaptureError as exc:
        assert "not a text file" in str(exc)


def test_write_the_tally():
    """Last in the file: the figures of this run, for the benchmark."""
    target = os.environ.get("FUZZ_TALLY")
    if target:
        with open(target, "w", encoding="utf-8") as fh:
            json.dump(dict(TALLY), fh)
    assert TALLY["cases"] == TALLY["read"] + TALLY["refused"]
