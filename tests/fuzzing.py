"""The fuzz harness: run one hostile input through a loader or the command line and judge the end.

An end is clean when the input either works (and what it produced is sane: finite, non-negative
counts) or is refused with exactly one InputError-style line that names the file (or option).
Anything else is a defect: a traceback, an internal error (exit 3), a message naming nothing,
or a case that takes longer than the stated bound.

`TALLY` counts the cases of a run; `FUZZ_TALLY=path` makes the fuzz tests write it as JSON.
"""

from __future__ import annotations

import io
import math
import time
from collections import Counter
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from designer.catalog import load_catalog
from designer.catalog.loader import BUILTIN_DIR
from designer.cli.main import main
from designer.io.project import design_from_json
from designer.limits import InputError, decode_text
from designer.model.physical.prices import parse_price_book

# The target is one second; the bound is the process's CPU time, not wall time, so that another
# user of the machine cannot fail a case (TALLY's max_ms is the wall time, for the benchmarks).
SECONDS = 5.0
TALLY: Counter = Counter()


class Defect(AssertionError):
    pass


def _start() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def _judge(kind: str, started: tuple[float, float]) -> None:
    wall, cpu = time.perf_counter() - started[0], time.process_time() - started[1]
    TALLY["max_ms"] = max(TALLY["max_ms"], round(wall * 1000))
    if cpu > SECONDS:
        TALLY["defects"] += 1
        raise Defect(f"{kind}: took {cpu:.1f} s of CPU")


def _refused(kind: str, exc: Exception, name: str) -> None:
    message = str(exc)
    if "\n" in message.strip() or name not in message or len(message) > 600:
        TALLY["defects"] += 1
        raise Defect(f"{kind}: unclear refusal {message[:200]!r}")
    TALLY["refused"] += 1


def _sane_design(design) -> None:
    c, f = design.cluster, design.fabric
    for value in (c.servers, f.planes, f.nodes_per_su, f.leaf.oversubscription, f.spine.oversubscription):
        if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
            TALLY["defects"] += 1
            raise Defect(f"loaded a design with {value!r}")


def project_bytes(raw: bytes, name: str = "fuzz.json") -> None:
    """A project file's bytes through the loader the commands and the window use."""
    TALLY["tried"] += 1
    started = _start()
    try:
        design = design_from_json(decode_text(raw, name), name)
    except InputError as exc:
        _refused("project", exc, name)
    except Exception as exc:  # noqa: BLE001 - any other exception is what the fuzzing looks for
        TALLY["defects"] += 1
        raise Defect(f"project: {type(exc).__name__}: {exc!s:.200}") from exc
    else:
        TALLY["loaded"] += 1
        _sane_design(design)
        _sized(design)
    _judge("project", started)


def _sized(design) -> None:
    """Sizing (with its ceilings) must refuse cleanly or give a plan: never crash or grind."""
    from designer.catalog import UnknownPartError
    from designer.model.topology.derive import plan_only

    try:
        plan_only(design)
    except (InputError, UnknownPartError, ValueError):
        pass  # SizingError and FabricTooLargeError are ValueErrors with a message
    except Exception as exc:  # noqa: BLE001
        TALLY["defects"] += 1
        raise Defect(f"sizing: {type(exc).__name__}: {exc!s:.200}") from exc


def catalog_text(text: str | bytes, folder: Path) -> None:
    """One user catalog file (TOML) over the built-in catalog."""
    TALLY["tried"] += 1
    user = folder / "catalog"
    user.mkdir(exist_ok=True)
    path = user / "fuzz.toml"
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass"))
    started = _start()
    try:
        load_catalog(BUILTIN_DIR, user)
    except InputError as exc:
        _refused("catalog", exc, "fuzz.toml")
    except Exception as exc:  # noqa: BLE001
        TALLY["defects"] += 1
        raise Defect(f"catalog: {type(exc).__name__}: {exc!s:.200}") from exc
    else:
        TALLY["loaded"] += 1
    _judge("catalog", started)


def price_text(text: str) -> None:
    TALLY["tried"] += 1
    started = _start()
    try:
        parse_price_book(text, "fuzz-prices.toml")
    except InputError as exc:
        _refused("prices", exc, "fuzz-prices.toml")
    except Exception as exc:  # noqa: BLE001
        TALLY["defects"] += 1
        raise Defect(f"prices: {type(exc).__name__}: {exc!s:.200}") from exc
    else:
        TALLY["loaded"] += 1
    _judge("prices", started)


def command(argv: list[str], option: str) -> None:
    """A command line; refusals must be one line naming the option, never exit 3."""
    TALLY["tried"] += 1
    out, err = io.StringIO(), io.StringIO()
    started = _start()
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = main(argv)
    except SystemExit as exc:
        code = exc.code
    lines = err.getvalue().strip().splitlines()
    if code == 3 or "Traceback" in err.getvalue() or "internal error" in err.getvalue():
        TALLY["defects"] += 1
        raise Defect(f"{' '.join(argv)[:200]}: {err.getvalue()[:300]}")
    if code == 2:
        if len(lines) != 1 or option.lstrip("-") not in lines[0]:
            TALLY["defects"] += 1
            raise Defect(f"{option}: unclear refusal {err.getvalue()[:300]!r}")
        TALLY["refused"] += 1
    elif code == 1 and not lines and not out.getvalue():
        TALLY["defects"] += 1
        raise Defect(f"{option}: exit 1 with no message")
    else:
        TALLY["refused" if code else "loaded"] += 1
        if "NaN" in out.getvalue() or "Infinity" in out.getvalue():
            TALLY["defects"] += 1
            raise Defect(f"{option}: output holds NaN or Infinity")
    _judge(option, started)
