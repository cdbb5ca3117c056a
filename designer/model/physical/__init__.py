"""The physical layer: where devices stand, what cables and optics join them, and what it costs.

Public: floor_layout.lay_out (rack positions and cable runs), media.physical_layer (media,
lengths, optics per link), edited_bom.physical_counts (the same counts for a template
design, by class of link in class_bom or per link in closed_form_bom, and for an edited one
from its edits replayed on those arrays in edited_bom), bom.build_bom (the bill of
materials), prices (the price book), fabric_cost (a candidate's whole bill for sizing, counts
shared by physical make-up) and cost_bound (a floor under that bill, for sizing to skip
candidates).
May import: common, intent, topology and designer.catalog.
"""
