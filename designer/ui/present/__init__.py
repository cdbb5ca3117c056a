"""Presentation mode: the design full screen, slide by slide.

Public: presentation_mode.PresentationMode, slide_widget.
May import: export, editing (to add a slide as an undoable command), canvas, services and
the ui foundation modules.
"""
