"""Per-design settings of the collective-performance estimate."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PerformanceSettings:
    message_size_bytes: int = 1 << 30
