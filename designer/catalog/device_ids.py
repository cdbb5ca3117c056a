"""Identifiers that InfiniBand devices report (vendid, devid), read from resources/ids/.

The table is data with a source per entry: the ibnetdiscover writer takes its devids from it,
and inference reads a capture's devids back to a chip and its catalog parts. A catalog part
without a published id has none here, and callers write 0 for it rather than guess.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import lru_cache

from designer.catalog.loader import RESOURCES
from designer.limits import read_text


@dataclass(frozen=True)
class DeviceId:
    devid: int
    name: str
    kind: str                     # "switch", "hca" or "aggregation"
    catalog: tuple[str, ...]      # catalog entry ids built on this chip
    source: str
    vendid: int = 0               # the device's own vendor id where it is not the table's (Voltaire)
    max_gbps: int = 0             # an HCA's top 4x rate where its source names it (0: not stated)


@dataclass(frozen=True)
class DeviceIds:
    vendid: int
    vendor: str
    vendor_source: str
    devices: tuple[DeviceId, ...]

    def for_part(self, catalog_id: str, kind: str) -> DeviceId | None:
        """The id that a catalog switch or NIC reports, or None when no source names one."""
        return next((d for d in self.devices if d.kind == kind and catalog_id in d.catalog), None)

    def by_devid(self, devid: int) -> DeviceId | None:
        return next((d for d in self.devices if d.devid == devid), None)


@lru_cache(maxsize=1)
def device_ids() -> DeviceIds:
    data = tomllib.loads(read_text(RESOURCES / "ids" / "infiniband.toml", "device-id file"))
    vendor = data["vendor"]
    return DeviceIds(vendor["vendid"], vendor["name"], vendor["source"], tuple(
        DeviceId(d["devid"], d["name"], d["kind"], tuple(d.get("catalog", ())), d["source"],
                 d.get("vendid", 0), d.get("max_gbps", 0))
        for d in data.get("device", ())))
