"""Topology: sizing a design into switches and links, building its graph, and its metrics.

Public: sizing (plan_fabric, resolve, SizingError; three_tier finds the three-tier layout with
the fewest switches), builders.build_graph, presets.new_design,
edits (with_tiers, with_server, ...), derive.derive (the cached Derived bundle), metrics
(Metrics, Finding), closed_form and graph_metrics (the two ways to the same figures),
bounds (the ceilings on devices, links and ports, checked before anything is built).
May import: common, intent and designer.catalog.
"""
