"""containerlab topology (`*.clab.yml`) of an Ethernet design, to emulate it before purchase.

Format (containerlab docs/manual/topo-def-file.md): `name`, then `topology.nodes.<name>` with
`kind` and `image`, and `topology.links` with `endpoints: ["a:eth1", "b:eth1"]`.

- Switches become nodes of the chosen profile: SONiC (`sonic-vs`, data ports eth1, eth2, ...
  mapped to Ethernet0, Ethernet4, ...) or NVIDIA Cumulus VX (`nvidia_cumulusvx`, ports swpN).
  Kind and image can be overridden; containerlab does not ship the images.
- A switch's port N is interface N of its profile, so the lab is wired like the cabling plan.
- Servers are left out unless asked for; then each becomes a Linux node whose NIC port K is
  ethK. Without servers, the leaves' server-facing ports stay unwired.
- Large fabrics need large hosts: `--view su:N` exports one SU or pod with the switches above it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from designer import __version__
from designer.io.export_source import ExportError, ExportSource, safe_id
from designer.io.markup import one_line, yaml_str


@dataclass(frozen=True)
class Profile:
    label: str
    kind: str
    image: str
    interface: str      # interface name prefix; port N is f"{interface}{N}"


PROFILES = {
    "sonic": Profile("SONiC (containerized sonic-vs)", "sonic-vs", "docker-sonic-vs:latest", "eth"),
    "cumulus": Profile("NVIDIA Cumulus VX", "nvidia_cumulusvx", "cumulus-vx:latest", "swp"),
}
LINUX_KIND = "linux"
LINUX_IMAGE = "alpine:latest"


def lab_name(text: str) -> str:
    """A lab name containerlab accepts (it prefixes every container with it)."""
    name = re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-_").lower()
    if len(name) > 60:
        name = name[:60].rsplit("-", 1)[0]
    return name or "fabric"


def containerlab_yaml(src: ExportSource) -> str:
    opts = src.options
    profile = PROFILES.get(opts.clab_profile)
    if profile is None:
        raise ExportError(f"unknown containerlab profile '{opts.clab_profile}' (use {', '.join(PROFILES)})")
    kind, image = opts.clab_kind or profile.kind, opts.clab_image or profile.image
    server_image = opts.clab_server_image or LINUX_IMAGE
    g = src.graph
    nodes = g.nodes
    from designer.io.network_clab import network_lab  # the other networks: loaded when written

    networks = network_lab(src, kind, image, profile.interface)   # the other networks (none: nothing)
    lines = [f"# containerlab topology of \"{one_line(src.name, 120)}\" ({src.view_label})",
             f"# Written by Fabric Designer {__version__}. Switches: {profile.label}; kind and image "
             "are parameters of the export (--clab-kind, --clab-image).",
             "# A switch's port N is its interface N, as on the cabling plan."
             + ("" if opts.clab_servers else " Servers are left out (--clab-servers adds them as Linux nodes)."),
             *networks.comments,
             f"name: {yaml_str(lab_name(src.name))}", "", "topology:", "  nodes:"]
    switch_names = {}
    for sw, d in src.switches:
        name = safe_id(sw)
        switch_names[sw] = name
        lines.append(f"    {yaml_str(name)}:")
        lines.append(f"      kind: {yaml_str(kind)}")
        lines.append(f"      image: {yaml_str(image)}")
        lines.append(f"      labels: {{role: {yaml_str(d['role'])}, model: {yaml_str(d['model'])}}}")
    if opts.clab_servers:
        for server in src.servers:
            lines.append(f"    {yaml_str(src.host(server))}:")
            lines.append(f"      kind: {LINUX_KIND}")
            lines.append(f"      image: {yaml_str(server_image)}")
            lines.append("      labels: {role: \"server\"}")
    lines += networks.nodes
    lines.append("")
    lines.append("  links:")
    count = 0
    for lower, upper, d in src.edges():
        a = nodes[lower]
        if a["role"] == "nic":
            if not opts.clab_servers:
                continue
            end_a = f"{src.host(a['server'])}:eth{a['port'] + 1}"
        else:
            end_a = f"{switch_names[lower]}:{profile.interface}{d['pa']}"
        end_b = f"{switch_names[upper]}:{profile.interface}{d['pb']}"
        lines.append(f"    - endpoints: [{yaml_str(end_a)}, {yaml_str(end_b)}]")
        count += 1
    lines += networks.links
    count += len(networks.links)
    if count == 0:
        lines[-1] = "  links: []"
    return "\n".join(lines) + "\n"
