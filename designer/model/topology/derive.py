"""One entry point from a design to everything derived from it, cached by content.

A design is immutable, so its content key fully determines the plan, the graph and the
metrics; the cache makes repeated reads (canvas, inspector, exporters) free.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from threading import Lock
from typing import TYPE_CHECKING

from designer.catalog import Catalog, default_catalog
from designer.model.common.cache import ContentCache
from designer.model.intent.design import FabricDesign
from designer.model.topology.bounds import check_per_link, plan_totals
from designer.model.topology.builders import Build, build_graph
from designer.model.topology.edited_fabric import measure_edits
from designer.model.topology.metrics import Metrics, assemble, compute_metrics
from designer.model.topology.sizing import Plan, Resolved, plan_fabric, resolve

if TYPE_CHECKING:   # networkx loads only where a graph is built or walked
    import networkx as nx


@dataclass
class Derived:
    """A design with its resolved parts, sizing plan, metrics and (built on first use) graph.

    Template designs get their metrics in closed form, and designs with switch edits from the
    plan and the edits, so the device graph (large for big fabrics) is built only when
    something asks for it.
    """

    design: FabricDesign
    resolved: Resolved
    plan: Plan
    _build: Build | None = field(default=None, repr=False)
    _lock: Lock = field(default_factory=Lock, repr=False, compare=False)

    @property
    def build(self) -> Build:
        with self._lock:  # the canvas worker and an exporter may ask at the same time
            if self._build is None:
                # The graph holds an object per link: refused in one line above what it holds,
                # naming the closed-form commands that still work (bounds.py).
                links = plan_totals(self.design, self.resolved, self.plan)["links"]
                check_per_link("the device graph", links)
                self._build = build_graph(self.design, self.resolved, self.plan)
            return self._build

    @property
    def graph(self) -> nx.MultiGraph[str]:
        return self.build.graph

    @cached_property
    def metrics(self) -> Metrics:
        if self.design.edits:
            # Switch edits are measured from the plan (edited_fabric.py); the graph is built only
            # for edits that name endpoints, or when something else asks for it.
            measured = measure_edits(self.design, self.resolved, self.plan)
            if measured is not None:
                return assemble(self.design, self.resolved, self.plan, measured)
            return compute_metrics(self.design, self.resolved, self.plan, self.graph, self.build.edit_problems)
        return compute_metrics(self.design, self.resolved, self.plan, None)



_CACHE: ContentCache[Derived] = ContentCache(size=8)


def derive(design: FabricDesign, catalog: Catalog | None = None) -> Derived:
    """Resolve, size, build and measure `design`; raises SizingError or UnknownPartError."""
    catalog = catalog or default_catalog()

    def compute() -> Derived:
        bare = _without_networks(design, catalog)
        if bare is not None:
            return _like(design, bare)
        resolved = resolve(design, catalog)
        plan = plan_fabric(design, resolved)
        result = Derived(design, resolved, plan)
        _ = result.metrics  # computed now, so callers on other threads only ever read it
        return result

    return _CACHE.get_or_compute((design.content_key(), id(catalog)), compute)


def _without_networks(design: FabricDesign, catalog: Catalog) -> Derived | None:
    """The same design without its other networks, if already derived: sizing and measuring the
    compute fabric never read the other networks, so `new`, which sizes the fabric and then adds
    the storage and management networks, measures a million-GPU fabric once, not twice. Edited
    designs are derived afresh (their graph may hold the other networks' devices)."""
    if not design.networks or design.edits:
        return None
    return _CACHE.peek((replace(design, networks=()).content_key(), id(catalog)))


def _like(design: FabricDesign, like: Derived) -> Derived:
    """`design` with `like`'s parts, plan and metrics (derived against the same catalog)."""
    result = Derived(design, like.resolved, like.plan)
    result.__dict__["metrics"] = like.metrics   # the cached_property's slot, filled as derive fills it
    return result


def derive_as(design: FabricDesign, like: Derived, catalog: Catalog | None = None) -> Derived:
    """`design` derived as `like` (derived against the same catalog) was, where the two differ in
    their performance settings alone, which resolving, sizing and measuring never read: `like`'s
    parts, plan and metrics, without sizing and measuring the fabric again (a comparison's job
    and fleet assumptions, written into each design it compares). Any other difference derives
    `design` afresh."""
    catalog = catalog or default_catalog()
    if replace(design, performance=like.design.performance).content_key() != like.design.content_key():
        return derive(design, catalog)

    return _CACHE.get_or_compute((design.content_key(), id(catalog)), lambda: _like(design, like))


def plan_only(design: FabricDesign, catalog: Catalog | None = None) -> tuple[Resolved, Plan]:
    """Sizing without building the graph: cheap enough to call on every mouse move."""
    catalog = catalog or default_catalog()
    resolved = resolve(design, catalog)
    return resolved, plan_fabric(design, resolved)
