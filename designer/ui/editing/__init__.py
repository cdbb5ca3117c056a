"""Editing the open design: the document, its undo commands, the selection and the controller.

Public: document.Document, commands (one QUndoCommand per kind of change),
selection.SelectionModel, controller.DesignController (gestures to commands, with previews),
window.DesignerWindow (what the main window holds, for rooms below the shell).
May import: services, canvas (for layout ids) and the ui foundation modules.
"""
