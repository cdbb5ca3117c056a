"""The cluster's other networks as draw.io pages, one per network, after the compute fabric's page.

Each page draws the network's rows (designer/model/networks/diagram.py): one shape per row with
its count and switch, and one labelled bundle per pair of rows it links. A compute-only design
gets no extra page.
"""

from __future__ import annotations

from designer.catalog import Catalog
from designer.io.export_source import ExportSource
from designer.io.markup import xml_attr
from designer.io.network_netbox import checked_sizes
from designer.model.networks.diagram import network_diagram

ROW_W, ROW_H, ROW_GAP = 520.0, 50.0, 110.0
FILL = {"spine": "#d5e8d4", "leaf": "#dae8fc", "storage leaf": "#fde0c5", "servers": "#f5f5f5",
        "storage": "#fff2cc", "endpoints": "#f5f5f5"}
STROKE = {"spine": "#82b366", "leaf": "#6c8ebf", "storage leaf": "#d79b00", "servers": "#666666",
          "storage": "#d6b656", "endpoints": "#666666"}


def _family(catalog: Catalog, switch: str) -> str:
    try:
        return catalog.switch(switch).family
    except KeyError:
        return "ethernet"


def network_pages(src: ExportSource) -> list[str]:
    design, catalog = src.design, src.catalog
    if not design.networks:
        return []
    pages: list[str] = []
    for n, size in enumerate(checked_sizes(src)):
        rows, bundles = network_diagram(size, design.cluster.servers)
        colour = "#2e7d32" if any(_family(catalog, g.switch) == "infiniband" for g in size.switches) else "#1565c0"
        cells = ['        <mxCell id="0"/>', '        <mxCell id="1" parent="0"/>',
                 (f'        <mxCell id="title" value="{xml_attr(f"{src.name}: {size.label}")}" '
                 'style="text;fontSize=18;fontStyle=1;align=left;verticalAlign=middle;" vertex="1" parent="1">'
                 '<mxGeometry x="10" y="10" width="900" height="40" as="geometry"/></mxCell>')]
        for k, row in enumerate(rows):
            label = f"{row.title}: {row.count:,}" + (f"\n{row.detail}" if row.detail else "")
            key = row.key if row.key in FILL else ("leaf" if "management" in row.key else "servers")
            style = f"rounded=1;whiteSpace=wrap;fillColor={FILL[key]};strokeColor={STROKE[key]};fontSize=12;"
            cells.append(f'        <object id="r{k + 1}" label="{xml_attr(label)}" count="{row.count}" '
                         f'network="{xml_attr(size.role)}"><mxCell style="{style}" vertex="1" parent="1">'
                         f'<mxGeometry x="40" y="{80 + k * ROW_GAP:g}" width="{ROW_W:g}" height="{ROW_H:g}" '
                         'as="geometry"/></mxCell></object>')
        for k, bundle in enumerate(bundles):
            upper, lower = bundle.upper, bundle.lower
            # One shape per row here: each rack's count goes in the label (and, for tools, an attribute).
            text = "\n".join(t for t in (bundle.text or f"{rows[upper].title} to {rows[lower].title}",
                                          bundle.racks_summary()) if t)
            racks = (f' per_rack="{",".join(str(n) for n in bundle.per_rack)}" gbps="{bundle.gbps}"'
                     if bundle.per_rack else "")
            cells.append(f'        <object id="b{k + 1}" label="{xml_attr(text)}" network="{xml_attr(size.role)}"'
                         f'{racks}>'
                         f'<mxCell style="endArrow=none;startArrow=none;strokeColor={colour};strokeWidth=3;'
                         f'fontSize=10;" edge="1" parent="1" source="r{upper + 1}" target="r{lower + 1}">'
                         '<mxGeometry relative="1" as="geometry"/></mxCell></object>')
        pages += [f'  <diagram id="network-{n + 1}" name="{xml_attr(size.label)}">',
                  ('    <mxGraphModel grid="1" gridSize="10" guides="1" tooltips="1" connect="1" arrows="0" '
                  'fold="1" page="0" pageScale="1" math="0" shadow="0">'),
                  "      <root>", *cells, "      </root>", "    </mxGraphModel>", "  </diagram>"]
    return pages
