"""The palette's building blocks and what dropping one does to a design. Plain Python, no Qt.

Templates make a new fabric (or replace the current one, keeping its size and technology);
a server group adds servers; a core tier turns a two-tier fabric into three tiers.
"""

from __future__ import annotations

from dataclasses import dataclass

from designer.catalog import Catalog
from designer.model.intent.design import FabricDesign, replace_path
from designer.model.physical.cost_bound import fabric_bound
from designer.model.physical.fabric_cost import fabric_cost
from designer.model.physical.prices import PriceBookError, default_prices
from designer.model.topology.edits import with_tiers
from designer.model.topology.presets import default_server, new_design
from designer.model.topology.switch_choice import FabricBound, FabricCost

MIME_TYPE = "application/x-fabric-designer-block"
DEFAULT_GPUS = 256
SERVER_GROUP = 32   # servers added by one server-group block (one DGX SuperPOD SU)


@dataclass(frozen=True)
class BlockKind:
    id: str
    section: str        # "Fabric templates" or "Building blocks"
    title: str
    detail: str


BLOCKS = (
    BlockKind("template:leaf-spine", "Fabric templates", "Leaf-spine",
              "Two tiers: leaves under spines; 256 GPUs"),
    BlockKind("template:fat-tree", "Fabric templates", "Fat-tree",
              "Leaf and spine, with a core tier once the size needs one; 256 GPUs"),
    BlockKind("template:rail-optimized", "Fabric templates", "Rail-optimized SU",
              "A scalable unit: GPU i of every server on leaf i; 32 servers, 256 GPUs"),
    BlockKind("block:servers", "Building blocks", "Server group",
              f"Adds {SERVER_GROUP} servers to the fabric"),
    BlockKind("block:leaf", "Building blocks", "Leaf tier", "The tier the servers connect to"),
    BlockKind("block:spine", "Building blocks", "Spine tier", "The tier above the leaves"),
    BlockKind("block:core", "Building blocks", "Core tier", "A third tier joining pods of leaves and spines"),
)
BLOCK_BY_ID = {b.id: b for b in BLOCKS}


@dataclass(frozen=True)
class DropOutcome:
    design: FabricDesign | None     # None: nothing changes
    text: str                        # the undo step's name, or why nothing changed
    new_fabric: bool = False         # the canvas had no fabric before


def template_design(catalog: Catalog, template: str, technology: str, gpus: int = DEFAULT_GPUS,
                    server: str | None = None) -> FabricDesign:
    """A template fabric of `gpus` GPUs on `technology`, with the defaults of `fabric-designer new`."""
    tech = catalog.technology(technology)
    # The same sizing as `fabric-designer new`: the fewest tiers that fit (the core-tier block adds one).
    # and the same switch choice: the cheapest of the technology's switches in the price book.
    # A new fabric starts on the newest shipping server of its family that runs the technology.
    server = server or default_server(catalog, tech).id
    cost, bound = choice_pricing(catalog)
    # The floor lets layouts that cannot be chosen go unpriced, as in `new`: same choice, less
    # sizing on the drop.
    return new_design(catalog, template, gpus=gpus, technology=tech.id, server=server,
                      name=f"{gpus:,}-GPU {_NAMES[template]}", cost=cost, bound=bound)


def choice_pricing(catalog: Catalog) -> tuple[FabricCost | None, FabricBound | None]:
    """What the switch choice compares fabrics by, and a floor under it: their bill of materials
    in the price book; (None, None) (fewest switches) if the book cannot be read, since a
    malformed user price book is reported where prices are shown, not on a drop."""
    try:
        book = default_prices()
    except PriceBookError:
        return None, None
    return fabric_cost(catalog, book), fabric_bound(catalog, book)


def choice_cost(catalog: Catalog) -> FabricCost | None:
    """The cost of `choice_pricing`, for choices that price one candidate per switch model."""
    return choice_pricing(catalog)[0]


_NAMES = {"leaf-spine": "leaf-spine", "fat-tree": "fat-tree", "rail-optimized": "rail-optimized fabric",
          "rail-only": "rail-only fabric"}


def apply_block(block_id: str, design: FabricDesign | None, catalog: Catalog, technology: str,
                current_tiers: int | None = None) -> DropOutcome:
    """What dropping block `block_id` on a canvas showing `design` (of `current_tiers` tiers) makes of it."""
    kind, _, name = block_id.partition(":")
    if block_id not in BLOCK_BY_ID:
        return DropOutcome(None, f"unknown palette item '{block_id}'")
    if kind == "template":
        if design is None:
            return DropOutcome(template_design(catalog, name, technology), f"New {BLOCK_BY_ID[block_id].title} fabric",
                               new_fabric=True)
        gpus = design.cluster.servers * (design.cluster.gpus_per_server or catalog.server(design.cluster.server).gpus)
        new = template_design(catalog, name, design.fabric.technology, gpus=gpus, server=design.cluster.server)
        return DropOutcome(new, f"Replace fabric with {BLOCK_BY_ID[block_id].title}")
    if design is None:
        # Any building block on an empty canvas starts the smallest sensible fabric.
        return DropOutcome(template_design(catalog, "leaf-spine", technology), "New Leaf-spine fabric",
                           new_fabric=True)
    if name == "servers":
        servers = design.cluster.servers + SERVER_GROUP
        return DropOutcome(replace_path(design, "cluster.servers", servers), f"Add {SERVER_GROUP} servers")
    if name == "core":
        if (current_tiers or design.fabric.tiers) == 3:
            return DropOutcome(None, "The fabric already has a core tier")
        return DropOutcome(with_tiers(design, 3), "Add core tier")
    return DropOutcome(None, f"The fabric already has a {name} tier; drag its handle to add switches")
