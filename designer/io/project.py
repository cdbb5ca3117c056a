"""Project files: versioned JSON, written atomically, validated on load.

A file carries `format: "fabric-designer"` and `format_version`. Loading never executes
anything from the file; every problem becomes one ProjectFileError naming the field path.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from designer.io.atomic import write_atomic
from designer.model.intent.design import FabricDesign
from designer.model.intent.serde import DesignValidationError, from_data, to_data

FORMAT = "fabric-designer"
FORMAT_VERSION = 1
MAX_FILE_BYTES = 64 * 1024 * 1024


class ProjectFileError(ValueError):
    """A project file cannot be read; the message is fit to show the user as it is."""


def design_to_json(design: FabricDesign) -> str:
    doc = {"format": FORMAT, "format_version": FORMAT_VERSION, "design": to_data(design)}
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def design_from_json(text: str, source: str = "<text>") -> FabricDesign:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        hint = " (the file looks truncated)" if exc.pos >= len(text.rstrip()) - 1 else ""
        raise ProjectFileError(f"{source}: not valid JSON at line {exc.lineno}, column {exc.colno}{hint}") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ProjectFileError(f"{source}: not a Fabric Designer project (missing \"format\": \"{FORMAT}\")")
    version = doc.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise ProjectFileError(f"{source}: format_version must be a whole number")
    if version > FORMAT_VERSION:
        raise ProjectFileError(
            f"{source}: written by a newer Fabric Designer (format {version}; this version reads up to "
            f"{FORMAT_VERSION}); update Fabric Designer to open it")
    if version < 1:
        raise ProjectFileError(f"{source}: unknown format_version {version}")
    try:
        return from_data(FabricDesign, doc.get("design"), "design")
    except DesignValidationError as exc:
        raise ProjectFileError(f"{source}: {exc}") from None
    except RecursionError:
        raise ProjectFileError(f"{source}: nested too deeply") from None


def load_design(path: str | os.PathLike) -> FabricDesign:
    p = Path(path)
    try:
        if p.stat().st_size > MAX_FILE_BYTES:
            raise ProjectFileError(f"{p}: larger than {MAX_FILE_BYTES // 2**20} MiB; not a project file")
        raw = p.read_bytes()
    except FileNotFoundError:
        raise ProjectFileError(f"{p}: no such file") from None
    except IsADirectoryError:
        raise ProjectFileError(f"{p}: is a folder, not a project file") from None
    except OSError as exc:
        raise ProjectFileError(f"{p}: cannot read ({exc.strerror})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ProjectFileError(f"{p}: not a text file (invalid UTF-8)") from None
    return design_from_json(text, str(p))


def save_design(design: FabricDesign, path: str | os.PathLike) -> None:
    """Write the design atomically; an existing file is replaced only once the new one is complete."""
    write_atomic(path, design_to_json(design))
