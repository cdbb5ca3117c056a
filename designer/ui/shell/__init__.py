"""The window shell: the main window, File actions, dialogs, autosave and where settings live.

Public: main_window.MainWindow, files.FileController, dialogs.Dialogs,
autosave (AutosaveManager, find_recoverable), paths; lazy_dock.LazyDock, the dock of a rarely used
panel (Phases, Expected Interruptions, Audit), made when the dock is first shown.
May import every other ui package; nothing in designer.ui imports the shell but app.
"""
