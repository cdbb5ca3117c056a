"""The one border to files: every format the tool reads or writes, one module per format.

Holds project files (project), atomic writes (atomic), safe CSV cells (csv_cells), rows put
together a block at a time from columns of text (row_text) and the BOM, cabling-plan and
comparison CSVs. Pure Python, no Qt.
May import: designer.model and designer.catalog; never designer.ui or designer.cli.
"""
