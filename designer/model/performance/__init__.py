"""Performance: collective estimates (NCCL-like algorithms and protocols) and the training step.

Public: collective_costs (constants, build_context, CollectiveError), collectives (estimate,
evaluate, context_for), training (estimate_step, StepEstimate), fleet (rank placement, occupancy
and other jobs' uplink load, with their defaults), workload (presets, batch_tokens).
May import: common, intent, topology, physical and designer.catalog.
"""
