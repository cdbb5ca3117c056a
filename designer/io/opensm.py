"""The subnet manager's files for a design: what OpenSM needs to route the fabric with ftree.

`fabric-designer export --format opensm` writes a folder:

- `root_guids.conf`: the node GUIDs of the top tier's switches (`--root_guid_file`);
- `cn_guids.conf`: the port GUIDs of the compute nodes' HCA ports (`--cn_guid_file`);
- `io_guids.conf`: the port GUIDs of the CAs that are not compute nodes, the SHARP aggregation
  node behind each switch with in-network reduction (`--io_guid_file`);
- `ib-node-name-map`: every GUID with its name (`node_name_map_name`, ib-node-name-map syntax);
- `opensm.conf`: a fragment with the routing engine and those files, by relative name, so
  `opensm -F opensm.conf` run in the folder reads them.

Why the aggregation nodes are listed: OpenSM's ftree treats every CA it is not told about as a
compute node and the switch it hangs from as a leaf, so an aggregation node on a spine makes
the spine a leaf and ftree gives up ("cannot build lid matrices"), falling back to minhop.
Listed as I/O nodes, they are routed to but not used to rank the tree.

The GUIDs are those of the design's ibnetdiscover export (designer/io/ibnetdiscover.py), from
the same digests of the device names. A CA's port GUID is its node GUID plus the port number,
as the simulator (ibsim) and ConnectX adapters number them; on hardware, the adapters' own
GUIDs (from `ibstat`) replace the design's.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from designer.io.export_source import ExportSource
from designer.io.ibnetdiscover import _guid, _nic_names
from designer.io.markup import one_line
from designer.model.intent.design import FabricDesign
from designer.model.intent.perf_settings import DEFAULT_ROUTING_ENGINE, ROUTING_ENGINES
from designer.model.topology.derive import Derived
from designer.model.topology.wiring import Wiring

ENGINES = ROUTING_ENGINES   # OpenSM's routing engines, as the design may name them
ROOT_FILE, CN_FILE, IO_FILE = "root_guids.conf", "cn_guids.conf", "io_guids.conf"
NAME_MAP, CONF = "ib-node-name-map", "opensm.conf"


@dataclass(frozen=True)
class SubnetGuids:
    """The GUIDs the subnet manager's files list (hex strings, 16 digits, no 0x)."""

    roots: tuple[str, ...]            # top-tier switches' node GUIDs
    compute: tuple[str, ...]          # compute HCA ports' port GUIDs
    io: tuple[str, ...]               # other CA ports (aggregation nodes): port GUIDs
    names: tuple[tuple[str, str], ...]   # (node GUID, name) of every device
    compute_nodes: tuple[str, ...] = ()      # compute HCAs' node GUIDs, in rank order
    placement: tuple[tuple[int, int], ...] = ()   # their (server, NIC port on it)
    nic_gbps: float = 0.0


def _plus(guid: str, port: int) -> str:
    return f"{(int(guid, 16) + port) % 2**64:016x}"


def subnet_guids(derived: Derived, host_name: object = None) -> SubnetGuids:
    """The GUIDs of the design's fabric, computed as the ibnetdiscover export computes them."""
    r = derived.resolved
    if r.family != "infiniband":
        raise ValueError(f"OpenSM routes InfiniBand fabrics; this design is {r.technology.id}")
    w = Wiring(derived.design, r, derived.plan)
    prefix = f"{derived.design.meta.name}/"

    def digest(name: str) -> str:
        return hashlib.blake2b(f"{prefix}{name}".encode(), digest_size=8).hexdigest()

    switches = [v for v in range(w.n_switches) if w.alive(v)]
    top = max((w.level(v) for v in switches), default=0)
    sw_guid = {v: digest(w.name(v)) for v in switches}
    roots = tuple(sw_guid[v] for v in switches if w.level(v) == top)
    model = {"leaf": r.leaf_switch, "spine": r.spine_switch, "core": r.core_switch}
    aggregators = [_guid(f"sharp/{sw_guid[v]}") for v in switches if model[w.role(v)].in_network_reduction]
    name_of = host_name if callable(host_name) else (lambda server: f"srv-{server + 1}")
    nic_names = _nic_names(w)
    hosts = [str(name_of(server)) for server in range(w.endpoints // w.rails)]
    compute, names = [], [(sw_guid[v], w.name(v)) for v in switches]
    nodes: list[str] = []
    placement: list[tuple[int, int]] = []
    for node in range(w.n_switches, w.n):
        if node in w.removed:
            continue
        idx = node - w.n_switches
        plane, within = divmod(idx, w.endpoints)
        server, rail = divmod(within, w.rails)
        g = digest(nic_names[idx])
        compute.append(_plus(g, 1))
        nodes.append(g)
        placement.append((server, plane * w.rails + rail))
        names.append((g, f"{hosts[server]} mlx5_{plane * w.rails + rail}"))
    names += [(g, "Mellanox Technologies Aggregation Node") for g in aggregators]
    return SubnetGuids(roots, tuple(compute), tuple(_plus(g, 1) for g in aggregators), tuple(names),
                       tuple(nodes), tuple(placement), float(r.link_gbps))


def _guid_file(title: str, guids: tuple[str, ...]) -> str:
    return f"# {title}\n" + "".join(f"0x{g}\n" for g in guids)


def conf_fragment(engine: str = "ftree", io_nodes: bool = True) -> str:
    """The opensm.conf lines the design needs; file names relative to the folder. Without I/O
    nodes the I/O file is not named: ftree refuses an I/O file that lists none."""
    if engine not in ENGINES:
        raise ValueError(f"unknown routing engine '{engine}' (OpenSM has {', '.join(ENGINES)})")
    io_line = (f"io_guid_file {IO_FILE}" if io_nodes else
               f"# io_guid_file {IO_FILE}: no I/O nodes (ftree refuses an empty file)")
    return "\n".join([
        "# OpenSM settings for this fabric; run `opensm -F opensm.conf` in this folder,",
        "# or merge these lines into /etc/opensm/opensm.conf with absolute file names.",
        f"routing_engine {engine}",
        f"root_guid_file {ROOT_FILE}",
        f"cn_guid_file {CN_FILE}",
        io_line,
        f"node_name_map_name {NAME_MAP}",
        "# One LID per port: ftree balances on the base LIDs.",
        "lmc 0",
        "",
    ])


def opensm_files_of(derived: Derived, engine: str | None = None, host_name: object = None) -> dict[str, str]:
    """{file name: text} of the subnet manager's folder, routed by `engine` (None: the one the
    design names, else ftree)."""
    engine = engine or design_engine(derived.design)
    g = subnet_guids(derived, host_name)
    title = one_line(derived.design.meta.name, 120)
    names = "".join(f'0x{guid} "{one_line(name, 60).replace(chr(34), chr(39))}"\n' for guid, name in g.names)
    return {
        ROOT_FILE: _guid_file(f"Top-tier switches of \"{title}\" (node GUIDs): ftree's roots", g.roots),
        CN_FILE: _guid_file(f"Compute-node HCA ports of \"{title}\" (port GUIDs)", g.compute),
        IO_FILE: _guid_file(f"Other CA ports of \"{title}\" (SHARP aggregation nodes; port GUIDs): "
                            "routed to, not ranked as compute nodes", g.io),
        NAME_MAP: f"# Node names of \"{title}\" (ib-node-name-map)\n" + names,
        CONF: conf_fragment(engine, bool(g.io)),
    }


def opensm_files(src: ExportSource) -> dict[str, str]:
    """The export's folder (the design's routing engine, ftree unless it names another), with the
    export's host names."""
    return opensm_files_of(src.derived, None, src.host)


def design_engine(design: FabricDesign) -> str:
    """The routing engine the design names, else ftree."""
    return design.performance.routing_engine or DEFAULT_ROUTING_ENGINE
