"""The Compare view: two to four designs side by side, with charts and a reasoned recommendation."""

from designer.ui.compare.compare_window import CompareWindow, Entry
from designer.ui.compare.launcher import CompareLauncher

__all__ = ["CompareLauncher", "CompareWindow", "Entry"]
