"""The design on real network software: simulators, subnet managers, routing daemons and
discovery tools run on it.

`infiniband` brings an InfiniBand design up on ibsim (the fabric simulator), routes it with
OpenSM through the `opensm` export's files, reads the forwarding tables OpenSM programmed and
captures the fabric with the real ibnetdiscover, with faults typed into the simulator's
console (`faults`). `tables` reads OpenSM's dumped tables into the model's data, on which
`designer.model.performance.static_routes` loads the traffic patterns. `processes` holds every
program a run starts in its own process group and stops them all, whatever ends the run.
`static_routing` prices InfiniBand without adaptive routing on the tables OpenSM programmed.

`routing` brings an Ethernet design up on FRR (zebra and bgpd) in a Linux network namespace per
switch (`namespaces`, `frr_daemons`), with the configuration `designer.io.frr` writes, and reads
back the sessions, routes and ECMP next hops (`routing_state`), the kernel's placement of flows
(`routing_flows`) and the fabric after faults (`routing_faults`).

May import: designer.model, designer.catalog, designer.io, designer.limits; never designer.ui
or designer.cli (import-linter contract). The model never imports this package.
"""
