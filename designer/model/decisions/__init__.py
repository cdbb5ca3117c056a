"""Decisions: weighing designs against each other and saying which fabric to choose.

Public: counterpart.make_counterpart (the same cluster on another technology),
comparison (compare, CompareSettings, Comparison), advice (training_step with the rule-of-
thumb advice, size_band).
May import every stage above it and designer.catalog.
"""
