"""The user's corrections of an inferred design: server model, servers, group size, rails, spines.

`fabric-designer import --set nodes_per_su=32` and the window's Inferred design dialog both call
`apply_corrections`; the audit then reads the capture against the corrected design. A corrected
figure replaces its fact, marked "set", with the inferred value kept in its reason.
"""

from __future__ import annotations

import dataclasses

from designer.catalog import Catalog
from designer.model.intent.design import FabricDesign
from designer.model.topology.derive import derive
from designer.model.topology.inference import Inference, Inferred

# Figure -> (fact subject, what it is); the keys are the CLI's `--set` keys (a public interface).
CORRECTABLE: dict[str, tuple[str, str]] = {
    "server": ("server model", "catalog server id (dgx-h100, hgx-h100, ...)"),
    "servers": ("servers", "number of servers"),
    "nodes_per_su": ("nodes per SU", "servers per group of leaves (SU)"),
    "rails": ("rails", "compute HCAs of each server in this fabric"),
    "spines": ("spines", "spine switches"),
}
ALIASES = {"group_size": "nodes_per_su", "su": "nodes_per_su", "server_model": "server", "hcas": "rails"}


def parse_corrections(pairs: list[str] | tuple[str, ...]) -> dict[str, str]:
    """`key=value` strings as a dict of known keys; ValueError with one line otherwise."""
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = ALIASES.get(key.strip().lower(), key.strip().lower())
        if not sep or not value.strip():
            raise ValueError(f"--set {pair!r}: expected key=value, keys: {', '.join(CORRECTABLE)}")
        if key not in CORRECTABLE:
            raise ValueError(f"--set {pair!r}: unknown figure {key!r}; keys: {', '.join(CORRECTABLE)}")
        out[key] = value.strip()
    return out


def _count(key: str, value: str) -> int:
    if not value.isdigit() or not 0 < int(value) <= 1_000_000:
        raise ValueError(f"--set {key}={value}: expected a whole number from 1 to 1,000,000")
    return int(value)


def corrected_design(design: FabricDesign, corrections: dict[str, str], catalog: Catalog) -> FabricDesign:
    cluster, fabric = design.cluster, design.fabric
    for key, value in corrections.items():
        if key == "server":
            servers = getattr(catalog, "servers", {})
            if value not in servers:
                raise ValueError(f"--set server={value}: not a catalog server (for example "
                                 f"{', '.join(sorted(servers)[:4])})")
            model = servers[value]
            ports = cluster.ports_per_server or model.compute_ports
            # The HCAs seen in the fabric stay: a DGX cabled on 4 of its 8 rails in this plane.
            cluster = dataclasses.replace(cluster, server=value, gpus_per_server=None, nic=None,
                                          ports_per_server=None if ports == model.compute_ports else ports,
                                          port_gbps=None if (cluster.port_gbps or model.port_gbps) == model.port_gbps
                                          else cluster.port_gbps)
        elif key == "servers":
            cluster = dataclasses.replace(cluster, servers=_count(key, value))
        elif key == "nodes_per_su":
            fabric = dataclasses.replace(fabric, nodes_per_su=_count(key, value))
        elif key == "rails":
            cluster = dataclasses.replace(cluster, ports_per_server=_count(key, value))
        elif key == "spines":
            fabric = dataclasses.replace(fabric, spine=dataclasses.replace(fabric.spine, count=_count(key, value)))
    return dataclasses.replace(design, cluster=cluster, fabric=fabric)


def apply_corrections(inference: Inference, corrections: dict[str, str], catalog: Catalog) -> None:
    """Replace the inference's design by the corrected one, derived; ValueError (one line) when
    there is no design to correct or the corrected one cannot be built."""
    if not corrections:
        return
    if inference.design is None:
        reason = inference.problems[0] if inference.problems else "no design fits"
        raise ValueError(f"no inferred design to correct: {reason}")
    design = corrected_design(inference.design, corrections, catalog)
    try:
        derived = derive(design, catalog)
    except (ValueError, KeyError) as exc:
        settings = ", ".join(f"{k}={v}" for k, v in corrections.items())
        raise ValueError(f"--set {settings}: no design can be built so: {exc}") from None
    inference.design, inference.derived = design, derived
    inference.placement, inference.mapping, inference.exact = None, {}, False
    for key, value in corrections.items():
        subject = CORRECTABLE[key][0]
        old = next((i for i, f in enumerate(inference.facts) if f.subject == subject), None)
        was = f"inferred {inference.facts[old].value}" if old is not None else "not inferred"
        fact = Inferred(subject, value, "set", f"set by the user; {was}")
        if old is None:
            inference.facts.append(fact)
        else:
            inference.facts[old] = fact
