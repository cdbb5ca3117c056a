"""A capture read in bulk is columns; its objects, made one at a time when asked, are the line
reader's.

The bulk ibnetdiscover reader keeps the devices and links as columns (`asbuilt.CaptureColumns`)
and makes a `Device` or `Link` only when something reads it. `link_ends` and `device_table`
are served from the columns without making any. Here, on exports of small designs damaged the
ways real dumps are, the columns, the arrays served from them and the objects made lazily (one
at a time, in any order, or all at once) are held equal to the line reader's objects and to the
arrays read from those objects; and changing the capture (a device renamed, a link added or
removed) keeps every reading right.
"""

from __future__ import annotations

import dataclasses
import pickle
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_ibnetdiscover_bulk import _TEXTS, _damage

from designer.io.fabric_capture import parse_capture
from designer.io.guid_names import name_hosts
from designer.io.ibnetdiscover import CaptureError, parse_lines, parse_regular
from designer.model.topology.asbuilt import (
    AsBuilt,
    ColumnDevices,
    ColumnLinks,
    Link,
    columns_of,
    device_table,
    link_ends,
)

_KINDS = ["stray", "indent", "comment", "blank", "duplicate", "drop", "slower", "rate-in-name", "no-rate",
          "upper", "vendid-gap", "orphan-port", "bad-devid", "tab-blank", "big-port"]


def _objects(fabric: AsBuilt) -> AsBuilt:
    """The same capture as plain objects (a dict and a list): the reference readings."""
    plain = AsBuilt(fabric.source_format, dict(fabric.devices.items()), list(fabric.links), list(fabric.notes),
                    fabric.speeds_simulated)
    assert columns_of(plain) is None
    return plain


def _same_arrays(fabric: AsBuilt, reference: AsBuilt) -> None:
    ends, expected = link_ends(fabric), link_ends(reference)
    assert (ends is None) == (expected is None)
    if ends is not None and expected is not None:
        assert ends.ids == expected.ids and ends.index == expected.index
        for name in ("a", "pa", "b", "pb", "gbps", "width"):
            assert np.array_equal(getattr(ends, name), getattr(expected, name)), name
    table, reference_table = device_table(fabric), device_table(reference)
    for f in dataclasses.fields(table):
        got, want = getattr(table, f.name), getattr(reference_table, f.name)
        assert (np.array_equal(got, want) and got.dtype == want.dtype) if isinstance(want, np.ndarray) \
            else got == want, f.name


def _bulk_and_lines(text: str) -> tuple[AsBuilt, AsBuilt] | None:
    try:
        lines = parse_lines(text, "dump")
    except CaptureError:
        return None
    bulk = parse_regular(text, "dump")
    return (bulk, lines) if bulk is not None else None


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, len(_TEXTS) - 1), st.integers(0, 10**9), st.lists(st.sampled_from(_KINDS), max_size=3),
       st.integers(0, 10**9))
def test_columns_and_lazy_objects_are_the_line_readers(which, seed, kinds, probe):
    text = "\n".join(_damage(_TEXTS[which].split("\n"), random.Random(seed), kinds)) + "\n"
    read = _bulk_and_lines(text)
    if read is None:
        return
    bulk, lines = read
    columns = columns_of(bulk)
    assert columns is not None
    # The arrays come from the columns before any object is made, and equal the objects' arrays.
    _same_arrays(bulk, lines)
    assert columns_of(bulk) is columns
    assert isinstance(bulk.devices, ColumnDevices) and isinstance(bulk.links, ColumnLinks)
    assert bulk.devices._made is None and bulk.links._made is None      # nothing made yet
    # A few objects asked for one at a time, in any order, are the line reader's.
    rnd = random.Random(probe)
    ids = list(lines.devices)
    for dev_id in rnd.sample(ids, min(5, len(ids))):
        assert dev_id in bulk.devices
        assert bulk.devices[dev_id] == lines.devices[dev_id]
        assert bulk.devices.get(dev_id) == lines.devices[dev_id]
    assert "no such device" not in bulk.devices and bulk.devices.get("no such device") is None
    for row in rnd.sample(range(len(lines.links)), min(5, len(lines.links))):
        assert bulk.links[row] == lines.links[row]
        assert bulk.links[row - len(lines.links)] == lines.links[row - len(lines.links)]
    assert len(bulk.devices) == len(lines.devices) and len(bulk.links) == len(lines.links)
    assert bulk.devices._made is None and bulk.links._made is None      # made one at a time, not kept
    with pytest.raises(IndexError):
        bulk.links[len(lines.links)]
    with pytest.raises(KeyError):
        bulk.devices["no such device"]
    # Read whole, in the capture's order.
    assert list(bulk.devices.items()) == list(lines.devices.items())
    assert bulk.links == lines.links and bulk.links[1:4] == lines.links[1:4]
    assert bulk.endpoints() == lines.endpoints() and bulk.switches() == lines.switches()
    assert columns_of(bulk) is columns              # reading never detaches the columns
    _same_arrays(bulk, lines)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, len(_TEXTS) - 1), st.integers(0, 10**9),
       st.sampled_from(["rename", "add-device", "append", "drop-link", "replace-links", "sort"]),
       st.booleans())
def test_a_changed_capture_reads_as_its_objects(which, seed, change, read_first):
    """The columns are read-only views; a capture changes through `put_device` and `set_links`,
    and every reading (objects, arrays) follows, on the columns or as plain objects."""
    bulk = parse_regular(_TEXTS[which], "dump")
    assert bulk is not None and columns_of(bulk) is not None
    if read_first:       # the arrays served (and cached), every object made, before the change
        link_ends(bulk), device_table(bulk), list(bulk.devices.values()), list(bulk.links)
    rnd = random.Random(seed)
    ids = list(bulk.devices)
    dev = bulk.devices[rnd.choice(ids)]
    with pytest.raises(TypeError):
        bulk.devices[dev.id] = dev            # type: ignore[index]
    with pytest.raises(TypeError):
        bulk.links[0] = bulk.links[1]         # type: ignore[index]
    links = list(bulk.links)
    if change == "rename":
        bulk.put_device(dataclasses.replace(dev, name="renamed", host=f"host-{seed % 3}", hca=seed % 4,
                                            default_named=False))
    elif change == "add-device":
        bulk.put_device(dataclasses.replace(dev, id="H-new"))
    elif change == "append":
        bulk.set_links([*links, Link(ids[0], 99, ids[-1], 98, 100.0, 4, "EDR")])
    elif change == "drop-link":
        del links[rnd.randrange(len(links))]
        bulk.set_links(links)
    elif change == "replace-links":
        bulk.set_links(links[: len(links) // 2])
    else:
        bulk.set_links(sorted(links, key=lambda link: (link.b, link.pb)))
    reference = _objects(bulk)
    assert (columns_of(bulk) is not None) == (change == "rename")
    _same_arrays(bulk, reference)
    assert list(bulk.devices.items()) == list(reference.devices.items()) and bulk.links == reference.links
    if change == "rename":
        assert bulk.devices[dev.id].name == "renamed"
    elif change == "add-device":
        assert bulk.devices["H-new"] == dataclasses.replace(dev, id="H-new") and isinstance(bulk.devices, dict)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, len(_TEXTS) - 1), st.integers(0, 10**9))
def test_guid_names_rename_the_columns(which, seed):
    """A GUID name map names default-described HCAs on the columns, as on the objects."""
    text = _TEXTS[which]
    rnd = random.Random(seed)
    hcas = [line.split('"')[1] for line in text.split("\n") if line.startswith("Ca\t")]
    text = "\n".join(line.replace(line[line.index("# "):], '# "MT4129 ConnectX7   Mellanox Technologies"')
                     if line.startswith("Ca\t") and rnd.random() < 0.5 else line for line in text.split("\n"))
    names = {h[2:]: f"node-{i}" for i, h in enumerate(hcas) if rnd.random() < 0.7}
    bulk, lines = parse_capture(text, "dump"), parse_lines(text, "dump")
    assert columns_of(bulk) is not None
    assert name_hosts(bulk, names) == name_hosts(lines, names)
    assert columns_of(bulk) is not None
    _same_arrays(bulk, lines)
    assert list(bulk.devices.items()) == list(lines.devices.items())


def test_a_capture_of_columns_pickles_as_its_objects():
    bulk = parse_regular(_TEXTS[0], "dump")
    assert bulk is not None
    copy = pickle.loads(pickle.dumps(bulk))
    assert list(copy.devices.items()) == list(bulk.devices.items()) and copy.links == bulk.links


_DESCRIPTIONS = ["localhost mlx5_0", "LOCALHOST HCA-2", "node-7 HCA-3", "node-7\tmlx4_1 ", " node-8 mlx5_12",
                 "MT4129 ConnectX7   Mellanox Technologies", "", "Mellanox Technologies Aggregation Node",
                 "r1-n2 mlx5_x", "a b mlx5_1", "n#1 mlx5_2", "host\tHCA-1\t"]
_SWITCHES = ["Voltaire 4036 - 36 QDR ports switch", "MT4123 Mellanox Technologies", "", "spine-1",
             "MF0;leaf-1:MQM9700/U1"]
_TAILS = [" 4xNDR", "\t4xNDR", " 4xQDR 4xNDR", " #4xNDR", " lid 12", " 2xHDR", " 4xndr", " 4xFDR10  ",
          " averyveryverylongword4xNDR", " 12xEDR"]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, len(_TEXTS) - 1), st.integers(0, 10**9),
       st.lists(st.sampled_from(_DESCRIPTIONS), max_size=6), st.lists(st.sampled_from(_TAILS), max_size=6),
       st.lists(st.sampled_from(_SWITCHES), max_size=4))
def test_descriptions_and_rates_read_in_bulk_as_line_by_line(which, seed, descriptions, tails, switches):
    """HCA descriptions of every form (server and index, localhost, factory default, none),
    switches sharing a plain description, and port lines ending in any rate, none, or a word the
    rate is not: the bulk reader's columns and objects are the line reader's."""
    rnd = random.Random(seed)
    lines = _TEXTS[which].split("\n")
    for desc in switches:
        blocks = [i for i, line in enumerate(lines) if line.startswith("Switch\t")]
        i = rnd.choice(blocks)
        lines[i] = lines[i][:lines[i].index("# ")] + f'# "{desc}" enhanced port 0 lid 1 lmc 0'
    for desc in descriptions:
        cas = [i for i, line in enumerate(lines) if line.startswith("Ca\t")]
        i = rnd.choice(cas)
        lines[i] = lines[i][:lines[i].index("# ")] + f'# "{desc}"'
    for tail in tails:
        ports = [i for i, line in enumerate(lines) if line.startswith("[")]
        i = rnd.choice(ports)
        lines[i] = lines[i].rsplit(" ", 1)[0] + tail
    read = _bulk_and_lines("\n".join(lines) + "\n")
    if read is None:
        return
    bulk, lines_read = read
    _same_arrays(bulk, lines_read)
    assert list(bulk.devices.items()) == list(lines_read.devices.items()) and bulk.links == lines_read.links
