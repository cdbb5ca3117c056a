"""Slides: views of a design saved with it, for presenting it in a review.

A slide names what to show: the whole fabric (or a horizontal part of it), one scalable unit
(or pod), one plane, or a comparison with another design. Positions are fractions of the
fabric's width, so a slide keeps pointing at the same part of the drawing when the fabric
grows. Numbers of SUs and planes are 1-based, as the canvas labels them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from designer.model.intent.serde import DesignValidationError

SlideKind = Literal["fabric", "su", "plane", "comparison"]

# Default slides show at most this many SUs and planes: a review walks through every SU of a
# fabric up to eight, and above that the whole fabric slide says which SUs have none.
DEFAULT_SU_SLIDES = 8
DEFAULT_PLANE_SLIDES = 4


@dataclass(frozen=True)
class Slide:
    title: str = ""
    kind: SlideKind = "fabric"
    su: int | None = None          # "su": which SU or pod, 1-based
    plane: int | None = None       # "plane": which plane, 1-based
    left: float = 0.0              # "fabric": the part of the width shown, as fractions 0..1
    right: float = 1.0
    compare_with: str = ""         # "comparison": a technology id (a counterpart) or a project file

    def __post_init__(self) -> None:
        if self.su is not None and self.su < 1:
            raise DesignValidationError("su", f"must be 1 or more, got {self.su!r}")
        if self.plane is not None and self.plane < 1:
            raise DesignValidationError("plane", f"must be 1 or more, got {self.plane!r}")
        if not 0.0 <= self.left < self.right <= 1.0:
            raise DesignValidationError("left", f"need 0 <= left < right <= 1, got {self.left!r} and {self.right!r}")
        if self.kind == "su" and self.su is None:
            raise DesignValidationError("su", "an SU slide needs the SU number")
        if self.kind == "plane" and self.plane is None:
            raise DesignValidationError("plane", "a plane slide needs the plane number")

    @property
    def whole(self) -> bool:
        """True when the slide shows the full width of the fabric."""
        return self.left <= 0.0 and self.right >= 1.0


def block_noun(template: str, tiers: int, sus: int) -> str:
    """What a column of the drawing is called: 'SU' for rail-optimized, 'Pod' for three tiers."""
    if template == "rail-optimized" and (sus > 1 or tiers == 3):
        return "SU"
    return "Pod" if tiers == 3 else ""


def without_slide(noun: str, numbers: range) -> str:
    """'SUs 9–64', 'SU 9', '' : the SUs (or pods) of `numbers`, 1-based, named as one range."""
    if not numbers:
        return ""
    plural = {"SU": "SUs", "Pod": "Pods"}.get(noun, noun)
    first, last = numbers[0], numbers[-1]
    return f"{noun} {first}" if first == last else f"{plural} {first}–{last}"


def default_slides(template: str, tiers: int, blocks: int, sus: int, planes: int,
                   comparison: bool = False) -> tuple[Slide, ...]:
    """Slides offered when a design has none saved.

    The whole fabric; for a fabric drawn in several columns, every SU (or pod) up to eight, the
    whole fabric's title naming those left without a slide of their own; each
    of the first few planes of a multi-plane fabric; and the comparison when one is open.
    `blocks` is the number of columns (SUs or pods) of one plane.
    """
    noun = block_noun(template, tiers, sus)
    shown = min(blocks, DEFAULT_SU_SLIDES) if noun and blocks > 1 else 0
    left_out = without_slide(noun, range(shown + 1, blocks + 1)) if shown else ""
    verb = "has no slide of its own" if shown + 1 == blocks else "have no slide of their own"
    out = [Slide(f"Whole fabric ({left_out} {verb})" if left_out else "Whole fabric", "fabric")]
    out += [Slide(f"{noun} {k} of {blocks}", "su", su=k) for k in range(1, shown + 1)]
    if planes > 1:
        out += [Slide(f"Plane {p} of {planes}", "plane", plane=p)
                for p in range(1, min(planes, DEFAULT_PLANE_SLIDES) + 1)]
    if comparison:
        out.append(Slide("Comparison", "comparison"))
    return tuple(out)
