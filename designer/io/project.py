"""Project files: versioned JSON, written atomically, validated on load.

A file carries `format: "fabric-designer"` and `format_version`. Loading never executes
anything from the file; every problem becomes one ProjectFileError (an InputError) naming the
file and the field path. The bounds on size, nesting, numbers and text are in designer.limits.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from designer.io.atomic import write_atomic
from designer.limits import MAX_FILE_BYTES, InputError, decode_text, load_json, quote, read_capped, read_text
from designer.model.intent.design import FabricDesign
from designer.model.intent.serde import DesignValidationError, from_data, to_data

FORMAT = "fabric-designer"
FORMAT_VERSION = 1


class ProjectFileError(InputError):
    """A project file cannot be read; the message is fit to show the user as it is."""


def design_to_json(design: FabricDesign) -> str:
    doc = {"format": FORMAT, "format_version": FORMAT_VERSION, "design": to_data(design)}
    # allow_nan=False: a design never holds NaN or Infinity, and JSON has no token for them.
    return json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def design_from_json(text: str, source: str = "<text>") -> FabricDesign:
    try:
        doc = load_json(text, source)
    except InputError as exc:
        raise ProjectFileError(exc.reason, exc.source, exc.field) from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ProjectFileError(f"not a Fabric Designer project (missing \"format\": \"{FORMAT}\")", source)
    version = doc.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise ProjectFileError(f"must be a whole number, got {quote(version)}", source, "format_version")
    if version > FORMAT_VERSION:
        raise ProjectFileError(
            f"written by a newer Fabric Designer (format {quote(version)}; this version reads up to "
            f"{FORMAT_VERSION}); update Fabric Designer to open it", source, "format_version")
    if version < 1:
        raise ProjectFileError(f"unknown format_version {version}", source, "format_version")
    try:
        return from_data(FabricDesign, doc.get("design"), "design")
    except DesignValidationError as exc:
        raise ProjectFileError(exc.message, source, exc.path) from None
    except RecursionError:
        raise ProjectFileError("nested too deeply", source) from None


def load_design(path: str | os.PathLike[str]) -> FabricDesign:
    p = Path(path)
    try:
        text = read_text(p, "project file", MAX_FILE_BYTES)
    except InputError as exc:
        raise ProjectFileError(exc.reason, exc.source, exc.field) from None
    return design_from_json(text, str(p))


def is_project_file(path: str | os.PathLike[str]) -> bool:
    """True when `path` holds something this tool wrote (a project, readable or not by this version)."""
    try:
        head = read_capped(path, MAX_FILE_BYTES)
        doc = load_json(decode_text(head, str(path)), str(path))
    except InputError:
        return False
    return isinstance(doc, dict) and doc.get("format") == FORMAT


def save_design(design: FabricDesign, path: str | os.PathLike[str]) -> None:
    """Write the design atomically; an existing file is replaced only once the new one is complete."""
    text = design_to_json(design)
    try:
        payload = text.encode("utf-8")
    except UnicodeEncodeError as exc:  # a lone surrogate from somewhere: refuse before writing
        raise ProjectFileError(f"holds a character that cannot be saved as UTF-8 (at {exc.start})",
                               str(path)) from None
    write_atomic(path, payload)
