"""The counterpart technologies a command offers, without what it takes to build one.

A command's parser lists these before it knows whether a counterpart is wanted: keeping them
here lets `report` and `compare` parse (and refuse bad input) without loading the sizing and
pricing that `counterpart.make_counterpart` needs.
"""

from __future__ import annotations

# Technology ids offered by `fabric-designer counterpart --technology`.
COUNTERPART_TECHNOLOGIES = ("ib-ndr", "ib-xdr", "roce-400g", "roce-800g", "roce-ecmp-400g", "roce-eecmp-400g",
                            "roce-sched-400g")
# `compare --counterpart ethernet`: the Ethernet fabrics buyers choose between, beside InfiniBand.
# Spectrum-X, standard RoCE on merchant switches with static ECMP, and the same with enhanced
# ECMP and QP scaling, and a deep-buffer scheduled fabric (Jericho3-AI class, cell spraying).
ETHERNET_CHOICES = ("roce-400g", "roce-ecmp-400g", "roce-eecmp-400g", "roce-sched-400g")


def expand_counterparts(requested: list[str] | tuple[str, ...]) -> list[str]:
    """Counterpart technology ids with 'ethernet' replaced by ETHERNET_CHOICES, each once, in order."""
    out: list[str] = []
    for tech in requested:
        for one in ETHERNET_CHOICES if tech == "ethernet" else (tech,):
            if one not in out:
                out.append(one)
    return out
