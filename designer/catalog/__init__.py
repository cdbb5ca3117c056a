"""The hardware catalog: switches, NICs, servers and fabric technologies, each with its source."""

from designer.catalog.entries import Nic, NicMode, PortMode, Server, Switch, Technology
from designer.catalog.loader import (
    Catalog,
    CatalogError,
    UnknownPartError,
    default_catalog,
    load_catalog,
    load_file,
)

__all__ = [
    "Catalog", "CatalogError", "Nic", "NicMode", "PortMode", "Server", "Switch", "Technology",
    "UnknownPartError", "default_catalog", "load_catalog", "load_file",
]
