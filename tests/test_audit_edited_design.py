"""A capture audited against its import edited by hand: an HCA cabled where the edited design has
no link is an extra link, never a traceback, and the comparison on arrays and the link-by-link
reading agree.

The import of a capture is the inferred design plus the capture's differences as edits; a user
may edit it further (remove a host link) and audit the capture against it (`audit --against`,
the window's Audit Against). Those designs are not the capture's own import, so the capture is
audited against them as against any design.
"""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path

from capture_factory import make_capture
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_audit_generated_captures import _derived

from designer.io.fabric_capture import parse_capture, read_answer
from designer.io.project import load_design, save_design
from designer.model.decisions.audit import NO_DESIGNED_HOST_LINK, audit
from designer.model.decisions.audit_answer import CaptureAnswer, capture_answer
from designer.model.intent.design import Edit, FabricDesign
from designer.model.topology.capture_mapping import place
from designer.model.topology.derive import derive
from designer.model.topology.design_view import design_view
from tests.helpers import cli_run, examples

FINDINGS = ("missing_devices", "missing_links", "miswired", "swapped", "extra_links")


def _imported(key: str, seed: int) -> tuple[object, CaptureAnswer, FabricDesign]:
    _, derived = _derived(key)
    fabric = parse_capture(make_capture(derived, seed).text, "capture")
    answer = capture_answer(fabric)
    as_built = answer.as_built()
    assert as_built is not None
    return fabric, answer, as_built


def _without_host_links(design: FabricDesign, links: list[tuple[str, str]]) -> FabricDesign:
    return dataclasses.replace(design, edits=design.edits + tuple(Edit("remove-links", n, leaf, 1)
                                                                  for n, leaf in links))


def _both_readings(fabric, design, inference):
    on_arrays = audit(fabric, design=design, inference=inference)
    one_by_one = audit(fabric, design=design, inference=inference, one_by_one=True)
    assert on_arrays.to_json() == one_by_one.to_json()
    assert on_arrays.edits == one_by_one.edits
    return on_arrays


def test_an_hca_on_a_nic_whose_host_link_was_removed_is_an_extra_link():
    fabric, answer, as_built = _imported("dgx-4su", 0)
    before = _both_readings(fabric, as_built, answer.inference)
    edited = _without_host_links(as_built, [("srv-96.nic-7", "leaf-23")])
    after = _both_readings(fabric, edited, answer.inference)
    assert [(m["a"]["design_id"], m["b"]["design_id"], m["reason"]) for m in after.extra_links] == [
        ("srv-96.nic-7", "leaf-23", NO_DESIGNED_HOST_LINK)]
    # nothing else changes: the HCA is not a port down, a moved cable nor an absent server
    for key in FINDINGS[:-1]:
        assert getattr(after, key) == getattr(before, key), key
    # the fabric as built puts the link back
    assert after.edits == before.edits + (Edit("add-links", "srv-96.nic-7", "leaf-23", 1),)
    assert after.impact["as_built"]["links"] == after.impact["designed"]["links"] + 1


def test_the_import_audited_as_a_design_finds_no_cable_off_its_position():
    """Host cables the import moved by an edit are on a leaf, any port of it: audited against the
    import as a design (not its own import), the capture has no moved, extra or missing link."""
    fabric, answer, as_built = _imported("dgx-4su", 0)
    assert any(e.op == "add-links" and e.a.split(".nic-")[0].startswith("srv-") for e in as_built.edits)
    report = _both_readings(fabric, as_built, answer.inference)
    assert all(not getattr(report, key) for key in FINDINGS), {k: getattr(report, k)[:2] for k in FINDINGS}


def test_a_host_link_moved_by_an_edit_is_designed_on_its_leaf_not_a_port():
    fabric, answer, as_built = _imported("dgx-4su", 0)
    moved = dataclasses.replace(as_built, edits=as_built.edits + (
        Edit("remove-links", "srv-96.nic-7", "leaf-23", 1), Edit("add-links", "srv-96.nic-7", "leaf-24", 1)))
    report = _both_readings(fabric, moved, answer.inference)
    assert not report.extra_links and not report.missing_links and not report.swapped
    [cable] = report.miswired
    assert (cable["a"]["design_id"], cable["b"]["design_id"]) == ("srv-96.nic-7", "leaf-23")
    assert cable["designed_peer"]["design_id"] == "leaf-24" and cable["designed_peer"]["port"] is None
    assert cable["reason"].endswith("belongs on leaf-24")
    assert report.edits[-2:] == (Edit("remove-links", "srv-96.nic-7", "leaf-24", 1),
                                 Edit("add-links", "srv-96.nic-7", "leaf-23", 1))


def _edited_import(tmp_path: Path) -> tuple[Path, FabricDesign]:
    """Generated capture dgx-4su-0 imported by the CLI, then one host link removed by hand."""
    _, derived = _derived("dgx-4su")
    capture = tmp_path / "dgx-4su-0.topo"
    capture.write_text(make_capture(derived, 0).text)
    imported = cli_run("import", str(capture), "-o", str(tmp_path / "as-built.json"))
    assert imported.returncode == 0, imported.stderr
    edited = _without_host_links(load_design(tmp_path / "as-built.json"), [("srv-96.nic-7", "leaf-23")])
    save_design(edited, tmp_path / "edited.json")
    return capture, edited


def test_audit_against_an_edited_import_through_the_cli_and_the_window_function(tmp_path: Path):
    capture, edited = _edited_import(tmp_path)
    result = cli_run("audit", str(capture), "--against", str(tmp_path / "edited.json"), "--json")
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    report = json.loads(result.stdout)
    assert [(m["a"]["design_id"], m["b"]["design_id"]) for m in report["extra_links"]] == [
        ("srv-96.nic-7", "leaf-23")]
    text = cli_run("audit", str(capture), "--against", str(tmp_path / "edited.json"))
    assert text.returncode == 0 and "Extra links: 1" in text.stdout

    # Audit Against in the window calls read_answer with the open design: the same findings
    answer = read_answer(capture, edited)
    assert answer.basis == "design"
    assert json.loads(json.dumps(answer.report.to_json())) == report


def test_audit_against_in_the_window_on_an_edited_import(make_window, tmp_path: Path):
    capture, edited = _edited_import(tmp_path)
    window = make_window(edited)
    window.audit.audit_file(str(capture))
    assert window.dialogs.errors == []          # no "Cannot audit" with a KeyError's text
    report = window.audit.report
    assert report is not None
    assert [(m["a"]["design_id"], m["b"]["design_id"], m["reason"]) for m in report.extra_links] == [
        ("srv-96.nic-7", "leaf-23", NO_DESIGNED_HOST_LINK)]
    assert json.loads(json.dumps(report.to_json())) == json.loads(
        cli_run("audit", str(capture), "--against", str(tmp_path / "edited.json"), "--json").stdout)
    assert window.document.design == edited     # the audit changes nothing in the open design


@settings(max_examples=examples(20), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**9), st.sampled_from(["dgx-4su", "one-plane", "small", "three-tier"]),
       st.integers(1, 6), st.integers(0, 10**9))
def test_captures_against_their_import_with_host_links_removed_never_raise(seed, key, removals, pick):
    fabric, answer, as_built = _imported(key, seed)
    before = _both_readings(fabric, as_built, answer.inference)
    host_links = design_view(derive(as_built)).host_links
    removed = random.Random(pick).sample([(n, leaf) for n, leaf, _, _ in host_links], removals)
    edited = _without_host_links(as_built, removed)
    after = _both_readings(fabric, edited, answer.inference)
    # Each removed link's cable is an extra link on its HCA, or, for an HCA with the factory's
    # default name (placed only by the leaf port it is on), an unnamed HCA no design port explains.
    extra = [(m["a"]["design_id"], m["b"]["design_id"]) for m in after.extra_links]
    assert all(m["reason"] == NO_DESIGNED_HOST_LINK for m in after.extra_links)
    assert not before.extra_links and set(extra) <= set(removed) and len(extra) == len(set(extra))
    unexplained = [u for u in after.unnamed_devices if "leaf" in u and u not in before.unnamed_devices]
    built_name = {n: fabric.devices[d].name for d, n in place(fabric, answer.inference.roles,
                                                              design_view(derive(edited))).mapping.items()}
    assert sorted(u["leaf"] for u in unexplained) == sorted(built_name[leaf] for nic, leaf in removed
                                                            if (nic, leaf) not in extra)
    # and no cable is read as moved, down or missing for it
    for key_ in ("missing_devices", "missing_links", "miswired", "swapped"):
        assert getattr(after, key_) == getattr(before, key_), key_


def test_a_host_whose_only_named_hca_lost_its_link_stays_on_its_server():
    # In this capture host h100-a37-c01 has one HCA with its own name (HCA-6, on leaf-16 port 7)
    # and factory-default names on the others. With the design's link srv-37.nic-4 - leaf-16
    # removed, no designed port votes for the host: it is still srv-37, the one free server of
    # the design group its HCAs are in, so its cable is an extra link, not a host missing.
    fabric, answer, as_built = _imported("small", 170)
    before = _both_readings(fabric, as_built, answer.inference)
    edited = _without_host_links(as_built, [("srv-37.nic-4", "leaf-16")])
    after = _both_readings(fabric, edited, answer.inference)
    assert [(m["a"]["device"], m["a"]["design_id"], m["b"]["design_id"], m["reason"])
            for m in after.extra_links] == [("h100-a37-c01 HCA-6", "srv-37.nic-4", "leaf-16", NO_DESIGNED_HOST_LINK)]
    assert after.unnamed_devices == before.unnamed_devices     # its other HCAs keep their host
    for key in FINDINGS[:-1]:
        assert getattr(after, key) == getattr(before, key), key
    view = design_view(derive(edited))
    for one_by_one in (False, True):
        placed = place(fabric, answer.inference.roles, view, one_by_one=one_by_one)
        assert view.nodes[placed.mapping[next(d for d, dev in fabric.devices.items()
                                              if dev.name == "h100-a37-c01 HCA-6")]]["server"] == \
            placed.server_of_host["h100-a37-c01"]
        assert placed.server_of_host["h100-a37-c01"] == view.nodes["srv-37.nic-1"]["server"]
