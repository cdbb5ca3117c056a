"""Decisions: weighing designs against each other and saying which fabric to choose.

Public: counterpart.make_counterpart (the same cluster on another technology),
comparison (compare, CompareSettings, Comparison), advice (training_step with the rule-of-
thumb advice, size_band), whatif (failures: what_if, n_minus_one, performance_impact),
interruptions (expected failures from counts and resources/reliability/failure_rates.toml),
growth (grow: phases, BOM deltas, reserved ports, recabling and the alternative).
May import every stage above it and designer.catalog.
"""
