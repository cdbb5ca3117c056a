"""The cabling plan streams its rows; the bytes equal the whole-sheet CSV, and a failed write
leaves the old file untouched."""

from __future__ import annotations

import dataclasses

import pytest

from designer.catalog import default_catalog
from designer.io.atomic import write_atomic
from designer.io.cabling_csv import cabling_rows, iter_cabling_csv, write_cabling_csv
from designer.io.csv_cells import ENCODING, rows_to_csv
from designer.model.intent.design import replace_path
from designer.model.physical.media import physical_layer
from designer.model.topology.derive import derive
from designer.model.topology.presets import new_design
from tests.helpers import superpod

CAT = default_catalog()


@pytest.mark.parametrize("design", [
    superpod(2),
    replace_path(new_design(CAT, "fat-tree", gpus=1024, switch="qm9700", planes=2), "meta.name", 'a,"b"'),
    replace_path(new_design(CAT, "leaf-spine", nodes=16, server="hgx-h100", switch="qm9700"),
                 "floorplan.placement", "su-racks"),
])
def test_streamed_plan_has_the_bytes_of_the_whole_sheet(tmp_path, design):
    phys = physical_layer(derive(design, CAT), CAT)
    out = tmp_path / "plan.csv"
    write_cabling_csv(phys, out, CAT)
    whole = rows_to_csv(cabling_rows(phys, CAT)).encode(ENCODING)
    assert out.read_bytes() == whole
    assert "".join(iter_cabling_csv(phys, CAT, rows_per_chunk=7)).encode(ENCODING) == whole


def test_cells_that_need_quoting_are_quoted_as_the_csv_module_does():
    phys = physical_layer(derive(superpod(1), CAT), CAT)
    link = phys.links[0]
    odd_end = dataclasses.replace(link.a, port='=1,"x"\nz')
    odd = dataclasses.replace(phys, links=[dataclasses.replace(link, a=odd_end)] + phys.links[1:])
    odd.layout = phys.layout
    assert "".join(iter_cabling_csv(odd, CAT)) == rows_to_csv(cabling_rows(odd, CAT))


def test_a_stream_that_fails_leaves_the_old_file_and_no_temporary(tmp_path):
    out = tmp_path / "plan.csv"
    out.write_bytes(b"old")

    def chunks():
        yield "new rows\r\n"
        raise RuntimeError("disk gone")

    with pytest.raises(RuntimeError):
        write_atomic(out, chunks(), encoding=ENCODING)
    assert out.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["plan.csv"]
    write_atomic(out, iter(["é", "", "x"]), encoding=ENCODING)
    assert out.read_bytes() == "éx".encode(ENCODING)
