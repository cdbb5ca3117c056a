"""Pieces every stage uses: the content-keyed cache and unit labels and parsers.

Public: cache.ContentCache; units.size_label, duration_label, ratio_label, parse_size.
Imports nothing from the model.
"""
