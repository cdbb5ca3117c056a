"""A site's map from node GUID to host name (`H-0002c90300080e84 r510gluster1`, one a line, `#`
comments): the names of HCAs whose descriptions are the vendor's defaults, as sites keep it for
ibnetdiscover's `--node-name-map`-less captures (the PSMN X5 cluster's X5.map).

`read_guid_names` reads one through the capped reader; `name_hosts` gives the capture's
default-described HCAs the names the map holds, before anything is inferred.
"""

from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path

import numpy as np

from designer.io.ibnetdiscover import CaptureError
from designer.limits import InputError, read_capped
from designer.model.topology.asbuilt import KIND_HOST, AsBuilt, columns_of

MAX_BYTES = 16 * 2**20          # a million hosts' lines; a map is never larger
_LINE = re.compile(r"^(?:0x)?(?:[HS]-)?(?P<guid>[0-9a-fA-F]{16})\s+(?P<name>\S+)")
_GUID = re.compile(r"([0-9a-f]{16})")


def read_guid_names(path: str | os.PathLike[str]) -> dict[str, str]:
    """GUID (16 lowercase hex digits) -> host name; CaptureError (one line) on a file that holds
    no such line."""
    p = Path(path)
    try:
        text = read_capped(p, MAX_BYTES, "GUID name map").decode("utf-8", errors="replace")
    except InputError as exc:
        raise CaptureError(str(exc)) from None
    names: dict[str, str] = {}
    for line in text.splitlines():
        m = _LINE.match(line.strip())
        if m:
            names[m.group("guid").lower()] = m.group("name")
    if not names:
        raise CaptureError(f"{p}: not a GUID name map (expected lines such as 'H-0002c90300080e84 host1')")
    return names


def name_hosts(fabric: AsBuilt, names: dict[str, str]) -> int:
    """Name the default-described HCAs whose GUID the map holds; returns how many were named."""
    named = 0
    columns = columns_of(fabric)
    if columns is not None:     # read in bulk: only the HCAs without a server are made
        unnamed = np.flatnonzero((columns.kind == KIND_HOST) & (columns.host_code < 0)).tolist()
        candidates = [(columns.ids[row], fabric.devices[columns.ids[row]]) for row in unnamed]
    else:
        candidates = list(fabric.devices.items())
    for dev_id, dev in candidates:
        if dev.kind != "host" or dev.aggregation or dev.host:
            continue
        m = _GUID.search(dev_id.lower())
        host = names.get(m.group(1)) if m else None
        if host:
            fabric.put_device(dataclasses.replace(dev, name=host, host=host, hca=max(dev.hca, 0),
                                                  default_named=False))
            named += 1
    return named


def beside(capture: str | os.PathLike[str]) -> Path | None:
    """The map a site keeps beside its capture: same name, `.map` (X5.topofile and X5.map)."""
    candidate = Path(capture).with_suffix(".map")
    return candidate if candidate.is_file() and candidate != Path(capture) else None
