"""Captures named as five real sites name their devices (tests/capture_factory.SITES), with
their mess (each HCA of a host named its own way, vendor and `localhost HCA-N` defaults, host
numbering gaps between groups, row/pod/rail/group in leaf names, hall prefixes, management hosts,
SHARP aggregation nodes, parallel uplinks, a leaf whose uplinks follow a rule of its own as X5's
do) audit to exactly the faults injected: against the
design, and against the design inferred from the capture alone through the one answer every
path uses."""

from __future__ import annotations

from collections import Counter

from capture_factory import SITES, make_capture
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_audit_generated_captures import _derived, found_exactly_the_injected

from designer.io.fabric_capture import parse_capture
from designer.model.decisions.audit_answer import capture_answer
from tests.helpers import examples


def _against_the_design(report, capture) -> None:
    """Against the design itself, exactly the faults; a leaf rewired by its own rule (read only
    against the inferred design) is cabled otherwise than that design says, so its moved uplinks
    are findings there, and only its."""
    own = capture.faults.own_rule
    if not own:
        found_exactly_the_injected(report, capture)
        return
    def on_own(m: dict) -> bool:
        return own[0] in (m["a"]["design_id"], m["b"]["design_id"])

    uplinks = [m for m in report.miswired + report.missing_links + report.extra_links
               if m["a"].get("tier") != "server" and m.get("reason") != "host port down"]
    assert any(on_own(m) for m in uplinks)
    elsewhere = Counter((m["a"]["design_id"], m["b"]["design_id"]) for m in report.missing_links
                        if m.get("reason") != "host port down" and not on_own(m))
    assert elsewhere == capture.faults.missing_uplinks
    assert all(on_own(m) for m in report.miswired + report.extra_links if m["a"].get("tier") != "server")


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**9), st.sampled_from(sorted(SITES)), st.sampled_from(["one-plane", "small", "dgx-4su"]))
def test_site_named_captures_audit_to_exactly_their_faults(seed, site, key):
    design, derived = _derived(key)
    capture = make_capture(derived, seed, "ibnetdiscover", site=site)
    fabric = parse_capture(capture.text, "site.topo")
    _against_the_design(capture_answer(fabric, against=design).report, capture)
    # from the capture alone: the same design inferred, the same faults, except what no capture
    # can show (the last spine or the last server absent leave no gap in any numbering)
    answer = capture_answer(fabric)
    plan = derived.plan
    facts = {f.subject: f for f in answer.inference.facts}
    assert facts["rails"].value == str(derived.resolved.rails)
    assert facts["nodes per SU"].value == str(plan.rail_su_size)
    assert not facts["server model"].value.startswith("GB")
    last_spine = f"spine-{plan.spines}" in capture.faults.absent_switches
    last_server = f"srv-{plan.servers}" in capture.faults.absent_servers
    if not (last_spine or last_server):
        found_exactly_the_injected(answer.report, capture)
    assert not answer.report.extra_links


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**9), st.sampled_from(sorted(SITES)), st.sampled_from(["one-plane", "small", "roce"]))
def test_site_named_lldp_captures_audit_to_exactly_their_faults(seed, site, key):
    """LLDP alike: the same site names on lldpd tables, and on half the captures spines that
    report Cisco NX-OS tables (their own ports short, Eth1/N, no link rate), as suzieq's lab."""
    design, derived = _derived(key)
    capture = make_capture(derived, seed, "lldp", site=site)
    fabric = parse_capture(capture.text, "site.json")
    _against_the_design(capture_answer(fabric, against=design).report, capture)
