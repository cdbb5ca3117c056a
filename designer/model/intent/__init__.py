"""Design intent: what the user asked for, as immutable data that is saved to project files.

Public: design.FabricDesign (with ClusterSpec, FabricSpec, TierSpec, Meta, Edit, replace_path),
serde (to and from plain data, DesignValidationError), floorplan.FloorPlan,
perf_settings.PerformanceSettings, slides.Slide, growth_plan.GrowthPlan.
May import: designer.model.common and designer.catalog.
"""
