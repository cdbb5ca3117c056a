"""The build-out a design is meant for: its target size and its deployment phases.

Phase sizes count scalable units for a rail-optimized fabric and GPUs otherwise, as
`fabric-designer grow --phases` reads them. An empty plan (no target) stores nothing: the
grow command and the Phases panel then use their own defaults. Whether each phase fits the
target in its unit (SUs need the server model's GPU count) is checked when the plan is grown.
"""

from __future__ import annotations

from dataclasses import dataclass

from designer.limits import quote
from designer.model.intent.serde import DesignValidationError

# Far above any cluster built today, like the design's other ranges (design.py): a target of
# the most servers a design holds, each with the most GPUs a server holds.
MAX_TARGET_GPUS = 2**30
MAX_PHASES = 64          # phases of one build-out


@dataclass(frozen=True)
class GrowthPlan:
    target_gpus: int | None = None     # GPUs at the end of the build-out; None: no plan stored
    phases: tuple[int, ...] = ()       # increasing phase sizes (SUs or GPUs); (): size doubling

    def __post_init__(self) -> None:
        t = self.target_gpus
        if t is not None and not 1 <= t <= MAX_TARGET_GPUS:
            raise DesignValidationError("target_gpus", f"must be between 1 and {MAX_TARGET_GPUS:,}, got {quote(t)}")
        if len(self.phases) > MAX_PHASES:
            raise DesignValidationError("phases", f"{len(self.phases):,} phases; at most {MAX_PHASES}")
        for i, value in enumerate(self.phases):
            if not 1 <= value <= MAX_TARGET_GPUS:
                raise DesignValidationError("phases", f"phase {i + 1} must be between 1 and "
                                                      f"{MAX_TARGET_GPUS:,}, got {quote(value)}")
            if i and value <= self.phases[i - 1]:
                raise DesignValidationError("phases", f"phases must increase, got {self.phases[i - 1]} "
                                                      f"then {value}")
        if self.phases and t is None:
            raise DesignValidationError("phases", "phases need a target size (target_gpus)")

    @property
    def stored(self) -> bool:
        return self.target_gpus is not None

    def phases_text(self) -> str:
        return ",".join(str(v) for v in self.phases)
