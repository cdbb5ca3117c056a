"""The bill of a million GPUs by hand count, held to a smaller design's link-by-link bill.

Both designs are HGX B300 servers (eight ConnectX-8 each, four 200G planes per NIC) on Tomahawk 6
class switches in 512 x 200G mode, every port used. The same rules give every count at both
sizes, so the smaller design, whose closed-form bill is checked byte-equal against the
link-by-link walk, vouches for the arithmetic the million-GPU bill follows:

- switches: leaves, spines and cores of the four planes;
- switch-side transceivers: one per cage, 64 cages of 8 x 200G per switch;
- server-side transceivers: one per ConnectX-8 cage, its four 200G lanes one per plane;
- breakout fibers: one MPO-12 to 4 x duplex LC per four 200G links;
- every link single-mode.
"""

from __future__ import annotations

import json

import pytest

from designer.catalog import default_catalog
from designer.cli.main import main
from designer.model.physical.bom import build_bom
from designer.model.topology.derive import derive
from designer.model.topology.presets import new_design

CAT = default_catalog()
DESIGN = ["--template", "fat-tree", "--server", "hgx-b300-eth-4plane", "--switch", "tomahawk6-102t",
          "--uplink-speed", "200G", "--networks", "compute"]
BREAKOUT = "smf-mpo12-4xlc"


def _by_hand(servers: int, switches: int, links: int) -> dict[str, int]:
    return {"switches": switches, "switch_side": switches * 64, "server_side": servers * 8,
            "breakouts": links // 4, "nics": servers * 8}


def _from_bill(doc: dict) -> dict[str, int]:
    counts = doc["counts"]
    breakouts = sum(i["quantity"] for i in doc["items"] if i["category"] == "Fiber"
                    and i["description"].startswith(CAT.cables[BREAKOUT].name))
    assert all(set(m) == {"smf"} for m in counts["media_by_tier"].values())
    return {"switches": counts["switches_total"], "switch_side": counts["transceivers"]["switch_side"],
            "server_side": counts["transceivers"]["server_side"], "breakouts": breakouts, "nics": counts["nics"]}


def test_a_smaller_design_by_hand_count_is_its_link_by_link_bill():
    # 8,192 GPUs: 1,024 servers; per plane 8,192 endpoints on 32 leaves (256 down, 256 up) and 16
    # spines of 512 ports, all full.
    d = derive(new_design(CAT, "fat-tree", gpus=8192, server="hgx-b300-eth-4plane", switch="tomahawk6-102t",
                          uplink_speed=200), CAT)
    closed, walked = build_bom(d, CAT), build_bom(d, CAT, link_by_link=True)
    assert json.dumps(closed.to_json()) == json.dumps(walked.to_json())
    assert d.metrics.switches_total == 4 * (32 + 16)
    assert _from_bill(walked.to_json()) == _by_hand(1_024, 4 * 48, 4 * 2 * 8_192)


# About 4 GB and over a minute: the 8,192-GPU case above runs the same arithmetic in every `make test`.
@pytest.mark.slow
def test_a_million_gpus_bill_by_hand_count(tmp_path, capsys):
    out = tmp_path / "million.json"
    assert main(["new", "--gpus", "1048576", *DESIGN, "-o", str(out)]) == 0
    capsys.readouterr()
    assert main(["bom", str(out), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    # 131,072 servers; per plane 1,048,576 endpoints: 4,096 leaves (256 down, 256 up), 4,096
    # spines (256 down, 256 up) in 16 pods of 256 and 256, and 2,048 cores of 512 down.
    assert doc["counts"]["switches_by_tier"] == {"leaf": 4 * 4_096, "spine": 4 * 4_096, "core": 4 * 2_048}
    links = 3 * 4 * 1_048_576   # node-leaf, leaf-spine and spine-core: one per endpoint each, per plane
    assert doc["counts"]["links_total"] == links
    assert _from_bill(doc) == _by_hand(131_072, 40_960, links)
    assert _from_bill(doc) == {"switches": 40_960, "switch_side": 2_621_440, "server_side": 1_048_576,
                               "breakouts": 3_145_728, "nics": 1_048_576}
    assert not doc["incomplete"] and not [f for f in doc["findings"] if f["severity"] == "error"]
