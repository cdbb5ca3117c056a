"""Built-in prices: every switch and optic has a basis and a class, and a class holds together per 400G port."""

from collections import defaultdict

import pytest

from designer.catalog import default_catalog
from designer.model.physical.prices import BUILTIN_PRICES, PriceBookError, load_price_file, parse_price_book

CAT = default_catalog()


def _per_400g(key: str, price: float) -> float:
    if key in CAT.switches:
        return price / (CAT.switches[key].capacity_gbps / 400)
    t = CAT.transceivers[key]
    return price / (max(m.count * m.gbps for m in t.port_modes) / 400)


def test_every_switch_and_optic_price_has_a_basis_and_a_class():
    book = load_price_file(BUILTIN_PRICES)
    keyed = [p for p in book.prices.values() if p.key in CAT.switches or p.key in CAT.transceivers]
    # Every switch one can buy has a price; an end-of-life part (one real captures show) has none,
    # and a bill of materials lists it as not priced rather than at an invented figure.
    sold = {k for k, sw in CAT.switches.items() if sw.status != "end-of-life"}
    assert {p.key for p in keyed} >= sold
    assert not {p.key for p in keyed} & (set(CAT.switches) - sold)
    for p in keyed:
        assert p.basis and p.price_class, p.key


def test_prices_per_400g_port_stay_within_the_stated_band_of_their_class():
    book = load_price_file(BUILTIN_PRICES)
    assert book.class_band is not None and book.class_band >= 1
    groups = defaultdict(list)
    for p in book.prices.values():
        if p.price_class and (p.key in CAT.switches or p.key in CAT.transceivers):
            groups[p.price_class].append((_per_400g(p.key, p.unit_price), p.key))
    assert any(len(v) > 1 for v in groups.values())
    for cls, members in groups.items():
        low, high = min(members), max(members)
        assert high[0] / low[0] <= book.class_band, (cls, low, high)


def test_class_is_checked_like_every_field():
    with pytest.raises(PriceBookError, match="field 'class'"):
        parse_price_book('[[price]]\nkey = "qm9700"\nunit_price = 1\nclass = 3\n', "p.toml")
    book = parse_price_book('[price_book]\nclass_band = 1.2\n[[price]]\nkey = "qm9700"\nunit_price = 1\n'
                            'class = "switch-25.6T"\n', "p.toml")
    assert book.class_band == 1.2 and book.get("qm9700").price_class == "switch-25.6T"
