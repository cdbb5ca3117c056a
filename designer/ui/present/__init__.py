"""Presentation mode: the design full screen, slide by slide."""
