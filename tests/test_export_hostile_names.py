"""Hostile names through every export: a design name, a NetBox site or a containerlab image that
holds quotes, line breaks, carriage returns, control characters, comment and record separators
must come out as data, never as an extra record, line, key or cell.

Each format is parsed back with a strict reader (the tool's own ibnetdiscover parser, csv, YAML,
XML) and its structure is held equal to the same export of a plain name.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import xml.etree.ElementTree as ET

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from designer.catalog import default_catalog
from designer.io.export_source import ExportOptions, ExportSource
from designer.io.exporters import FORMATS
from designer.io.ibnetdiscover import parse_ibnetdiscover
from designer.model.topology.presets import new_design
from tests.helpers import examples

CAT = default_catalog()
DESIGNS = {
    "infiniband": new_design(CAT, "rail-optimized", nodes=4, server="dgx-h100", switch="qm9700", nodes_per_su=4),
    "ethernet": new_design(CAT, "leaf-spine", nodes=4, server="dgx-h100", technology="roce-400g"),
}
# The payloads of the attack campaign, and the separators of every format written.
PAYLOADS = [
    'x"\nvendid=0x2c9\nSwitch\t65 "S-deadbeefdeadbeef"\t\t# "evil" enhanced port 0 lid 1 lmc 0\n[1]\t"H-1"[1]',
    "evil\rSwitchName=evil2", "a\u2028b\u0085c", "=cmd|' /C calc'!A0", "-->\n<!-- x", "]]><x/>",
    '{"a": 1}\n- b: c', "#!\n# comment", "a,b;c\td", "\x00\x1b[31m\x7f", "\\\"\\", "name: value\n---\n...",
]
HOSTILE_CHARS = list("\"'\n\r\t\x00\x0b\x0c\x1b\x7f\x85\u2028\u2029#,;:=<>&{}[]\\|-!*?% ") + ["a", "Switch", "---"]
hostile_text = st.one_of(st.sampled_from(PAYLOADS),
                         st.lists(st.sampled_from(HOSTILE_CHARS), min_size=1, max_size=30).map("".join))


def _render(family: str, fmt_name: str, name: str, site: str = "", image: str = "") -> str | dict[str, str]:
    design = DESIGNS[family]
    design = dataclasses.replace(design, meta=dataclasses.replace(design.meta, name=name))
    options = ExportOptions(site=site, clab_image=image)
    return FORMATS[fmt_name].render(ExportSource(design, CAT, options))


def _shape(value):
    """The structure of parsed YAML/JSON: every scalar string replaced by a placeholder."""
    if isinstance(value, dict):
        return {("key" if isinstance(k, str) and not k.isidentifier() else k): _shape(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_shape(v) for v in value]
    return type(value).__name__


def _csv_shape(text: str) -> list[int]:
    return [len(row) for row in csv.reader(io.StringIO(text.lstrip("\ufeff")))]


def _xml_shape(text: str) -> list[tuple[str, tuple[str, ...]]]:
    return [(el.tag, tuple(sorted(el.attrib))) for el in ET.fromstring(text.encode("utf-8")).iter()]


def structure(fmt_name: str, rendered):
    """What must not change when a name changes: lines, records, cells, keys, elements."""
    if isinstance(rendered, dict):
        return {name: structure_of_file(name, text) for name, text in rendered.items()}
    return structure_of_file(fmt_name + FORMATS[fmt_name].extension, rendered)


def structure_of_file(name: str, text: str):
    if name.endswith(".csv"):
        return ("csv", _csv_shape(text))
    if name.endswith((".yaml", ".yml")):
        return ("yaml", [_shape(doc) for doc in yaml.safe_load_all(text)], text.count("\n"))
    if name.endswith((".graphml", ".drawio")):
        return ("xml", _xml_shape(text))
    if name.startswith("ibnetdiscover"):
        fabric = parse_ibnetdiscover(text, "export")
        return ("ibnetdiscover", len(fabric.devices), len(fabric.links), text.count("\n"))
    return ("lines", text.count("\n"), text.count("\r"))


CASES = [(family, name) for family in DESIGNS for name, fmt in FORMATS.items()
         if fmt.family in (None, family)]


@pytest.mark.parametrize("family, fmt_name", CASES)
@settings(max_examples=examples(12), deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(name=hostile_text)
def test_a_hostile_design_name_adds_no_record_line_key_or_cell(family, fmt_name, name):
    plain = structure(fmt_name, _render(family, fmt_name, "plain"))
    assert structure(fmt_name, _render(family, fmt_name, name)) == plain


@pytest.mark.parametrize("payload", PAYLOADS)
def test_hostile_site_and_image_names_stay_data(payload):
    plain = structure("netbox", _render("ethernet", "netbox", "plain", site="site"))
    assert structure("netbox", _render("ethernet", "netbox", "plain", site=payload)) == plain
    plain = structure("clab", _render("ethernet", "clab", "plain", image="img"))
    assert structure("clab", _render("ethernet", "clab", "plain", image=payload)) == plain


def test_the_ibnetdiscover_header_keeps_the_name_in_its_comment():
    text = _render("infiniband", "ibnetdiscover", PAYLOADS[0])
    header = text.split("\n\n", 1)[0]
    assert all(line.startswith("#") for line in header.splitlines())
    assert "\r" not in text
    assert len(parse_ibnetdiscover(text, "export").devices) == len(
        parse_ibnetdiscover(_render("infiniband", "ibnetdiscover", "plain"), "export").devices)


def _named(family: str, name: str):
    design = DESIGNS[family]
    return dataclasses.replace(design, meta=dataclasses.replace(design.meta, name=name))


@pytest.mark.parametrize("payload", PAYLOADS)
def test_a_hostile_name_in_the_diagram_svg_stays_text(qapp, payload):
    from designer.ui.export.figure import Figure, FigureSpec
    from designer.ui.export.svg import svg_bytes

    def tags(name: str) -> set[str]:
        # Qt draws a text in as many runs as its fonts need, so only the kinds of element must
        # match: a payload that broke out would add its own (an <x/>, a comment, a script).
        return {tag for tag, _ in _xml_shape(svg_bytes(Figure(_named("infiniband", name), FigureSpec())).decode())}

    assert tags(payload) == tags("plain")


@pytest.mark.parametrize("payload", PAYLOADS)
def test_a_hostile_name_in_the_bom_and_cabling_csv_adds_no_row_or_cell(payload):
    from designer.io.bom_csv import bom_to_csv
    from designer.io.cabling_csv import iter_cabling_csv
    from designer.model.physical.bom import build_bom
    from designer.model.physical.media import physical_layer
    from designer.model.topology.derive import derive

    def shapes(name: str):
        derived = derive(_named("infiniband", name), CAT)
        return (_csv_shape(bom_to_csv(build_bom(derived, CAT))),
                _csv_shape("".join(iter_cabling_csv(physical_layer(derived, CAT), CAT))))

    assert shapes(payload) == shapes("plain")
