"""Parts as people type them: ids in any case, vendor model names and part numbers."""

import pytest

from designer.catalog import UnknownPartError, default_catalog
from designer.model.topology.presets import new_design
from designer.model.topology.sizing import SizingError

CAT = default_catalog()


@pytest.mark.parametrize("typed,expected", [
    ("QM9700", "qm9700"), ("Q3400", "q3400"), ("q3400-ra", "q3400"), ("SN5600", "sn5600"),
    ("MQM9700-NS2F", "qm9700"), ("mqm9790-ns2f", "qm9790"), ("Sn5400", "sn5400")])
def test_switch_names_as_typed(typed, expected):
    assert CAT.switch(typed).id == expected


def test_other_parts_match_in_any_case():
    assert CAT.server("DGX-B300-XDR").id == "dgx-b300-xdr"
    assert CAT.nic("ConnectX-7").id == "connectx-7"
    assert CAT.technology("RoCE-800G").id == "roce-800g"


def test_a_name_shared_by_two_switches_is_no_alias():
    with pytest.raises(UnknownPartError, match="unknown switch 'Quantum-2'"):
        CAT.switch("Quantum-2")  # QM9700 and QM9790 both carry it


def test_designs_store_the_catalog_id():
    design = new_design(CAT, "leaf-spine", gpus=256, switch="QM9700", server="DGX-H100")
    assert (design.fabric.switch, design.cluster.server) == ("qm9700", "dgx-h100")


def test_a_switch_the_server_cannot_run_is_refused_in_one_line():
    with pytest.raises(SizingError, match="DGX H100's ConnectX-7 runs at most 400G"):
        new_design(CAT, "leaf-spine", gpus=256, switch="Q3400", server="dgx-h100")
