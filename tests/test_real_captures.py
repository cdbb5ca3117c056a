"""Real captures from public sites and labs (tests/data/real_captures, with their licences):
each gives the inference and findings written down in expected.json, and the same answer through
the CLI's `audit` and `import` and the window's Import, with no internal error."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from designer.cli.main import main
from designer.io.fabric_capture import read_answer
from designer.io.project import load_design

HERE = Path(__file__).parent / "data" / "real_captures"

# Why each written inference (expected.json) is the one to defend:
#
# ibtopotool/1.topo (the ibnetdiscover(8) example, SDR 2007): a 24-port Voltaire ISR 9024 and an
#   8-port SW-6IB4 (devids 0x5a06, 0x5a05 under Voltaire's vendor id, rdma-core chassis.h), both
#   with hosts, cabled to each other by two links. The small switch hangs from the big one: a
#   leaf-spine of one leaf and one spine (the ISR 9024) at 4x SDR, ib-sdr. The two InfiniHost HCAs
#   on the ISR 9024 are hosts on a spine, set apart as loginoff's storage hosts are; the two on
#   the SW-6IB4 are the design's servers. One uplink trained at 1xSDR: the one degraded link. The
#   second 1xSDR link belongs to an HCA set apart, which the audit does not grade.
# ibtopotool/2.topo (SDR 2009): one 8-port InfiniScale (MT43132, devid 0xa87c) switch and two
#   hosts, InfiniHost and ConnectX SDR: a one-switch ib-sdr fabric of two servers, nothing wrong
#   but the switch's factory description.
# ibtopotool/3.topo (a UFM lab, 2016): a 36-port Switch-IB (EDR) and a 12-port SX6012 (FDR) cabled
#   by one link, three loopback cables on the Switch-IB. The Switch-IB is the spine the SX6012
#   hangs from, so the design is the spine's generation, EDR (sb7800), and the FDR uplink is
#   reported as the one degraded link; the QDR ConnectX and the ConnectX-3 on the SX6012 run their
#   own top rate (older HCAs, no finding), and its hosts on the Switch-IB are set apart. The loops
#   are three "switch cabled to itself". Hosts are named HCA-1/HCA-2, so servers have two HCAs,
#   both on the one leaf: each host is one of the 3 servers by its HCAs' names, whatever leaf
#   ports the site gave them (r-ufm101 on ports 2 and 3 is in place, no server is absent). The
#   missing links are the HCA each of r-ufm100 and r-ufm96 lacks (host ports down) and the
#   SX6012-Switch-IB second uplink. r-ufm96's ConnectX-4 (devid 0x1013, an EDR card) trained at
#   4xSDR: the second degraded link, a cable or port to look at.
# ibtopotool/4.topo: one InfiniScale IV (Sun DCS 36) switch and one QDR host: one-switch ib-qdr.
# ltaulell-HPC_toolset/X5.topofile: 4 leaves take 3 links to each of the 4 spines (the design's
#   rule, 12 uplinks). Three leaves are wired another way on purpose, each spreading its uplinks
#   evenly over the spines it reaches with no more hosts per uplink than those 4: the 21-host
#   leaf with 6 links to each of 2 spines (12 uplinks too, cabled as pairs of 6), the 6-host leaf
#   with 1 link to each spine (1.5 hosts per uplink, fewer than the full leaves' 2) and the leaf
#   of uplinks only, 3 links to each of 2 spines. Missing cables would leave a leaf uneven
#   (3, 3, 2, 3) or, losing a whole spine's, with more hosts per uplink than the others; none of
#   the 14 missing and 6 moved uplinks once reported is such a fault, so the audit names none:
#   "uplinks by design" says which leaves follow their own rule. What remains is the 5 devices
#   with factory descriptions and no name in X5.map (2 switches, 3 HCAs).
# loginoff: see README.md (6 leaves with 4 links to each of 2 spines; ib1 has 3 to ib8, uneven:
#   the one missing link a technician would lay).
EXPECTED = {k: v for k, v in json.loads((HERE / "expected.json").read_text()).items() if not k.startswith("_")}


def test_every_capture_in_the_folder_has_its_expectation_written_down():
    captures = {str(p.relative_to(HERE)) for p in HERE.rglob("*") if p.is_file()
                and p.name not in ("LICENSE", "README.md", "expected.json", "X5.map")}
    assert captures == set(EXPECTED)
    assert all((HERE / name).parent.joinpath("LICENSE").is_file() for name in captures)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_real_capture_gives_its_written_inference_and_findings(name):
    want = EXPECTED[name]
    answer = read_answer(HERE / name)
    inference, report = answer.inference, answer.report
    roles = Counter(r for r in inference.roles.values() if r not in ("nic", "aggregation"))
    assert dict(roles) == want["roles"]
    facts = {f.subject: f.value for f in inference.facts}
    if "tiers" in want:
        assert facts["tiers"] == want["tiers"] and facts["servers"] == want["servers"]
    if "hosts_named" in want:
        assert len({d.host for d in answer.fabric.endpoints() if d.host}) == want["hosts_named"]
    if "links" in want:
        assert len(answer.fabric.links) == want["links"]
    assert (inference.design is not None) == bool(want["design"])
    if want["design"]:
        # the older generations are in the catalog: a QDR/FDR site infers its own switch and rate
        fabric, plan = inference.design.fabric, inference.derived.plan
        assert (fabric.technology, fabric.switch, fabric.template, plan.leaves, plan.spines) == tuple(
            want["design"][k] for k in ("technology", "switch", "template", "leaves", "spines"))
        assert inference.design.cluster.nic == want["design"]["nic"]
    if "problem" in want:
        assert any(want["problem"] in p for p in inference.problems), inference.problems
    else:
        assert inference.problems == []
    assert facts.get("older HCAs") == want.get("older_hcas")
    assert dict(Counter(e["kind"] for e in report.set_apart)) == want.get("set_apart", {})
    found = {kind: len(getattr(report, kind)) for kind, _ in report.rows()}
    assert found == want["findings"]
    for kind, reason in want.get("reasons", {}).items():
        assert all(e["reason"] == reason for e in getattr(report, kind))
    for kind, start in want.get("reasons_start", {}).items():
        assert all(e["reason"].startswith(start) for e in getattr(report, kind))
    own_rule = [f for f in report.inferred["facts"] if f["subject"] == "uplinks by design"]
    assert [f["value"] for f in own_rule] == (
        [f"{want['own_uplink_rule']} leaves wired their own way"] if "own_uplink_rule" in want else [])
    for device, label in want.get("degraded", []):
        assert any(device in (e["a"]["device"], e["b"]["device"]) and e["as_built"] == label
                   for e in report.degraded_links), report.degraded_links
    for a, b, pair in want.get("missing", []):
        assert any((e["a"]["device"], e["b"]["device"], e["pair_links"]) == (a, b, pair) for e in report.missing_links)
    # every finding says how sure the tool is and why
    assert all(e["confidence"] in ("high", "medium", "low") and e["why"] for _, e in report.rows())


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_cli_and_the_window_give_a_real_capture_one_answer(name, make_window, tmp_path, capsys):
    path = HERE / name
    capsys.readouterr()
    assert main(["audit", str(path), "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert cli == json.loads(json.dumps(read_answer(path).report.to_json()))
    code = main(["import", str(path), "-o", str(tmp_path / "p.json")])
    err = capsys.readouterr().err
    window = make_window()
    started = window.audit.import_file(str(path))
    assert json.loads(json.dumps(window.audit.report.to_json())) == cli
    if EXPECTED[name]["design"]:
        # the design is imported as the CLI writes it, and Audit Against it (in the window and
        # with `audit --against`) gives the same findings
        assert code == 0 and started and window.document.design == load_design(tmp_path / "p.json")
        window.audit.audit_file(str(path))
        assert json.loads(json.dumps(window.audit.report.to_json())) == cli
        capsys.readouterr()
        assert main(["audit", str(path), "--json", "--against", str(tmp_path / "p.json")]) == 0
        assert json.loads(capsys.readouterr().out) == cli
    else:
        # no design fits: the CLI refuses in one line, the window opens the audit on its own and
        # says why in its status bar, and neither writes nor changes a design
        # One error line (a note on what the reader skipped may come before it).
        errors = [line for line in err.splitlines() if ": error: " in line]
        assert code == 1 and len(errors) == 1 and EXPECTED[name]["problem"] in errors[0]
        assert all(": note: " in line for line in err.splitlines() if line not in errors)
        assert not (tmp_path / "p.json").exists() and not started and window.document.path is None
        assert EXPECTED[name]["problem"] in window.statusBar().currentMessage()
        assert window.audit.dock.isVisible() and window.dialogs.errors == []
