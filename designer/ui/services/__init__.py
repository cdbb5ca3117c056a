"""Off-thread computation: metrics, BOM and estimates in child processes, latest request wins.

Public: compute.ComputeService, ComputeResult; compute_job (the child's side, no Qt).
May import: the model, the catalog and the ui foundation modules.
"""
