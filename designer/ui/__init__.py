"""The designer window (PySide6). The model never imports anything from here.

Packages, from the foundations up; each may import those before it, never one after
(a test enforces it):
- the modules here: theme (colours), blocks (the palette's building blocks, plain Python),
  display_check and x11_libraries (can a window open here; plain Python, loaded before Qt),
  message_box, wheel_guard (the wheel changes a field only when it has focus); app (the entry
  point) alone may import any package below;
- services: derived results computed off the UI thread;
- canvas: the scene, its items, level of detail and one class per interaction mode;
- editing: the open document, undo commands, selection and the gesture controller;
- panels: palette, inspector, metrics cards and plots;
- export: the diagram as SVG, PDF or PNG, and the PDF report;
- present: presentation mode and slides;
- compare: the Compare window and the Compare menu;
- explore: the design-space sweep with its Pareto front (Tools > Explore Design Space);
- shell: the main window, its files, dialogs, autosave and settings paths.
Every package may import designer.model, designer.catalog and designer.io.
"""
