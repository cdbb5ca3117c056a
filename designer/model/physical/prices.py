"""Price books: unit prices by catalog id, editable, never presented as quotes.

The built-in book (resources/prices/default.toml) holds illustrative estimates with their
basis. The user's own `prices.toml` in the configuration folder, then a file given on the
command line, override it entry by entry. A book marks itself (or single entries) as
`illustrative`; the BOM says "illustrative estimate" next to every price that is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from designer.catalog.loader import RESOURCES
from designer.limits import InputError, config_dir, parse_toml, quote, read_text

BUILTIN_PRICES = RESOURCES / "prices" / "default.toml"
USER_FILE = "prices.toml"
_ENTRY_FIELDS = {"key", "unit_price", "per_m", "basis", "illustrative", "class"}


MAX_PRICE = 1e9   # one unit, in the book's currency: far above any switch or cable


class PriceBookError(InputError):
    """A price book is malformed; the message names the file, the entry and the field."""


@dataclass(frozen=True)
class Price:
    key: str
    unit_price: float
    per_m: float = 0.0
    basis: str = ""
    illustrative: bool = True
    origin: str = ""       # the file the price came from
    price_class: str = ""  # like-for-like group (TOML `class`), e.g. "switch-51.2T", "optic-400G-dr4"

    def for_length(self, length_m: float | None) -> float:
        """Unit price of one piece; cables add `per_m` for each metre."""
        return round(self.unit_price + self.per_m * (length_m or 0.0), 2)


@dataclass(frozen=True)
class PriceBook:
    currency: str = "USD"
    prices: dict[str, Price] = field(default_factory=dict)
    sources: tuple[str, ...] = ()
    # Prices per 400G port within one class stay within this ratio of each other (max / min),
    # unless an entry's basis names a source; None: the book states no band.
    class_band: float | None = None

    def get(self, key: str) -> Price | None:
        return self.prices.get(key)

    def merged(self, other: PriceBook) -> PriceBook:
        """This book with `other`'s entries on top."""
        if other.prices and other.currency != self.currency:
            raise PriceBookError(f"{other.sources[-1] if other.sources else 'price book'}: currency "
                                 f"{other.currency} differs from {self.currency}; use one currency")
        return PriceBook(self.currency, {**self.prices, **other.prices}, self.sources + other.sources,
                         self.class_band)


def _number(value: object, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise PriceBookError(f"{where}: expected a number (finite), got {quote(value)}")
    if value < 0:
        raise PriceBookError(f"{where}: must not be negative, got {quote(value)}")
    if value > MAX_PRICE:
        raise PriceBookError(f"{where}: {quote(value)} is out of range (at most {MAX_PRICE:,.0f})")
    return float(value)


def parse_price_book(text: str, origin: str) -> PriceBook:
    """A price book from TOML text; raises PriceBookError naming the file, entry and field."""
    name = Path(origin).name
    try:
        data = parse_toml(text, name)
    except InputError as exc:
        raise PriceBookError(exc.reason, exc.source, exc.field) from None
    unknown = set(data) - {"price_book", "price"}
    if unknown:
        raise PriceBookError(f"{name}: unknown section {quote(sorted(unknown)[0], 40)} "
                             "(expected [price_book] and [[price]])")
    head = data.get("price_book", {})
    if not isinstance(head, dict):
        raise PriceBookError(f"{name}: [price_book] must be a table")
    currency = head.get("currency", "USD")
    book_illustrative = head.get("illustrative", False)
    if not isinstance(currency, str) or not currency.strip() or len(currency) > 12:
        raise PriceBookError(f"{name}: [price_book] currency must be text such as \"USD\"")
    if not isinstance(book_illustrative, bool):
        raise PriceBookError(f"{name}: [price_book] illustrative must be true or false")
    entries = data.get("price", [])
    if not isinstance(entries, list):
        raise PriceBookError(f"{name}: 'price' must be an array of tables ([[price]])")
    prices: dict[str, Price] = {}
    for i, entry in enumerate(entries, start=1):
        if not isinstance(entry, dict):
            raise PriceBookError(f"{name}: price #{i} must be a table")
        label = entry.get("key", f"#{i}")
        where = f"{name}: price {quote(str(label), 40)}"
        extra = set(entry) - _ENTRY_FIELDS
        if extra:
            raise PriceBookError(f"{where}: unknown field {quote(sorted(extra)[0], 40)}")
        key = entry.get("key")
        if not isinstance(key, str) or not key.strip():
            raise PriceBookError(f"{where}: field 'key' must name a catalog id")
        if key in prices:
            raise PriceBookError(f"{where}: the key appears twice in this book; keep one")
        if "unit_price" not in entry:
            raise PriceBookError(f"{where}: missing field 'unit_price'")
        basis = entry.get("basis", "")
        illustrative = entry.get("illustrative", book_illustrative)
        if not isinstance(basis, str):
            raise PriceBookError(f"{where}, field 'basis': expected text")
        if not isinstance(illustrative, bool):
            raise PriceBookError(f"{where}, field 'illustrative': expected true or false")
        price_class = entry.get("class", "")
        if not isinstance(price_class, str):
            raise PriceBookError(f"{where}, field 'class': expected text")
        prices[key] = Price(key, _number(entry["unit_price"], f"{where}, field 'unit_price'"),
                            _number(entry.get("per_m", 0.0), f"{where}, field 'per_m'"),
                            basis, illustrative, str(origin), price_class)
    band = head.get("class_band")
    if band is not None:
        band = _number(band, f"{name}: [price_book] class_band")
    return PriceBook(currency.strip(), prices, (str(origin),), band)


def load_price_file(path: str | Path, label: str | None = None) -> PriceBook:
    """One price book file; `label` names it in notes (default: its path)."""
    p = Path(path)
    try:
        text = read_text(p, "price book")
    except InputError as exc:
        raise PriceBookError(exc.reason, exc.source, exc.field) from None
    return parse_price_book(text, label or str(p))


def user_price_file() -> Path:
    """`prices.toml` in the user's settings folder (FABRIC_DESIGNER_CONFIG_DIR moves it)."""
    return config_dir() / USER_FILE


def load_prices(extra: str | Path | None = None, user_file: Path | None | bool = True) -> PriceBook:
    """Built-in prices, then the user's prices.toml, then `extra` (each overriding by key).

    `user_file=True` looks in the user's configuration folder; False skips it.
    """
    book = load_price_file(BUILTIN_PRICES, "built-in price book")
    if user_file is True:
        user_file = user_price_file()
    if user_file and Path(user_file).is_file():
        book = book.merged(load_price_file(user_file))
    if extra is not None:
        book = book.merged(load_price_file(extra))
    return book


_DEFAULT: PriceBook | None = None


def default_prices() -> PriceBook:
    """The price book commands use when none is given (loaded once)."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = load_prices()
    return _DEFAULT
