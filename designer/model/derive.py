"""One entry point from a design to everything derived from it, cached by content.

A design is immutable, so its content key fully determines the plan, the graph and the
metrics; the cache makes repeated reads (canvas, inspector, exporters) free.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from threading import Lock

import networkx as nx

from designer.catalog import Catalog, default_catalog
from designer.model.builders import build_graph
from designer.model.design import FabricDesign
from designer.model.metrics import Metrics, compute_metrics
from designer.model.sizing import Plan, Resolved, plan_fabric, resolve


@dataclass(frozen=True)
class Derived:
    design: FabricDesign
    resolved: Resolved
    plan: Plan
    graph: nx.MultiGraph
    metrics: Metrics


_CACHE: "OrderedDict[tuple[str, int], Derived]" = OrderedDict()
_CACHE_SIZE = 8
_LOCK = Lock()


def derive(design: FabricDesign, catalog: Catalog | None = None) -> Derived:
    """Resolve, size, build and measure `design`; raises SizingError or UnknownPartError."""
    catalog = catalog or default_catalog()
    key = (design.content_key(), id(catalog))
    with _LOCK:
        hit = _CACHE.get(key)
        if hit is not None:
            _CACHE.move_to_end(key)
            return hit
    resolved = resolve(design, catalog)
    plan = plan_fabric(design, resolved)
    build = build_graph(design, resolved, plan)
    metrics = compute_metrics(design, resolved, plan, build.graph, build.edit_problems)
    result = Derived(design, resolved, plan, build.graph, metrics)
    with _LOCK:
        _CACHE[key] = result
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return result


def plan_only(design: FabricDesign, catalog: Catalog | None = None) -> tuple[Resolved, Plan]:
    """Sizing without building the graph: cheap enough to call on every mouse move."""
    catalog = catalog or default_catalog()
    resolved = resolve(design, catalog)
    return resolved, plan_fabric(design, resolved)
