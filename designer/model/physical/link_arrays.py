"""A template fabric's devices and links as integer codes and parallel arrays.

The closed-form bill of materials generates them (`closed_form_bom.py`); placement
(`template_layout.py`), cable runs (`link_runs.py`), edits (`edited_bom.py`), cabling exports
(`link_table.py`) and the cost floor (`cost_bound.py`) read them. They live here, apart from
all of those, so that no two of those modules import each other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

import numpy as np

from designer.model.physical.floor_layout import server_device
from designer.model.topology.builders import plane_prefix

if TYPE_CHECKING:
    from designer.model.topology.sizing import Plan


@dataclass
class LinkArrays:
    """Every link of the fabric as parallel arrays, in the device graph's edge order."""

    tier: np.ndarray       # index into closed_form_bom.TIERS
    gbps: np.ndarray
    a_dev: np.ndarray      # device code (see DeviceCodes)
    a_port: np.ndarray
    b_dev: np.ndarray
    b_port: np.ndarray


# A device index, or an array of them.
_I = TypeVar("_I", int, np.ndarray)


class DeviceCodes:
    """Integer codes for devices: servers first, then per plane leaves, spines and cores."""

    def __init__(self, servers: int, plan: Plan, planes: int) -> None:
        self.servers, self.plan, self.planes = servers, plan, planes
        self.per_plane = plan.leaves + plan.spines + plan.cores
        self.total = servers + planes * self.per_plane

    def leaf(self, plane: int, i: _I) -> _I:
        return self.servers + plane * self.per_plane + i

    def spine(self, plane: int, i: _I) -> _I:
        return self.servers + plane * self.per_plane + self.plan.leaves + i

    def core(self, plane: int, i: _I) -> _I:
        return self.servers + plane * self.per_plane + self.plan.leaves + self.plan.spines + i

    def describe(self, code: int) -> tuple[str, int, int]:
        """(role, plane, index) of a device code."""
        if code < self.servers:
            return "nic", -1, code
        plane, local = divmod(code - self.servers, self.per_plane)
        if local < self.plan.leaves:
            return "leaf", plane, local
        local -= self.plan.leaves
        if local < self.plan.spines:
            return "spine", plane, local
        return "core", plane, local - self.plan.spines

    def name(self, code: int) -> str:
        role, plane, i = self.describe(code)
        if role == "nic":
            return server_device(i)
        return f"{plane_prefix(plane, self.planes)}{role}-{i + 1}"
