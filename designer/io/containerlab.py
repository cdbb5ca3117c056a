"""containerlab topology (`*.clab.yml`) of an Ethernet design: a lab that comes up routed.

Format (containerlab docs/manual/topo-def-file.md, checked against its schemas/clab.schema.json):
`name`, `mgmt`, then `topology.nodes.<name>` with `kind`, `image`, `labels` and a startup
configuration, and `topology.links` with `endpoints: ["a:eth1", "b:eth1"]`.

- Ports follow the image's own port map. SONiC (`sonic-vs`, `docker-sonic-vs`): the stock image
  runs HwSKU Force10-S6000, whose lane map (device/virtual/x86_64-kvm_x86_64-r0/Force10-S6000/
  lanemap.ini in sonic-buildimage) gives 32 front-panel ports, container interface ethK being
  SONiC port Ethernet{4(K-1)}. A switch's ports in the view are numbered onto eth1, eth2, ... in
  the order of their design port numbers, and each link's comment gives the design ports. Where
  a switch needs more than 32, the parallel links between two nodes become one lab link (the
  fabric's reachability and routing, not its width), and a switch with more than 32 neighbours
  is refused. Another image named with --clab-image keeps every link; its port map must hold
  them. NVIDIA Cumulus VX (`nvidia_cumulusvx`): design port N is swpN, as the kind's
  documentation asks and as Cumulus names a switch's ports.
- Every switch gets the routing of `designer.io.frr` (the one source of it): a loopback
  (10.255.0.0/16, in node order), a private 4-byte ASN of its own (4200000000 + its number), a
  /31 on each switch-to-switch link (from 10.0.0.0, lower switch on the even address) and BGP
  unnumbered to every fabric neighbour, redistributing connected routes with multipath over
  differing AS paths. SONiC takes it as `exec` commands (the `config`
  CLI, then FRR's vtysh) once its configuration database is up; Cumulus as NVUE commands
  (Cumulus Linux 5.x up to 5.14, where switches read `enable on`) in an embedded startup-config.
- `mgmt` names the lab's management network and a subnet that holds every node.
- The Cumulus VX image name is a placeholder: NVIDIA no longer publishes one, and the file says
  so where the image is named.
- Servers are left out unless asked for; then each becomes a Linux node whose NIC port K is
  ethK. Without servers, the leaves' server-facing ports stay unwired.
- Large fabrics need large hosts: `--view su:N` exports one SU or pod with the switches above it.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

from designer import __version__
from designer.io.export_source import ExportError, ExportSource, safe_id
from designer.io.frr import RoutedSwitch, bgp_commands, routing_plan
from designer.io.markup import one_line, yaml_str
from designer.io.network_clab import Endpoint, network_lab


@dataclass(frozen=True)
class Profile:
    label: str
    kind: str
    image: str
    interface: str          # the container's interface prefix in link endpoints
    ports: int              # front-panel ports of the stock image's port map; 0: not limited here
    compact: bool           # the view's ports are numbered onto 1..n (True) or keep their design number
    image_note: str         # what the file says about the image


SONIC_VS_PORTS = 32
PROFILES = {
    "sonic": Profile("SONiC (containerized sonic-vs)", "sonic-vs", "docker-sonic-vs:latest", "eth", SONIC_VS_PORTS,
                     True, "docker-sonic-vs from sonic-buildimage (HwSKU Force10-S6000: eth1-eth32 are "
                           "Ethernet0-Ethernet124)"),
    "cumulus": Profile("NVIDIA Cumulus VX", "nvidia_cumulusvx", "cumulus-vx:latest", "swp", 0, False,
                       "PLACEHOLDER: cumulus-vx:latest is not a published image; NVIDIA no longer offers Cumulus VX "
                       "for download. Build one from a Cumulus VX qcow2 (srl-labs/vrnetlab) and name it with "
                       "--clab-image"),
}
LINUX_KIND = "linux"
LINUX_IMAGE = "alpine:latest"


def lab_name(text: str) -> str:
    """A lab name containerlab accepts (it prefixes every container with it)."""
    name = re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-_").lower()
    if len(name) > 60:
        name = name[:60].rsplit("-", 1)[0]
    return name or "fabric"


def sonic_port(k: int) -> str:
    """docker-sonic-vs's SONiC port behind container interface ethK (Force10-S6000's lane map)."""
    return f"Ethernet{4 * (k - 1)}"


class _Lab:
    """The lab's switches, links, port map and addresses, before they are written."""

    def __init__(self, profile: Profile, custom_image: bool):
        self.profile = profile
        self.switches: list[tuple[str, dict[str, str]]] = []
        self.links: list[tuple[Endpoint, Endpoint]] = []
        self.ports: dict[str, dict[int, int]] = {}
        self.custom_image = custom_image
        self.bundled = 0            # links left out because their pair already has one (see number_ports)

    def _number(self) -> int:
        """Number every switch's ports; the most ports one switch uses."""
        used: dict[str, set[int]] = defaultdict(set)
        for end in (e for link in self.links for e in link):
            if end[2]:
                used[end[0]].add(end[1])
        for name, _ in self.switches:
            design = sorted(used.get(name, ()))
            self.ports[name] = ({p: k for k, p in enumerate(design, start=1)} if self.profile.compact
                                else {p: p for p in design})
        return max((len(p) for p in self.ports.values()), default=0)

    def number_ports(self) -> None:
        """Number the ports onto the image's port map. Where a switch needs more ports than the
        stock image has, the parallel links between two nodes become one lab link: the lab keeps
        the fabric's reachability and routing, not its width (the file says so)."""
        limit = self.profile.ports
        most = self._number()
        if not limit or self.custom_image or most <= limit:
            return
        seen: set[tuple[str, str]] = set()
        kept = []
        for a, b in self.links:
            pair = (a[0], b[0]) if a[0] <= b[0] else (b[0], a[0])
            if pair not in seen:
                seen.add(pair)
                kept.append((a, b))
        self.bundled = len(self.links) - len(kept)
        self.links = kept
        most = self._number()
        if most > limit:
            name = max(self.ports, key=lambda n: len(self.ports[n]))
            raise ExportError(f"{name} has {most} neighbours in this lab, and {self.profile.image}'s port map "
                              f"(HwSKU Force10-S6000) has {limit} ports: export a smaller view (--view su:N or "
                              f"plane:N), use --clab-profile cumulus, or name an image whose port map holds "
                              f"{most} ports with --clab-image")

    def interface(self, end: Endpoint) -> str:
        node, port, switch = end
        return f"{node}:{self.profile.interface}{self.ports[node][port]}" if switch else f"{node}:eth{port}"

    def os_port(self, node: str, port: int) -> str:
        k = self.ports[node][port]
        return sonic_port(k) if self.profile.compact else f"{self.profile.interface}{k}"


def _collect(src: ExportSource, profile: Profile, custom_image: bool) -> tuple[_Lab, list[str]]:
    lab = _Lab(profile, custom_image)
    nodes = src.graph.nodes
    names: dict[str, str] = {}
    for sw, d in src.switches:
        names[sw] = safe_id(sw)
        lab.switches.append((names[sw], {"role": d["role"], "model": d["model"]}))
    for lower, upper, d in src.edges():
        a = nodes[lower]
        if a["role"] == "nic":
            if not src.options.clab_servers:
                continue
            end_a: Endpoint = (src.host(a["server"]), a["port"] + 1, False)
        else:
            end_a = (names[lower], d["pa"], True)
        lab.links.append((end_a, (names[upper], d["pb"], True)))
    networks = network_lab(src)   # the other networks (none: nothing)
    lab.switches += [(name, {"role": role, "model": model, "network": network})
                     for name, role, model, network in networks.switches]
    lab.links += networks.links
    lab.number_ports()
    return lab, networks.comments


def _addresses(lab: _Lab) -> dict[str, RoutedSwitch]:
    """Each switch's loopback, ASN and fabric ports, from the one routing plan (designer.io.frr)."""
    links = [((a[0], a[1]), (b[0], b[1])) for a, b in lab.links if a[2] and b[2]]
    return routing_plan([name for name, _ in lab.switches], links)


def _sonic_exec(lab: _Lab, sw: RoutedSwitch) -> list[str]:
    """The SONiC config CLI and FRR commands that make the switch routed, as one exec."""
    wait = ("for i in $(seq 150); do [ -n \"$(sonic-db-cli CONFIG_DB KEYS 'PORT|*' 2>/dev/null)\" ] && break; "
            "sleep 2; done")
    steps = [wait, "config loopback add Loopback0", f"config interface ip add Loopback0 {sw.loopback}/32"]
    for p in sw.ports:
        iface = lab.os_port(sw.name, p.port)
        steps += [f"config interface ip add {iface} {p.address}",
                  f"config interface ipv6 enable use-link-local-only {iface}", f"config interface startup {iface}"]
    vtysh = ["configure terminal", *bgp_commands(sw, lambda port: lab.os_port(sw.name, port))]
    steps.append("vtysh " + " ".join(f"-c '{c}'" for c in vtysh))
    return ['bash -c "' + "; ".join(s.replace('"', '\\"') for s in steps) + '"']


def _nvue(lab: _Lab, sw: RoutedSwitch) -> list[str]:
    """NVUE commands (Cumulus Linux 5.x) for a routed switch with BGP unnumbered: the routing
    plan of designer.io.frr in NVUE's words (NVUE writes FRR's configuration from them)."""
    out = [f"nv set system hostname {sw.name}", f"nv set interface lo ip address {sw.loopback}/32",
           f"nv set router bgp autonomous-system {sw.asn}", f"nv set router bgp router-id {sw.loopback}",
           "nv set vrf default router bgp path-selection multipath aspath-ignore on",
           "nv set vrf default router bgp address-family ipv4-unicast redistribute connected enable on"]
    for p in sw.ports:
        iface = lab.os_port(sw.name, p.port)
        out += [f"nv set interface {iface} ip address {p.address}",
                f"nv set vrf default router bgp neighbor {iface} remote-as external"]
    out.append("nv config apply -y")
    return out


def _mgmt_subnet(nodes: int) -> str:
    # containerlab's default management network is 172.20.20.0/24; a larger lab needs more room.
    return "172.20.20.0/24" if nodes <= 250 else "172.20.0.0/16" if nodes <= 65_000 else "172.16.0.0/12"


def containerlab_yaml(src: ExportSource) -> str:
    opts = src.options
    profile = PROFILES.get(opts.clab_profile)
    if profile is None:
        raise ExportError(f"unknown containerlab profile '{opts.clab_profile}' (use {', '.join(PROFILES)})")
    kind, image = opts.clab_kind or profile.kind, opts.clab_image or profile.image
    server_image = opts.clab_server_image or LINUX_IMAGE
    lab, network_comments = _collect(src, profile, bool(opts.clab_image))
    routed = _addresses(lab)
    name = lab_name(src.name)
    servers = src.servers if opts.clab_servers else []
    image_line = (f"# Switch image: {one_line(image, 120)} (named with --clab-image; its port map must hold the "
                  "ports below)"
                  if opts.clab_image else f"# Switch image: {profile.image_note}.")
    lines = [f"# containerlab topology of \"{one_line(src.name, 120)}\" ({src.view_label})",
             f"# Written by Fabric Designer {__version__}. Switches: {profile.label}; kind and image "
             "are parameters of the export (--clab-kind, --clab-image).",
             image_line,
             ("# Ports: a switch's ports are numbered onto the image's interfaces in design port order; each "
              "link's comment gives the design ports." if profile.compact else
              "# Ports: a switch's port N is its interface N, as on the cabling plan."),
             *([f"# Bundles: {lab.bundled:,} parallel links are left out, so that every switch fits "
                f"{profile.image}'s {profile.ports} ports: each pair of connected nodes has one lab link (the "
                "fabric's reachability and routing, not its width)."] if lab.bundled else []),
             "# Routing: loopbacks 10.255.0.0/16, a /31 per switch-to-switch link from 10.0.0.0, one private "
             "ASN per switch, BGP unnumbered to every fabric neighbour.",
             *([] if opts.clab_servers else ["# Servers are left out (--clab-servers adds them as Linux nodes)."]),
             *network_comments,
             *([] if kind in ("sonic-vs", "nvidia_cumulusvx") else
               [f"# No startup configuration: kind {one_line(kind, 60)} is neither sonic-vs nor nvidia_cumulusvx."]),
             f"name: {yaml_str(name)}", "",
             "mgmt:", f"  network: {yaml_str(name + '-mgmt')}",
             f"  ipv4-subnet: {_mgmt_subnet(len(lab.switches) + len(servers))}", "",
             "topology:", "  nodes:"]
    for sw, labels in lab.switches:
        lines.append(f"    {yaml_str(sw)}:")
        lines.append(f"      kind: {yaml_str(kind)}")
        lines.append(f"      image: {yaml_str(image)}"
                     + ("  # PLACEHOLDER: see the note at the top" if image == PROFILES["cumulus"].image else ""))
        lines.append("      labels: {" + ", ".join(f"{k}: {yaml_str(v)}" for k, v in labels.items()) + "}")
        if kind == "sonic-vs":
            lines.append("      exec:")
            lines += [f"        - {yaml_str(cmd)}" for cmd in _sonic_exec(lab, routed[sw])]
        elif kind == "nvidia_cumulusvx":
            lines.append("      startup-config: |")
            lines += [f"        {cmd}" for cmd in _nvue(lab, routed[sw])]
    for server in servers:
        lines.append(f"    {yaml_str(src.host(server))}:")
        lines.append(f"      kind: {LINUX_KIND}")
        lines.append(f"      image: {yaml_str(server_image)}")
        lines.append("      labels: {role: \"server\"}")
    lines.append("")
    lines.append("  links:")
    for a, b in lab.links:
        design = ", ".join(f"{node} port {port}" for node, port, switch in (a, b) if switch)
        lines.append(f"    - endpoints: [{yaml_str(lab.interface(a))}, {yaml_str(lab.interface(b))}]"
                     + (f"  # {design}" if profile.compact else ""))
    if not lab.links:
        lines[-1] = "  links: []"
    return "\n".join(lines) + "\n"
