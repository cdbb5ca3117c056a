"""Explore: the design space of one cluster as a scatter, with its Pareto front.

Public: explore_window.ExploreWindow (Tools > Explore Design Space), explore_service.SweepService.
The window asks its designer window to open a point or add it to Compare through signals;
it never imports the shell.
May import: compare (for its palette), panels, editing, canvas, services and the ui
foundation modules.
"""
