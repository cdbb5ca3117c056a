"""The cluster's networks beside the compute fabric: sizing, bill of materials and arrangements.

Each network of `FabricDesign.networks` is sized in closed form from its role, its template and
the servers' ports for that role (catalog `role_ports`, each sourced); the compute fabric stays
with designer/model/topology and designer/model/physical, unchanged.
May import: every stage of the model (it prices with physical and fails switches with decisions)
and designer.catalog; no stage imports it.
"""
