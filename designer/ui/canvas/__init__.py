"""The canvas: the fabric drawn tier by tier, with level of detail and interaction modes.

Public: scene.FabricScene, view.FabricView, layout (compute_layout, device ids), and
interactions (one class per mode: drop, connect, resize, pan, rubber band).
May import: the ui foundation modules; items reach the document only through the controller.
"""
