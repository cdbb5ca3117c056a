"""GPU memory and peak compute per GPU model, for the training-step view (resources/catalog/gpus.toml).

Keyed by the server catalog's `gpu` text. Kept apart from the part catalog: a GPU is not a part
a design picks, it comes with the server.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import lru_cache

from designer.catalog.loader import BUILTIN_DIR, CatalogError
from designer.limits import InputError, read_text

GPUS_FILE = BUILTIN_DIR / "gpus.toml"


@dataclass(frozen=True)
class GpuSpec:
    id: str                    # the server catalog's `gpu` text
    memory_GB: float           # HBM per GPU (10^9 bytes)
    bf16_dense_TFLOPS: float   # peak dense BF16 tensor throughput
    source: str
    estimate: bool = False
    fp8_dense_TFLOPS: float | None = None   # peak dense FP8 tensor throughput, where published

    @property
    def memory_bytes(self) -> float:
        return self.memory_GB * 1e9


@lru_cache(maxsize=1)
def gpu_specs() -> dict[str, GpuSpec]:
    try:
        data = tomllib.loads(read_text(GPUS_FILE, "GPU catalog file"))
    except (InputError, tomllib.TOMLDecodeError) as exc:
        raise CatalogError(f"{GPUS_FILE.name}: cannot read ({exc})") from None
    out = {}
    for i, row in enumerate(data.get("gpu", [])):
        where = f"{GPUS_FILE.name}: gpu '{row.get('id', f'#{i + 1}')}'"
        try:
            fp8 = row.get("fp8_dense_TFLOPS")
            spec = GpuSpec(str(row["id"]), float(row["memory_GB"]), float(row["bf16_dense_TFLOPS"]),
                           str(row.get("source", "")), bool(row.get("estimates")),
                           None if fp8 is None else float(fp8))
        except (KeyError, TypeError, ValueError) as exc:
            raise CatalogError(f"{where}: missing or bad field ({exc})") from None
        if spec.memory_GB <= 0 or spec.bf16_dense_TFLOPS <= 0:
            raise CatalogError(f"{where}: memory_GB and bf16_dense_TFLOPS must be positive")
        if spec.fp8_dense_TFLOPS is not None and spec.fp8_dense_TFLOPS <= 0:
            raise CatalogError(f"{where}: fp8_dense_TFLOPS must be positive")
        out[spec.id] = spec
    return out


def gpu_spec(gpu: str) -> GpuSpec | None:
    """The figures for a server's `gpu` text: exact match, else the longest id it contains."""
    specs = gpu_specs()
    if gpu in specs:
        return specs[gpu]
    inside = [s for key, s in specs.items() if key.lower() in gpu.lower()]
    return max(inside, key=lambda s: len(s.id)) if inside else None
