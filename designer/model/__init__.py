"""The fabric model, pure Python: nothing here imports Qt, the window or the file formats.

Its subpackages follow the data flow, and imports run one way, down this list (a test
enforces it): a subpackage may import the ones above it, never one below.

- common: the content cache and unit labels, used by every stage.
- intent: what the user asked for (the design, its floor plan, slides and performance settings).
- topology: sizing, the built graph, edits and the metrics derived from it.
- physical: racks and positions, cables and optics, the bill of materials and prices.
- performance: collective estimates and the training step.
- decisions: comparisons, counterparts and the advice that weighs them.

Every stage may import designer.catalog (hardware facts); none imports designer.io,
designer.ui or designer.cli.
"""
