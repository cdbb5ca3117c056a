"""The docked panels around the canvas: palette, inspector, metrics cards and plots.

Public: palette.PaletteWidget, inspector.Inspector, metrics_panel.MetricsPanel,
plots_panel.PlotsPanel, tables.pick_table. Panels follow signals and push edits through the controller.
May import: services, canvas, editing and the ui foundation modules.
"""
