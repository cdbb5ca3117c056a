"""The seeded hostile campaign (tests/hostile_campaign.py): a few hundred cases through every
reader, every export with hostile names and hostile arguments, in fresh processes under a 2 GiB
address-space cap, and none may end in an internal error, a silent refusal, a raw control
character on the terminal, a leftover file or a replaced symbolic link.

Cases run 48 to a process (each from `main()` in its own folder, the catalog's cache cleared):
`make test` runs 96 of the 240, every reader among them, in two processes, 7.9 s of CPU against
9.4 s at 25 to a process (least of two runs each); benchmarks/bench_hostile_input.py runs the
full campaign one process a case.
"""

from __future__ import annotations

import pytest

pytest.importorskip("resource", reason="the memory cap needs the POSIX resource module")

import hostile_campaign as campaign  # noqa: E402  (after the skip: the module caps memory)
from helpers import examples  # noqa: E402

SEED = 46
CASES = examples(240)   # 96 in `make test` (every reader still drawn), 240 in `make test-slow`
PER_PROCESS = 48        # each process starts Python and imports the commands once

# The campaign runs once, on one worker, for the three tests that read its outcomes
# (pytest-xdist, --dist loadgroup).
pytestmark = pytest.mark.xdist_group("hostile-campaign")


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    base = campaign.make_base()
    cases = campaign.make_cases(SEED, CASES, base)
    return campaign.run_cases(cases, tmp_path_factory.mktemp("campaign"), per_process=PER_PROCESS)


def test_the_seeded_campaign_has_no_defect(outcomes):
    summary = campaign.summarize(outcomes)
    assert summary["cases"] == CASES
    assert summary["defects"] == {}, "\n".join(summary["failing"])


def test_the_campaign_reaches_every_reader_and_both_ends(outcomes):
    # A campaign whose cases all ended the same way would test nothing: it must reach every
    # reader and see both work done and refusals.
    kinds = {o.name.split("-")[1] for o in outcomes}
    assert {"project", "ibnetdiscover", "lldp", "prices", "rates", "catalog", "argument", "name"} <= kinds
    codes = {o.code for o in outcomes}
    assert 0 in codes and 1 in codes and 2 in codes


def test_a_refusal_is_one_line(outcomes):
    refusals = [o for o in outcomes if o.code in (1, 2) and "export" not in o.name and "bom" not in o.stderr]
    many = [o.name for o in refusals
            if len([ln for ln in o.stderr.splitlines() if "error" in ln]) != 1]
    assert not many, many[:5]


def test_the_judge_sees_each_defect(tmp_path):
    # The judge itself: every defect it exists for is named when present.
    case = campaign.Case("00000-project-x", ["export", "{dir}/in.json", "-f", "ndt", "-o", "{dir}/out"],
                         links={"link": "target"}, output="{dir}/out")
    (tmp_path / "out").write_bytes(b"a\x00b")
    (tmp_path / ".out.abcdefgh.tmp").write_bytes(b"")
    (tmp_path / "link").write_bytes(b"")
    assert campaign.judge(case, tmp_path, 3, "", "Traceback") == ["internal", "leftover", "leftover",
                                                                 "link replaced"]
    assert campaign.judge(case, tmp_path, 1, "\x1b[2J", "") == ["silent", "raw control", "leftover", "leftover",
                                                               "link replaced"]
    assert "binary export" in campaign.judge(case, tmp_path, 0, "", "")


def test_a_case_that_kills_its_process_is_an_internal_error(tmp_path):
    # Under the cap, a case that needs more memory than allowed ends its process; the runner
    # marks it (and only it) as an internal error instead of losing it.
    case = campaign.Case("00000-argument-x", ["metrics", str(campaign.EXAMPLE)])
    done = campaign.run_cases([case], tmp_path, memory_cap=64 * 2**20)
    assert [o.defects for o in done] == [["internal"]]
