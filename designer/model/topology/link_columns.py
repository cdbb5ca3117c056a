"""The capture's link rates as columns, link by link in `fabric.links` order.

The audit compares rates on arrays and makes a finding's objects only for the links below the
design's rate; this reads them off the links once per capture (the reader can give them as
columns instead).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from designer.model.topology.asbuilt import AsBuilt


@dataclass(frozen=True)
class LinkRates:
    gbps: np.ndarray      # data rate as built (float64)
    width: np.ndarray     # lanes (int64)


def link_rates(fabric: AsBuilt) -> LinkRates:
    """The links' rates and widths, made once per list of links."""
    links = fabric.links
    key = (id(links), len(links), id(links[0]) if links else 0, id(links[-1]) if links else 0)
    cached = fabric.__dict__.get("_link_rates")
    if cached is not None and cached[0] == key:
        return cached[1]  # type: ignore[no-any-return]
    rates = LinkRates(np.array([w.gbps for w in links], dtype=np.float64),
                      np.array([w.width for w in links], dtype=np.int64))
    fabric.__dict__["_link_rates"] = (key, rates)
    return rates
