"""The window and the older InfiniBand generations: a QDR site's capture imports on its own
end-of-life switch, while new fabrics keep starting on hardware one can buy."""

from pathlib import Path

CAPTURE = Path(__file__).parent / "data" / "real_captures" / "loginoff-infiniband_topology" / "topo"


def test_a_qdr_import_names_its_end_of_life_switch_and_leaves_new_fabrics_current(make_window):
    window = make_window()
    palette = window.palette_panel
    offered = {palette.technology.itemData(i) for i in range(palette.technology.count())}
    assert {"ib-ndr", "ib-xdr"} <= offered and not offered & {"ib-qdr", "ib-fdr", "ib-edr"}
    before = palette.technology.currentData()
    assert window.audit.import_file(str(CAPTURE))
    fabric = window.document.design.fabric
    assert (fabric.technology, fabric.switch) == ("ib-qdr", "sx6036")
    assert window.catalog.switch(fabric.switch).name_with_status() == "Mellanox SX6036 (FDR) (end-of-life)"
    assert palette.technology.currentData() == before
