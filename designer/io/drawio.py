"""An uncompressed diagrams.net (draw.io) file of the fabric, to edit for review decks.

The layout is the canvas's: tiers as rows with the cores on top, then spines, leaves and the
servers at the bottom; within a row, devices run pod by pod (SU by SU). Small fabrics get
one shape per switch and per server; larger ones one shape per tier of each pod or SU (and
plane), labelled with its device count, as the canvas shows them when zoomed out. Links
become one edge per bundle (all links between the same two shapes), labelled with the link
count and speed, wider the more links it carries.

Every shape is an `object` carrying the device's properties (role, model, plane, pod, count),
which draw.io shows under Edit Data. Labels are plain text (not HTML), so a name can never
turn into markup.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from designer import __version__
from designer.io.export_source import ExportSource
from designer.io.markup import xml_attr
from designer.io.network_drawio import network_pages

MAX_SHAPES = 300                 # above this many devices in the view, draw one shape per group
ROW_ORDER = ("core", "spine", "leaf", "server")
ROW_TITLES = {"core": "Core", "spine": "Spine", "leaf": "Leaf", "server": "Servers"}
FILL = {"core": "#fde0c5", "spine": "#d5e8d4", "leaf": "#dae8fc", "server": "#f5f5f5"}
STROKE = {"core": "#d79b00", "spine": "#82b366", "leaf": "#6c8ebf", "server": "#666666"}
LINK = {"infiniband": "#2e7d32", "ethernet": "#1565c0"}
ROW_PITCH = 170
# (aggregated?, server?) -> (width, height, gap): servers are drawn narrower, as on the canvas
SIZE = {(False, False): (110, 44, 14), (False, True): (84, 36, 8), (True, False): (170, 60, 40),
        (True, True): (170, 60, 40)}


@dataclass
class Shape:
    key: tuple[Any, ...]
    role: str
    label: str
    order: tuple[Any, ...]
    props: dict[str, Any] = field(default_factory=dict)
    count: int = 0
    x: float = 0.0
    y: float = 0.0
    w: float = 0.0
    h: float = 0.0
    id: str = ""


def _plural(role: str, n: int) -> str:
    words = {"core": ("core switch", "core switches"), "spine": ("spine switch", "spine switches"),
             "leaf": ("leaf switch", "leaf switches"), "server": ("server", "servers")}
    return f"{n:,} {words[role][n != 1]}"


def _shapes(src: ExportSource) -> tuple[dict[tuple[Any, ...], Shape], dict[str, tuple[Any, ...]], bool]:
    """Shapes by key, and the shape key of every graph node in the view."""
    aggregated = len(src.switches) + len(src.servers) > MAX_SHAPES
    g = src.graph
    planes = src.resolved.planes
    noun = src.column_noun
    shapes: dict[tuple[Any, ...], Shape] = {}
    of_node: dict[str, tuple[Any, ...]] = {}
    servers_of: dict[tuple[Any, ...], set[int]] = defaultdict(set)
    for node, d in g.nodes(data=True):
        if not src.in_view(node):
            continue
        role = "server" if d["role"] == "nic" else d["role"]
        if role == "server":
            key: tuple[Any, ...] = ("server", d["pod"]) if aggregated else ("server", d["server"])
        elif aggregated:
            key = (role, d["plane"], d["pod"])
        else:
            key = (role, node)
        of_node[node] = key
        shape = shapes.get(key)
        if shape is None:
            if role == "server":
                order: tuple[Any, ...] = (d["pod"],) if aggregated else (d["server"],)
                props = {"role": "server", "model": src.server_model.id}
            else:
                order = (d["pod"], d["plane"], d["index"])
                props = {"role": role, "model": d["model"], "plane": d["plane"] + 1}
            if role in ("leaf", "server") or (role == "spine" and src.plan.tiers == 3):
                props["pod"] = d["pod"] + 1  # two-tier spines serve every pod
            shape = shapes[key] = Shape(key, role, "", order, props)
        if role == "server":
            servers_of[key].add(d["server"])
        else:
            shape.count += 1
    for key, members in servers_of.items():
        shapes[key].count = len(members)
    for key, shape in shapes.items():
        shape.props["count"] = shape.count if aggregated else 1
        if not aggregated:
            shape.label = (src.host(key[1]) if shape.role == "server"
                           else f"{key[1]}\n{src.switch_model(shape.props['model']).name}")
            continue
        where = []
        if "pod" in shape.props and (src.columns > 1 or src.rail_optimized):
            where.append(f"{noun} {shape.props['pod']}")
        if shape.role != "server" and planes > 1:
            where.append(f"plane {shape.props['plane']}")
        shape.label = _plural(shape.role, shape.count) + (f"\n{', '.join(where)}" if where else "")
    return shapes, of_node, aggregated


def _place(shapes: dict[tuple[Any, ...], Shape], aggregated: bool) -> list[tuple[str, float, float, float]]:
    """Give every shape its place and size; returns the rows' (title, x, y, height) for their labels."""
    rows = {role: sorted((s for s in shapes.values() if s.role == role), key=lambda s: s.order)
            for role in ROW_ORDER}
    rows = {role: items for role, items in rows.items() if items}
    if not rows:
        return []

    def pitch(role: str) -> float:
        w, _, gap = SIZE[(aggregated, role == "server")]
        return w + gap

    widest = max(len(items) * pitch(role) for role, items in rows.items())
    titles: list[tuple[str, float, float, float]] = []
    for r, (role, items) in enumerate(rows.items()):
        w, h, _ = SIZE[(aggregated, role == "server")]
        y = 80 + r * ROW_PITCH
        x0 = 140 + (widest - len(items) * pitch(role)) / 2
        titles.append((ROW_TITLES[role], 10.0, y, h))
        for i, shape in enumerate(items):
            shape.x, shape.y, shape.w, shape.h = x0 + i * pitch(role), y, w, h
    return titles


def drawio(src: ExportSource) -> str:
    shapes, of_node, aggregated = _shapes(src)
    titles = _place(shapes, aggregated)
    ordered = sorted(shapes.values(), key=lambda s: (ROW_ORDER.index(s.role), s.order))
    for i, shape in enumerate(ordered):
        shape.id = f"d{i + 1}"
    bundles: dict[tuple[tuple[Any, ...], tuple[Any, ...]], list[Any]] = defaultdict(lambda: [0, set(), ""])
    for lower, upper, d in src.edges():
        a, b = of_node[lower], of_node[upper]
        if a == b:
            continue  # links inside one aggregated shape (none in a Clos) are not drawn
        bundle = bundles[(a, b)]
        bundle[0] += 1
        bundle[1].add(d["gbps"])
        bundle[2] = d["tier"]
    colour = LINK.get(src.family, "#555555")
    title = f"{src.name} ({src.view_label})"
    cells = ['        <mxCell id="0"/>', '        <mxCell id="1" parent="0"/>',
             f'        <mxCell id="title" value="{xml_attr(title)}" style="text;fontSize=18;fontStyle=1;'
             'align=left;verticalAlign=middle;" vertex="1" parent="1">'
             '<mxGeometry x="10" y="10" width="900" height="40" as="geometry"/></mxCell>']
    for k, (text, x, y, h) in enumerate(titles):
        cells.append(f'        <mxCell id="row{k + 1}" value="{xml_attr(text)}" style="text;fontSize=13;fontStyle=1;'
                     f'align=left;verticalAlign=middle;" vertex="1" parent="1"><mxGeometry x="{x:g}" y="{y:g}" '
                     f'width="110" height="{h}" as="geometry"/></mxCell>')
    for shape in ordered:
        props = "".join(f' {name}="{xml_attr(value)}"' for name, value in shape.props.items())
        style = (f"rounded=1;whiteSpace=wrap;fillColor={FILL[shape.role]};strokeColor={STROKE[shape.role]};"
                 f"fontSize={12 if aggregated else 10 if shape.role == 'server' else 11};")
        cells.append(f'        <object id="{shape.id}" label="{xml_attr(shape.label)}"{props}>'
                     f'<mxCell style="{style}" vertex="1" parent="1"><mxGeometry x="{shape.x:g}" y="{shape.y:g}" '
                     f'width="{shape.w:g}" height="{shape.h:g}" as="geometry"/></mxCell></object>')
    for k, ((a, b), (count, speeds, tier)) in enumerate(bundles.items()):
        speed = "/".join(f"{s}G" for s in sorted(speeds))
        label = f"{count:,} x {speed}" if count > 1 else ""
        width = min(8.0, 1.0 + math.log2(count))
        style = f"endArrow=none;startArrow=none;strokeColor={colour};strokeWidth={width:.2g};fontSize=10;"
        cells.append(f'        <object id="e{k + 1}" label="{xml_attr(label)}" tier="{xml_attr(tier)}" links="{count}">'
                     f'<mxCell style="{style}" edge="1" parent="1" source="{shapes[a].id}" target="{shapes[b].id}">'
                     '<mxGeometry relative="1" as="geometry"/></mxCell></object>')
    return "\n".join([
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<mxfile host="Fabric Designer" agent="Fabric Designer {xml_attr(__version__)}" compressed="false">',
        f'  <diagram id="fabric" name="{xml_attr(src.view_label)}">',
        '    <mxGraphModel grid="1" gridSize="10" guides="1" tooltips="1" connect="1" arrows="0" fold="1" '
        'page="0" pageScale="1" math="0" shadow="0">',
        "      <root>",
        *cells,
        "      </root>",
        "    </mxGraphModel>",
        "  </diagram>",
        *network_pages(src),   # a page per network beside the compute fabric (none: nothing added)
        "</mxfile>",
    ]) + "\n"
