"""Fabric captures: pick the reader by content (ibnetdiscover, LLDP JSON, LLDP CSV)."""

from __future__ import annotations

import dataclasses
import gc
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from designer.catalog import Catalog
from designer.io.guid_names import beside, name_hosts, read_guid_names
from designer.io.ibnetdiscover import (
    CaptureError,
    looks_like_ibnetdiscover,
    padded_for_bulk,
    parse_ibnetdiscover,
    read_padded,
)
from designer.io.ibnetdiscover_ports import PAD
from designer.io.lldp import looks_like_lldp_csv, looks_like_lldp_json, parse_lldp_csv, parse_lldp_json
from designer.io.markup import one_line
from designer.limits import InputError, read_capped
from designer.model.decisions.audit import AuditReport
from designer.model.decisions.audit_answer import CaptureAnswer, capture_answer
from designer.model.intent.design import MAX_EDITS, FabricDesign
from designer.model.topology.asbuilt import AsBuilt, link_ends
from designer.model.topology.inference import Inference, Inferred

# A 131,072-GPU ibnetdiscover dump is about 90 MB and an LLDP JSON of the same fabric a few
# times that per switch report: 256 MiB holds the largest fabric anyone captures, and refuses
# /dev/zero or a runaway file after reading at most that much.
MAX_BYTES = 256 * 2**20

__all__ = ["CaptureError", "load_capture", "parse_capture", "import_capture", "read_answer", "as_built_design"]


def parse_capture(text: str, source: str = "<text>", *, bulk: bool = True) -> AsBuilt:
    """The capture in `text`, by its format; `bulk=False` when the bulk ibnetdiscover reader
    has already refused its bytes (`load_capture`)."""
    if "\x00" in text[:65536]:
        raise CaptureError(f"{source}: binary data, not a fabric capture")
    if looks_like_ibnetdiscover(text):
        return drop_dangling_links(parse_ibnetdiscover(text, source, bulk=bulk))
    if looks_like_lldp_json(text):
        return drop_dangling_links(parse_lldp_json(text, source))
    if looks_like_lldp_csv(text):
        return drop_dangling_links(parse_lldp_csv(text, source))
    if text.lstrip().startswith("{") and '"format"' in text[:200]:
        raise CaptureError(f"{source}: a project file, not a fabric capture (use --against for designs)")
    raise CaptureError(f"{source}: not a fabric capture: expected ibnetdiscover output, "
                       "lldpctl -f json, Cumulus 'net show lldp json' or an LLDP CSV")


def drop_dangling_links(fabric: AsBuilt) -> AsBuilt:
    """The capture without links to a device it does not describe, the drop stated in its notes.

    A port line naming a peer that has no block of its own (a hand-edited or damaged dump) says
    nothing about what is cabled there; every reader ends here, so inference and audit only ever
    see links between devices the capture describes.
    """
    if link_ends(fabric) is not None:
        return fabric       # every end described: the arrays of the ends, which the passes read next
    kept = [link for link in fabric.links if link.a in fabric.devices and link.b in fabric.devices]
    dropped = len(fabric.links) - len(kept)
    if dropped:
        absent = sorted({end for link in fabric.links for end in (link.a, link.b) if end not in fabric.devices})
        fabric.set_links(kept)
        fabric.notes.append(f"{dropped:,} link(s) to {len(absent):,} device(s) the capture does not describe "
                            f"were left out (first {one_line(absent[0], 80)})")
    return fabric


def load_capture(path: str | os.PathLike[str]) -> AsBuilt:
    """Read a capture through the one capped reader: a regular file of at most MAX_BYTES."""
    p = Path(path)
    try:
        raw = read_capped(p, MAX_BYTES, "fabric capture")
    except InputError as exc:
        raise CaptureError(str(exc)) from None
    if b"\x00" in raw[:65536]:
        raise CaptureError(f"{p}: binary data, not a fabric capture")
    # A dump as ibnetdiscover prints it is read on its bytes, its text never decoded whole (90 MB
    # at 131,072 GPUs); any other capture, or a dump with lines of its own, is read as text.
    padded = padded_for_bulk(raw)
    tried = padded is not None
    if padded is not None:
        del raw              # held once, not twice, while it is read (90 MB at 131,072 GPUs)
        fabric = read_padded(padded, str(p))
        if fabric is not None:
            return drop_dangling_links(fabric)
        raw = padded[:-PAD]
        del padded
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise CaptureError(f"{p}: not a text file (invalid UTF-8)") from None
    del raw                  # the file's bytes are not read again: 90 MB at 131,072 GPUs
    return parse_capture(text, str(p), bulk=not tried)


def read_answer(path: str | os.PathLike[str], against: FabricDesign | None = None,
                corrections: dict[str, str] | None = None, catalog: Catalog | None = None,
                names: str | os.PathLike[str] | None = None) -> CaptureAnswer:
    """The one answer of a capture file (model/decisions/audit_answer.py): what the window's
    Import and Audit Against and the CLI's `import` and `audit` all show.

    `names` is a GUID name map (io/guid_names.py) for HCAs with default descriptions; without
    one, the map a site keeps beside the capture (same name, `.map`) is read when there is one.
    """
    with _no_cyclic_collection():
        fabric = load_capture(path)
        map_path = Path(names) if names is not None else beside(path)
        named = name_hosts(fabric, read_guid_names(map_path)) if map_path is not None else 0
        answer = capture_answer(fabric, against, corrections, catalog, name=f"As built: {Path(path).name}")
    if map_path is not None:
        fact = Inferred("host names", f"{named:,} from {map_path.name}", "high",
                        "HCAs with default descriptions named by their GUID from the site's map")
        answer.inference.facts.insert(0, fact)
        answer.report.inferred["facts"].insert(0, dataclasses.asdict(fact))
    return answer


@contextmanager
def _no_cyclic_collection() -> Iterator[None]:
    """Automatic cyclic garbage collection off while a capture is read and audited, as it was
    before. A 131,072-GPU capture makes millions of objects, none in a cycle, and Python would
    walk them all again and again (a tenth of the time); reference counting still frees them.
    Where collection is already off (the window collects on its UI thread), nothing changes."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def import_capture(path: str | os.PathLike[str], catalog: Catalog | None = None,
                   corrections: dict[str, str] | None = None) -> tuple[FabricDesign, Inference, AuditReport]:
    """(as-built design, inference, audit report) of a capture file.

    The design is the inferred one plus the capture's differences as edits, so its graph is the
    fabric as built. Raises CaptureError when no design can be inferred.
    """
    answer = read_answer(path, None, corrections, catalog)
    return as_built_design(answer, path), answer.inference, answer.report


def as_built_design(answer: CaptureAnswer, path: str | os.PathLike[str]) -> FabricDesign:
    """The answer's fabric as built as a design; CaptureError (one line) when there is none."""
    inference, report = answer.inference, answer.report
    if inference.design is None:
        raise CaptureError(f"{path}: {inference.problems[0] if inference.problems else 'no design fits'}")
    design = answer.as_built()
    if design is None or len(design.edits) > MAX_EDITS:
        raise CaptureError(f"{path}: the capture differs from the closest design in {len(report.edits):,} places; "
                           f"a project holds at most {MAX_EDITS:,} edits (use 'audit' to list them)")
    return design
