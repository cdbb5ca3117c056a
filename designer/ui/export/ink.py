"""Drawing in points on any paint device: a PDF page, an SVG, a PNG at some DPI, a screen.

Everything exported is laid out in points (1/72 inch) and converted to the device's units
here, with fonts sized in points against the device itself. No world transform scales the
drawing, so text is laid out at the device's real resolution (crisp and evenly spaced in a
PDF at 1200 dpi and in a PNG at 300 dpi alike) and vector output stays vector.

Every label goes through `text`, which draws it only if it fits its box (trying shorter
forms first) and records where it landed, so callers and tests can check that no two
labels overlap.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPalette, QPen

from designer.limits import printable
from designer.ui.theme import Theme

# Colours of printed pages and of presentation mode: a light theme whatever the desktop uses.
PAPER = "#ffffff"
INK = "#1d2530"
PANEL = "#f3f5f8"
HIGHLIGHT = "#2f6fd1"


def paper_theme() -> Theme:
    """The light theme used on paper, in exported images and in presentation mode."""
    palette = QPalette()
    for role, color in ((QPalette.ColorRole.Base, PAPER), (QPalette.ColorRole.Window, PANEL),
                        (QPalette.ColorRole.Text, INK), (QPalette.ColorRole.WindowText, INK),
                        (QPalette.ColorRole.Highlight, HIGHLIGHT)):
        palette.setColor(role, QColor(color))
    return Theme(palette)


class Ink:
    """A QPainter with sizes in points.

    `units_per_point` defaults to the device's resolution (so a point is a real point on
    paper); a presentation passes its own, to scale a fixed-size slide to the screen. `like`: an
    Ink on the same painter (an earlier page of the document) whose fonts, metrics, measured
    widths and theme this one reuses.
    """

    def __init__(self, painter: QPainter, units_per_point: float | None = None, theme: Theme | None = None,
                 like: Ink | None = None):
        self.painter = painter
        device = painter.device()
        self.device_points = device.logicalDpiY() / 72.0        # device units per point of a font
        self.u = units_per_point or device.logicalDpiX() / 72.0
        self.font_scale = self.u / self.device_points
        self.texts: list[tuple[QRectF, str]] = []
        # Text shortened to fit, as (what was asked, what was drawn): what a reader lost.
        self.elided: list[tuple[str, str]] = []
        # Fonts and text widths by what they depend on: a page measures the same strings several
        # times (fitting a label, then placing it; a paragraph measured, then drawn).
        self._metrics: dict[tuple[float, bool, bool], QFontMetricsF]
        self._fonts: dict[tuple[float, bool, bool], QFont]
        self._widths: dict[tuple[float, bool, bool, str], float]
        self.theme: Theme
        same_units = like is not None and (like.u, like.device_points) == (self.u, self.device_points)
        if like is not None and like.painter is painter and same_units:
            # The next page of the same document: the fonts, their metrics and the widths measured
            # on the pages before hold here too (same painter, same units), and so does the theme.
            self.theme = theme or like.theme
            self._metrics, self._fonts, self._widths = like._metrics, like._fonts, like._widths
        else:
            self.theme = theme or paper_theme()
            self._metrics, self._fonts, self._widths = {}, {}, {}

    # --- units ------------------------------------------------------------------------------

    def pt(self, value: float) -> float:
        """Device units for `value` points."""
        return value * self.u

    def rect(self, x: float, y: float, w: float, h: float) -> QRectF:
        """A rectangle given in points, in device units."""
        return QRectF(x * self.u, y * self.u, w * self.u, h * self.u)

    # --- fonts and text ------------------------------------------------------------------------

    def font(self, size: float, bold: bool = False, italic: bool = False) -> QFont:
        key = (size, bold, italic)
        font = self._fonts.get(key)
        if font is None:
            font = self._fonts[key] = self._new_font(size, bold, italic)
        return QFont(font)   # a copy (implicitly shared): the caller may change it

    def _new_font(self, size: float, bold: bool, italic: bool) -> QFont:
        font = QFont()
        font.setPointSizeF(size * self.font_scale)
        font.setBold(bold)
        font.setItalic(italic)
        # Unhinted glyph advances: text measures the same on every device and zoom.
        font.setHintingPreference(QFont.HintingPreference.PreferNoHinting)
        return font

    def metrics(self, size: float, bold: bool = False, italic: bool = False) -> QFontMetricsF:
        key = (size, bold, italic)
        if key not in self._metrics:
            self._metrics[key] = QFontMetricsF(self.font(size, bold, italic), self.painter.device())
        return self._metrics[key]

    def width(self, text: str, size: float, bold: bool = False, italic: bool = False) -> float:
        key = (size, bold, italic, text)
        width = self._widths.get(key)
        if width is None:
            width = self._widths[key] = self.metrics(size, bold, italic).horizontalAdvance(text)
        return width

    def line_height(self, size: float, bold: bool = False) -> float:
        return self.metrics(size, bold).height()

    def fitting(self, texts, room: float, size: float, bold: bool = False) -> str | None:
        """The first of `texts` that fits `room` device units, or None."""
        for text in texts:
            if text and self.width(text, size, bold) <= room:
                return text
        return None

    def text(self, rect: QRectF, texts, size: float, color: QColor | str | None = None, *,
             bold: bool = False, italic: bool = False, align=Qt.AlignmentFlag.AlignCenter,
             elide: bool = False, record: bool = True) -> QRectF | None:
        """Draw the first of `texts` (a string or alternatives, longest first) that fits `rect`.

        With `elide`, the last alternative is shortened with an ellipsis instead of dropped.
        Returns the box the text occupies, or None when nothing fitted (nothing is drawn).
        """
        # Names come from files and users: no control characters or lone surrogates reach the
        # picture, and a name of any length is fitted or elided like any other text.
        options = [printable(t) for t in ([texts] if isinstance(texts, str) else list(texts))]
        fm = self.metrics(size, bold, italic)
        if fm.height() > rect.height() + 0.5:
            return None
        shown = self.fitting(options, rect.width(), size, bold)
        if shown is None and elide and options:
            shown = fm.elidedText(options[-1], Qt.TextElideMode.ElideRight, rect.width())
            if len(shown) <= 2:
                shown = None
            elif record:
                self.elided.append((options[-1], shown))
        if shown is None:
            return None
        width = self.width(shown, size, bold, italic)
        height = fm.height()
        if align & Qt.AlignmentFlag.AlignRight:
            x = rect.right() - width
        elif align & Qt.AlignmentFlag.AlignHCenter:
            x = rect.center().x() - width / 2
        else:
            x = rect.left()
        if align & Qt.AlignmentFlag.AlignTop:
            y = rect.top()
        elif align & Qt.AlignmentFlag.AlignBottom:
            y = rect.bottom() - height
        else:
            y = rect.center().y() - height / 2
        box = QRectF(x, y, width, height)
        p = self.painter
        p.setFont(self.font(size, bold, italic))
        p.setPen(QColor(color) if color is not None else self.theme.text)
        p.drawText(QPointF(x, y + fm.ascent()), shown)
        if record:
            self.texts.append((box, shown))
        return box

    def paragraph(self, rect: QRectF, text: str, size: float, color=None, *, bold: bool = False,
                  italic: bool = False) -> float:
        """Word-wrapped text from the top of `rect`; returns the height used (device units).

        Lines that would run past the bottom are left out, the last shown one ending in '…' (and
        recorded in `elided`): a page that must lose nothing measures first (`paragraph_height`).
        """
        fm = self.metrics(size, bold, italic)
        lines = self.wrap_lines(text, rect.width(), size, bold, italic)
        # A rectangle measured by paragraph_height holds all its lines whatever the float rounding.
        room = max(0, int((rect.height() + 0.5) // fm.lineSpacing()))
        if len(lines) > room:
            self.elided.append((text, " ".join(lines[:room])))
            lines = lines[:room]
            if lines:
                lines[-1] = fm.elidedText(lines[-1] + " …", Qt.TextElideMode.ElideRight, rect.width())
        y = rect.top()
        for line in lines:
            self.text(QRectF(rect.left(), y, rect.width(), fm.height()), line, size, color, bold=bold,
                      italic=italic, align=Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop, elide=True)
            y += fm.lineSpacing()
        return y - rect.top()

    def paragraph_height(self, width: float, text: str, size: float, bold: bool = False) -> float:
        """Height `paragraph` needs for `text` in `width` device units."""
        return len(self.wrap_lines(text, width, size, bold)) * self.metrics(size, bold).lineSpacing()

    def wrap_lines(self, text: str, width: float, size: float, bold: bool = False, italic: bool = False) -> list[str]:
        """`text` word-wrapped into lines of at most `width`; a word wider than a line (a URL, a
        long part number) is broken after a '/', '-', '_', '.' or '=' where it can be, else
        anywhere, so that no line needs shortening."""
        fm = self.metrics(size, bold, italic)
        lines: list[str] = []
        current = ""
        for word in text.split():
            trial = f"{current} {word}" if current else word
            if self.width(trial, size, bold, italic) <= width:
                current = trial
                continue
            if current:
                lines.append(current)
            current = ""
            while fm.horizontalAdvance(word) > width and len(word) > 1:
                head = _break_word(word, lambda part: fm.horizontalAdvance(part) <= width)
                lines.append(head)
                word = word[len(head):]
            current = word
        if current:
            lines.append(current)
        return lines

    # --- lines and boxes --------------------------------------------------------------------------

    def pen(self, color, width_pt: float, style=Qt.PenStyle.SolidLine) -> QPen:
        pen = QPen(QColor(color), max(self.pt(width_pt), 0.01), style)
        pen.setCapStyle(Qt.PenCapStyle.FlatCap)
        return pen

    def box(self, rect: QRectF, fill, border=None, width_pt: float = 0.6, radius_pt: float = 2.5) -> None:
        p = self.painter
        p.setPen(self.pen(border, width_pt) if border is not None else Qt.PenStyle.NoPen)
        p.setBrush(QColor(fill) if fill is not None else Qt.BrushStyle.NoBrush)
        r = min(self.pt(radius_pt), rect.height() / 2, rect.width() / 2)
        p.drawRoundedRect(rect, r, r)

    def hline(self, x0: float, x1: float, y: float, color, width_pt: float = 0.5) -> None:
        self.painter.setPen(self.pen(color, width_pt))
        self.painter.drawLine(QPointF(x0, y), QPointF(x1, y))


def _break_word(word: str, fits) -> str:
    """The longest head of `word` that fits, ending after a separator when one is in it."""
    n = 1
    while n < len(word) and fits(word[:n + 1]):
        n += 1
    cut = max((i + 1 for i in range(n) if word[i] in "/-_.=&?"), default=0)
    return word[:cut] if cut > n // 2 else word[:n]


def overlapping_texts(texts: list[tuple[QRectF, str]], tolerance: float = 0.5) -> list[tuple[str, str]]:
    """Pairs of recorded labels whose boxes overlap by more than `tolerance` device units."""
    out = []
    boxes = sorted(texts, key=lambda t: t[0].left())
    for i, (a, ta) in enumerate(boxes):
        for b, tb in boxes[i + 1:]:
            if b.left() >= a.right() - tolerance:
                break
            inter = a.intersected(b)
            if inter.width() > tolerance and inter.height() > tolerance:
                out.append((ta, tb))
    return out
