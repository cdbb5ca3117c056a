"""The bill by class of link (class_bom.py) equals the per-link count, item for item."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from designer.catalog import default_catalog
from designer.model.physical.class_bom import class_physical
from designer.model.physical.closed_form_bom import closed_form_physical
from designer.model.topology.derive import derive
from tests.test_closed_form_bom import template_designs

CAT = default_catalog()


def _same_or_declined(design) -> bool:
    """The class count equals the per-link one wherever it counts; whether it counted."""
    d = derive(design, CAT)
    counted = class_physical(d, CAT)
    if counted is None:
        return False
    per_link = closed_form_physical(d, CAT)
    assert counted == per_link
    # the dicts' order is printed (BOM JSON): tiers and media in link order
    assert list(counted.tier_counts) == list(per_link.tier_counts)
    assert [list(m) for m in counted.media_counts.values()] == [list(m) for m in per_link.media_counts.values()]
    return True


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.filter_too_much,
                                                                   HealthCheck.too_slow])
@given(template_designs())
def test_class_bill_equals_per_link_bill(design):
    _same_or_declined(design)
