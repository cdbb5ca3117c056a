"""Pieces every stage uses: the content-keyed cache, unit labels and parsers, and the memory
estimate a command checks before it builds.

Public: cache.ContentCache; units.size_label, duration_label, ratio_label, parse_size;
footprint.peak_bytes, links_upper_bound, bytes_label.
Imports nothing from the model.
"""
