"""The Compare view: two to five designs side by side, with charts and a reasoned recommendation.

Public: CompareWindow, Entry, and CompareLauncher (the Compare menu of a designer window; it
asks the window to open designs through a signal, and never imports the shell).
May import: export, present, panels, editing, canvas, services and the ui foundation modules.
"""

from designer.ui.compare.compare_window import CompareWindow, Entry
from designer.ui.compare.launcher import CompareLauncher

__all__ = ["CompareLauncher", "CompareWindow", "Entry"]
