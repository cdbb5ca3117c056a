"""A generated design name ("256-GPU fat-tree", "1,024 GPU rail-optimized on Quantum-2 QM9700")
follows the design's GPU count and switch until the user types a name of their own.

A name counts as generated while its leading GPU count is the design's own: a name the user
typed rarely starts with exactly that number, and once the user renames the design the name
stops matching and is left alone.
"""

from __future__ import annotations

import re
from typing import overload

from designer.catalog import Catalog, UnknownPartError
from designer.model.intent.design import FabricDesign, replace_path

GENERATED = re.compile(r"^(\d{1,3}(?:,\d{3})*|\d+)([- ]GPU .+)$")


def gpu_count(design: FabricDesign, catalog: Catalog) -> int | None:
    cluster = design.cluster
    try:
        per_server = cluster.gpus_per_server or catalog.server(cluster.server).gpus
    except UnknownPartError:
        return None
    return cluster.servers * per_server


def switch_name(design: FabricDesign, catalog: Catalog) -> str | None:
    try:
        return catalog.switch(design.fabric.switch).name
    except (UnknownPartError, AttributeError, TypeError):
        return None


@overload
def follow_generated_name(old: FabricDesign | None, new: FabricDesign, catalog: Catalog) -> FabricDesign: ...
@overload
def follow_generated_name(old: FabricDesign | None, new: None, catalog: Catalog) -> None: ...
def follow_generated_name(old: FabricDesign | None, new: FabricDesign | None, catalog: Catalog) -> FabricDesign | None:
    """`new`, renamed when `old` had a generated name and the edit changed what it says."""
    if old is None or new is None or new.meta.name != old.meta.name:
        return new
    match = GENERATED.match(old.meta.name)
    before, after = gpu_count(old, catalog), gpu_count(new, catalog)
    if match is None or before is None or after is None or int(match.group(1).replace(",", "")) != before:
        return new
    rest = match.group(2)
    old_switch, new_switch = switch_name(old, catalog), switch_name(new, catalog)
    if old_switch and new_switch and rest.endswith(f" on {old_switch}"):
        rest = rest[: -len(old_switch)] + new_switch
    name = f"{after:,}{rest}"
    return new if name == new.meta.name else replace_path(new, "meta.name", name)
