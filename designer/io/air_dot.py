"""The topology in NVIDIA Air's DOT syntax, for building the fabric as a digital twin in Air.

Format (NVIDIA Air documentation, "Custom Topology" > "Custom Topologies with DOT Files",
docs.nvidia.com/networking-ethernet-software/nvidia-air/Custom-Topology/):

- one `graph "Name" { ... }`;
- a node per line: `"leaf01" [ function="leaf" os="cumulus-vx-5.16.1" memory="4096" cpu="2" ]`,
  every attribute a quoted string (`memory` in MB, `storage` in GB, `cpu` a count);
- a link per line: `"leaf01":"swp31" -- "spine01":"swp1"`, node and port each quoted.

Switches are Cumulus Linux nodes, their ports named as Cumulus names them: design port N is
swpN (the names `designer.io.frr` configures). A server's NIC port K is ethK, as on Air's Ubuntu
images. The VM sizes are those of the documentation's own example (a switch 2 CPUs and 4096 MB,
a server 2 CPUs and 2048 MB); `os` names the newest Cumulus VX and Ubuntu images the
documentation lists. Air builds one VM per node: a large fabric belongs in a view (`--view su:N`).
The file's own comment, on the first lines, says what was written; the syntax is held to the
documentation's by tests/test_export_air_dot.py.
"""

from __future__ import annotations

from collections.abc import Iterator

from designer import __version__
from designer.io.export_source import ExportSource, safe_id
from designer.io.frr import swp
from designer.io.markup import dot_str, one_line

SWITCH_OS = "cumulus-vx-5.16.1"
SERVER_OS = "generic/ubuntu2404"
SWITCH_VM = {"memory": "4096", "cpu": "2"}
SERVER_VM = {"memory": "2048", "cpu": "2"}
# Air's `function` names the node's place in the fabric; ours are the design's tiers.
FUNCTIONS = {"leaf": "leaf", "spine": "spine", "core": "superspine"}


def _node(name: str, attrs: dict[str, str]) -> str:
    return f"  {dot_str(name)} [ " + " ".join(f"{k}={dot_str(v)}" for k, v in attrs.items()) + " ]\n"


def air_dot(src: ExportSource) -> str:
    return "".join(air_dot_lines(src))


def air_dot_lines(src: ExportSource) -> Iterator[str]:
    nodes = src.graph.nodes
    names = {sw: safe_id(sw) for sw, _ in src.switches}
    yield (f"/* NVIDIA Air topology of \"{one_line(src.name, 120).replace('*/', '* /')}\" ({src.view_label}), "
           f"written by Fabric Designer {__version__}. Switches: Cumulus VX, design port N is swpN; "
           "servers: Ubuntu, NIC port K is ethK. */\n")
    yield f"graph {dot_str(src.name)} {{\n"
    for sw, d in src.switches:
        role = str(d["role"])
        yield _node(names[sw], {"function": FUNCTIONS.get(role, role), "os": SWITCH_OS, **SWITCH_VM})
    for server in src.servers:
        yield _node(src.host(server), {"function": "server", "os": SERVER_OS, **SERVER_VM})
    for lower, upper, d in src.edges():
        a = nodes[lower]
        if a["role"] == "nic":
            end_a = f"{dot_str(src.host(a['server']))}:{dot_str('eth' + str(int(a['port']) + 1))}"
        else:
            end_a = f"{dot_str(names[lower])}:{dot_str(swp(int(d['pa'])))}"
        yield f"  {end_a} -- {dot_str(names[upper])}:{dot_str(swp(int(d['pb'])))}\n"
    yield "}\n"
