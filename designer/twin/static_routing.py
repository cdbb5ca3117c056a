"""InfiniBand with adaptive routing off, priced on the tables OpenSM really programs: the design
run on ibsim, routed by OpenSM, and the static-routing counterpart's load balance taken from the
traffic patterns loaded on those tables. `compare --static-routes opensm` and the window's Compare
(Add Counterpart > InfiniBand, Static Routing from OpenSM) both call `opensm_static_routing`, so
they show the same figures.
"""

from __future__ import annotations

import threading

from designer.catalog import Catalog
from designer.model.decisions.counterpart import Counterpart, static_routing_twin
from designer.model.intent.design import FabricDesign
from designer.model.performance.static_routes import static_routing_penalty
from designer.twin.infiniband import Progress, run_infiniband_twin
from designer.twin.processes import TwinError


def opensm_static_routing(design: FabricDesign, catalog: Catalog, cancel: threading.Event | None = None,
                          progress: Progress | None = None) -> Counterpart:
    """The static-routing counterpart of an InfiniBand `design`, its load balance from OpenSM's
    tables. Raises ValueError for a design that has no such counterpart (before anything
    starts), TwinError when the stack is missing or OpenSM does not route, TwinCancelled."""
    static_routing_twin(design, catalog)   # an Ethernet design is refused before anything starts
    result = run_infiniband_twin(design, catalog, cancel=cancel, progress=progress)
    if result.load is None:
        raise TwinError(f"OpenSM did not route '{design.meta.name}': {result.reason}")
    basis = (f"the worst of ring, tree and all-to-all on the tables OpenSM {result.routed_by} programmed for this "
             "design on ibsim, against the model's evenly spread load")
    return static_routing_twin(design, catalog, load_balance=static_routing_penalty(result.load), basis=basis)
