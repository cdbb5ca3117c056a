"""Performance: collective estimates (NCCL-like algorithms and protocols) and the training step.

Public: collective_costs (constants, build_context, CollectiveError), collectives (estimate,
evaluate, context_for), training (estimate_step, StepEstimate).
May import: common, intent, topology, physical and designer.catalog.
"""
