"""Counterparts the window has built, kept while the program runs.

Sizing a counterpart prices every switch and rail layout of its technology: most of a second on
a 256-GPU design, seconds at 16K GPUs. The window asks for the same one again and again (Compare >
Add Counterpart, then File > Export > Report with it, a slide that compares with it, a second
Compare window), and a design and its counterpart are immutable data, so each is built once per
catalog and kept. Only what was built is kept: a refusal (SizingError, UnknownPartError) is
raised again on the next request, which costs what the first did.

Callable from any thread (the builds run off the UI thread); two threads that ask at once for the
same counterpart may both build it, and either result is the same.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict

from designer.catalog import Catalog
from designer.model.decisions.counterpart import Counterpart, make_counterpart
from designer.model.intent.design import FabricDesign

KEPT = 32   # a session compares a handful of designs on a handful of technologies

_LOCK = threading.Lock()
# (catalog's id, design, technology) -> (the catalog, weakly, and the counterpart). The weak
# reference tells a catalog that is gone from a new one given the same id; a catalog is mutable
# and unhashable, so it cannot be a key itself.
_BUILT: OrderedDict[tuple[int, FabricDesign, str], tuple[weakref.ref[Catalog], Counterpart]] = OrderedDict()


def counterpart(design: FabricDesign, technology: str, catalog: Catalog) -> Counterpart:
    """`make_counterpart(design, technology, catalog)` with the price book commands use, built
    once per catalog, design and technology (the KEPT most recently used are kept)."""
    key = (id(catalog), design, technology)
    with _LOCK:
        found = _BUILT.get(key)
        if found is not None and found[0]() is catalog:
            _BUILT.move_to_end(key)
            return found[1]
    made = make_counterpart(design, technology, catalog)
    with _LOCK:
        _BUILT[key] = (weakref.ref(catalog), made)
        _BUILT.move_to_end(key)
        while len(_BUILT) > KEPT:
            _BUILT.popitem(last=False)
    return made
