"""What the window tests share to stay quick: designs and counterparts made once per test process.

A design and its counterpart are immutable, so a test that only reads them may take the one made
for an earlier test. What a test compares the window against is built here with the model's own
functions, never through the window's caches (`designer.ui.services.counterparts`), so that a
wrong answer from those still fails.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from designer.catalog import default_catalog
from designer.io.project import load_design
from designer.model.decisions.counterpart import Counterpart, make_counterpart
from designer.model.intent.design import FabricDesign

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@cache
def example(name: str) -> FabricDesign:
    """The example design `examples/<name>`, read once."""
    return load_design(EXAMPLES / name)


@cache
def _counterpart(design: FabricDesign, technology: str) -> Counterpart:
    return make_counterpart(design, technology, default_catalog())


def counterpart(design: FabricDesign, technology: str, catalog=None) -> Counterpart:
    """`make_counterpart` on the default catalog, made once per design and technology."""
    if catalog is not None and catalog is not default_catalog():
        return make_counterpart(design, technology, catalog)
    return _counterpart(design, technology)
