"""The design on real network software.

`routing` brings an Ethernet design up on FRR (zebra and bgpd) in a Linux network namespace per
switch (`namespaces`, `frr_daemons`), with the configuration `designer.io.frr` writes, and reads
back the sessions, routes and ECMP next hops (`routing_state`), the kernel's placement of flows
(`routing_flows`) and the fabric after faults (`routing_faults`).

May import: designer.model, designer.catalog, designer.io, designer.limits; never designer.ui
or designer.cli (import-linter contract). The model never imports this package.
"""
