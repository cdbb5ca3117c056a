"""The window shell: the main window, File actions, dialogs, autosave and where settings live.

Public: main_window.MainWindow, files.FileController, dialogs.Dialogs,
autosave (AutosaveManager, find_recoverable), paths.
May import every other ui package; nothing in designer.ui imports the shell but app.
"""
