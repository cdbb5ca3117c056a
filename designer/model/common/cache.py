"""A small thread-safe LRU cache for results derived from an immutable design.

Designs are immutable, so a design's content key (plus the catalog it was read against) fully
determines anything computed from it: the graph and metrics, the physical layer, the BOM.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from threading import Lock
from typing import Generic, TypeVar

T = TypeVar("T")


class ContentCache(Generic[T]):
    def __init__(self, size: int = 8) -> None:
        self._size = size
        self._items: OrderedDict[Hashable, T] = OrderedDict()
        self._lock = Lock()

    def get_or_compute(self, key: Hashable, compute: Callable[[], T]) -> T:
        """The cached value for `key`, computing it outside the lock on a miss."""
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        value = compute()
        with self._lock:
            self._items[key] = value
            while len(self._items) > self._size:
                self._items.popitem(last=False)
        return value

    def peek(self, key: Hashable) -> T | None:
        """The cached value for `key`, or None; never computes."""
        with self._lock:
            return self._items.get(key)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
