"""The report's comparison: the table of rows on the left, the recommendation on the right.

Nothing on it is cut: the table's rows and the recommendation's lines are measured first and
flow onto continuation pages ("Comparison (continued)") as they need, a group heading stays
with its rows, long metric names and URLs wrap. `comparison_pages` lays the pages out and
returns one drawing function per page; the report numbers them before it draws any.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor

from designer.model.common.units import figure_text
from designer.ui.export import page
from designer.ui.export.facts import money, money_exact
from designer.ui.export.ink import Ink
from designer.ui.export.page import CENTER, RIGHT, Column

TOP_LEFT = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop
TABLE_PT = 7.5
Draw = Callable[[Ink, QRectF], None]


def _delta(value: float | None, digits: int = 1, unit: str = "%") -> str:
    """A change against the baseline: in %, or in percentage points on a row of shares."""
    if value is None:
        return "—"
    return f"{value:+.{digits}f} pt" if unit == "pt" else f"{value:+.{digits}f}%"


def _value(v: float | None, unit: str) -> str:
    if v is None:
        return "—"
    if unit == "USD":
        if abs(v) < 100:      # cents matter in a cost per step or per million tokens ($0.45, not $0)
            return f"${v:,.2f}"
        return money_exact(v) if abs(v) < 100_000 else money(v, "USD", 2 if abs(v) >= 1e6 else 0)
    return figure_text(v, unit)


@dataclass(frozen=True)
class _Item:
    """One paragraph of the recommendation, wrapped into lines (`text` is what they came from)."""

    text: str
    lines: tuple[str, ...]
    size: float
    color: QColor
    bold: bool = False
    bullet: bool = False
    gap_before: float = 0.0     # points
    gap_after: float = 0.0


@dataclass(frozen=True)
class _Piece:
    """The lines of an item that one page holds."""

    item: _Item
    first: int                  # index of its first line in the item
    end: int


def _table(c: Any) -> tuple[list[Column], list[tuple[str, ...]], list[str]]:
    many = len(c.names) > 3
    cols = [Column("Metric", 2.1, wrap=True), Column("Unit", 0.55, CENTER)] + \
           [Column(f"[{i + 1}]", 1.0, RIGHT) for i in range(len(c.names))] + \
           [Column(f"Δ[{i + 2}]" if many else f"[{i + 2}] vs [1]", 0.8 if many else 0.9, RIGHT)
            for i in range(len(c.names) - 1)]
    rows: list[tuple[str, ...]] = []
    styles: list[str] = []
    group = None
    for r in c.rows:
        if r.group != group:
            group = r.group
            rows.append((group,))
            styles.append("group")
        unit = {"us": "µs"}.get(r.unit, r.unit)
        # Four or five designs take whole-number deltas, so each fits its narrower column.
        rows.append((r.label, unit, *[_value(v, r.unit) for v in r.values],
                     *[_delta(d, 0 if many else 1, r.delta_unit) for d in r.deltas[1:]]))
        styles.append("")
    return cols, rows, styles


def _items(ink: Ink, c: Any) -> list[_Item]:
    """The recommendation's paragraphs in reading order, not yet wrapped (`_wrap`)."""
    t = ink.theme
    out = [_Item(c.recommendation.verdict, (), 9.5, t.text, bold=True, gap_after=6)]
    # The sources of the rows a co-packaged-optics switch changes (transceivers, power, failures).
    out += [_Item(f"Source of {line}", (), 7, t.muted, gap_after=2) for line in c.sources]
    flips = [f"Flips: {f.line()}" for f in c.recommendation.flips]
    out += [_Item(r, (), 8, t.text, bullet=True, gap_after=3) for r in flips + list(c.recommendation.reasons)]
    s = c.settings
    notes = [f"Assumptions: {s.years} years, {s.energy_usd_per_kwh:g} USD/kWh, PUE {s.pue:g}; {s.job_text}. "
             "Prices are illustrative."]
    notes += [f"Warning: {w}" for w in c.warnings]
    out += [_Item(n, (), 8, t.warning if n.startswith("Warning") else t.muted, gap_before=4, gap_after=2)
            for n in notes]
    return out


def _wrap(ink: Ink, it: _Item, width: float) -> _Item:
    indent = ink.pt(8) if it.bullet else 0.0
    return replace(it, lines=tuple(ink.wrap_lines(it.text, width - indent, it.size, it.bold)))


def _flow(ink: Ink, items: list[_Item], rooms: list[float], width: float,
          limit: int | None = None) -> tuple[list[list[_Piece]], list[_Item]]:
    """Items wrapped to `width` over columns of `rooms` device units (the last repeats): an item
    that fits a fresh column moves whole to the next; one longer than a column is split between
    lines. With `limit`, stops after that many columns and returns what is left, unwrapped."""
    pages: list[list[_Piece]] = [[]]

    def room() -> float:
        return rooms[min(len(pages) - 1, len(rooms) - 1)]

    left = room()
    for k, raw in enumerate(items):
        it = _wrap(ink, raw, width)
        step = ink.metrics(it.size, it.bold).lineSpacing()
        need = ink.pt(it.gap_before) + step * len(it.lines)
        start = 0
        while start < len(it.lines):
            fits = int((left - ink.pt(it.gap_before) + 0.5) // step)
            whole = need <= rooms[-1] + 0.5 and start == 0 and fits < len(it.lines) and pages[-1]
            if fits <= 0 or whole:
                if limit is not None and len(pages) == limit:
                    rest = " ".join(it.lines[start:]) if start else raw.text
                    return pages, [replace(raw, text=rest)] + items[k + 1:]
                pages.append([])
                left = room()
                continue
            end = min(len(it.lines), start + fits)
            pages[-1].append(_Piece(it, start, end))
            left -= ink.pt(it.gap_before) + step * (end - start)
            start = end
        left -= ink.pt(it.gap_after)
    return pages, []


def _draw_pieces(ink: Ink, rect: QRectF, pieces: list[_Piece]) -> None:
    y = rect.top()
    for p in pieces:
        it = p.item
        y += ink.pt(it.gap_before)
        step = ink.metrics(it.size, it.bold).lineSpacing()
        h = ink.line_height(it.size, it.bold)
        indent = ink.pt(8) if it.bullet else 0.0
        if it.bullet and p.first == 0:
            ink.text(QRectF(rect.left(), y, indent, h), "•", it.size, ink.theme.muted, align=TOP_LEFT)
        for line in it.lines[p.first:p.end]:
            ink.text(QRectF(rect.left() + indent, y, rect.width() - indent, h), line, it.size, it.color,
                     bold=it.bold, align=TOP_LEFT, elide=True)
            y += step
        y += ink.pt(it.gap_after)


def _columns(ink: Ink, rect: QRectF, c: Any) -> tuple[QRectF, QRectF]:
    gap = ink.pt(18)
    split = 0.7 if len(c.names) > 3 else 0.6
    w = rect.width() - gap
    left = QRectF(rect.left(), rect.top(), w * split, rect.height())
    return left, QRectF(left.right() + gap, rect.top(), w * (1 - split), rect.height())


def comparison_pages(ink: Ink, rect: QRectF, c: Any) -> list[Draw]:
    """The comparison laid out on as many pages as it needs; one drawing function per page."""
    title_h = ink.line_height(15, True) + ink.pt(10)
    body = QRectF(rect.left(), rect.top() + title_h, rect.width(), rect.height() - title_h)
    left, right = _columns(ink, body, c)
    names = [f"[{i + 1}] {n} ({tech})" for i, (n, tech) in enumerate(zip(c.names, c.technologies, strict=True))]
    legend_h = sum(ink.paragraph_height(left.width(), n, 8.5) for n in names) + ink.pt(6)
    cols, rows, styles = _table(c)
    chunks = page.table_pages(ink, left.width(), [left.height() - legend_h, left.height()], cols, rows, TABLE_PT,
                              styles)
    sub_h = ink.line_height(10.5, True) + ink.pt(4)
    # The recommendation takes the right column beside the table, then the page's whole width.
    beside, rest = _flow(ink, _items(ink, c), [right.height() - sub_h], right.width(), len(chunks))
    after, _ = _flow(ink, rest, [body.height() - sub_h], body.width()) if rest else ([], [])
    flowed = beside + after
    count = max(len(chunks), len(flowed))

    def draw(number: int, ink: Ink, rect: QRectF) -> None:
        t = ink.theme
        title = "Comparison" if number == 0 else "Comparison (continued)"
        y = rect.top() + page.section_title(ink, rect, title, "deltas against the first design")
        body = QRectF(rect.left(), y, rect.width(), rect.bottom() - y)
        left, right = _columns(ink, body, c)
        yy = left.top()
        if number == 0:
            for name in names:
                yy += ink.paragraph(QRectF(left.left(), yy, left.width(), left.bottom() - yy), name, 8.5, t.text)
            yy += ink.pt(6)
        if number < len(chunks):
            first, end = chunks[number]
            page.table(ink, QRectF(left.left(), yy, left.width(), left.bottom() - yy), cols, rows[first:end],
                       TABLE_PT, styles[first:end])
        if number < len(flowed) and flowed[number]:
            box = right if number < len(chunks) else body
            head = ["Recommendation (heuristic)"] if number == 0 else \
                ["Recommendation (heuristic, continued)", "Recommendation (continued)"]
            ink.text(QRectF(box.left(), box.top(), box.width(), ink.line_height(10.5, True)), head, 10.5,
                     t.text, bold=True, align=page.LEFT)
            _draw_pieces(ink, QRectF(box.left(), box.top() + sub_h, box.width(), box.height() - sub_h),
                         flowed[number])

    return [partial(draw, k) for k in range(count)]
