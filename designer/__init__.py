"""Fabric Designer: design, size and compare GPU-cluster compute fabrics."""

__version__ = "0.1.0"
