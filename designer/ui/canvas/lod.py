"""Level of detail: how much of a row to draw at the current zoom.

Rows are drawn as one box, as one box per block (pod, scalable unit, core group) or device
by device, depending on how many screen pixels a device or a block gets. The horizontal
scale decides (the view stretches x more than y on wide fabrics), so items read it from the
painter's world transform rather than from the uniform levelOfDetailFromTransform.
"""

from __future__ import annotations

from designer.ui.canvas.layout import Row

DEVICE_MIN_PX = 26.0    # a switch gets its own box from this many pixels
SERVER_MIN_PX = 12.0    # a server (drawn narrower, rarely labelled) from this many
LABEL_MIN_PX = 44.0     # ... and its own label from this many
BLOCK_MIN_PX = 54.0     # a block gets its own box from this many pixels

ROW, BLOCK, DEVICE = 0, 1, 2


def row_lod(row: Row, sx: float) -> int:
    if row.pitch * sx >= (SERVER_MIN_PX if row.tier == "servers" else DEVICE_MIN_PX):
        return DEVICE
    widths = [b.w for b in row.blocks]
    if len(row.blocks) > 1 and min(widths) * sx >= BLOCK_MIN_PX:
        return BLOCK
    return ROW
