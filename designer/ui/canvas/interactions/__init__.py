"""Canvas gestures, one class each. The view asks them in turn whether a press starts theirs."""

from designer.ui.canvas.interactions.base import Interaction
from designer.ui.canvas.interactions.connect import ConnectInteraction
from designer.ui.canvas.interactions.drop import DropInteraction
from designer.ui.canvas.interactions.pan import PanInteraction
from designer.ui.canvas.interactions.resize_tier import ResizeTierInteraction
from designer.ui.canvas.interactions.rubber_band import RubberBandInteraction

# Asked in this order on each press: the first that accepts the press owns the gesture.
PRESS_INTERACTIONS = (PanInteraction, ResizeTierInteraction, ConnectInteraction, RubberBandInteraction)

__all__ = ["PRESS_INTERACTIONS", "ConnectInteraction", "DropInteraction", "Interaction", "PanInteraction",
           "ResizeTierInteraction", "RubberBandInteraction"]
