"""Off-thread computation: metrics, BOM and estimates in child processes, latest request wins.

Public: compute.ComputeService, ComputeResult; compute_job (the child's side, no Qt);
background (work on a thread, its outcome on the UI thread); cancellable_run.CancellableRun (a run
of real programs behind a progress dialog whose Cancel stops them); counterparts.counterpart (a
counterpart built once per design and catalog while the program runs).
May import: the model, the catalog and the ui foundation modules.
"""
