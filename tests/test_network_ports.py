"""The other networks' port numbering taken a list at a time (model/networks/devices.py) against
one port at a time."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from designer.model.networks.devices import _Ports

NAMES = st.integers(0, 40).map(lambda k: f"leaf-{k}")
# short lists are numbered one by one, long ones (256 and more) as arrays: both kinds, mixed
DEVICES = st.one_of(st.lists(NAMES, max_size=20), st.lists(NAMES, min_size=256, max_size=700))


@given(st.lists(DEVICES, max_size=4))
def test_taken_numbers_each_device_as_take_does(calls: list[list[str]]) -> None:
    one, listed = _Ports(), _Ports()
    for devices in calls:
        assert listed.taken(devices) == [one.take(device) for device in devices]
        assert listed.used == one.used
