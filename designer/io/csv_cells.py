"""What every CSV this tool writes shares: spreadsheet-safe cells, CRLF rows, UTF-8 with a BOM.

UTF-8 with a byte-order mark lets Excel detect the encoding; LibreOffice and Python's csv module
(encoding="utf-8-sig") read it too.
"""

from __future__ import annotations

import csv
import io
import re

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
ENCODING = "utf-8-sig"


def safe_cell(value: object) -> str:
    """Text as a spreadsheet will show it, never as a formula (OWASP CSV-injection advice)."""
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(_FORMULA_START) else text


_PLAIN_NUMBER = re.compile(r"^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$")


def rows_to_csv(rows: list[list[str]]) -> str:
    """Rows as CSV text. Every text cell passes safe_cell here, so an exporter that forgets it
    (or one added later) still writes no formula; a plain number such as -3.5 stays a number."""
    rows = [[cell if isinstance(cell, (int, float)) or _PLAIN_NUMBER.match(str(cell)) else safe_cell(cell)
             for cell in row] for row in rows]
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, dialect="excel", lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerows(rows)
    return buffer.getvalue()


def csv_field(text: str) -> str:
    """One text cell as `rows_to_csv` writes it in a row of several (a plain number as it is,
    other text spreadsheet-safe, quoted only where csv's minimal quoting would), for writers
    that stream rows without the csv module."""
    if text.startswith(_FORMULA_START) and not _PLAIN_NUMBER.match(text):
        text = "'" + text
    return _quoted(text)


def safe_field(text: str) -> str:
    """`csv_field(safe_cell(text))`: a cell the writer made safe before `rows_to_csv` saw it
    (so a number such as -3 is shown as text, as it was)."""
    if text.startswith(_FORMULA_START):
        text = "'" + text
    return _quoted(text)


def _quoted(text: str) -> str:
    if "," in text or '"' in text or "\r" in text or "\n" in text:
        return '"' + text.replace('"', '""') + '"'
    return text
