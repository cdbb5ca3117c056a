"""A dict whose entries are made from columns when first read.

Placing a 131K-GPU capture or viewing a template design reads few of the entries such a table
could hold (a design's 150,000 device records, its host positions): the columns stay, and the
dict is filled only when something reads it as a whole.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class MadeWhenRead(dict[K, V]):
    """A dict whose entries are made by `_make` when the whole is first read: every way of
    reading it calls `_make` first (a subclass may answer some reads before, from its columns)."""

    def _make(self) -> None:
        raise NotImplementedError

    def __getitem__(self, key: K) -> V:
        self._make()
        return dict.__getitem__(self, key)

    def __contains__(self, key: object) -> bool:
        self._make()
        return dict.__contains__(self, key)

    def __iter__(self) -> Iterator[K]:
        self._make()
        return dict.__iter__(self)

    def __len__(self) -> int:
        self._make()
        return dict.__len__(self)

    def get(self, key: K, default: Any = None) -> Any:
        self._make()
        return dict.get(self, key, default)

    def __eq__(self, other: object) -> bool:
        self._make()
        return dict.__eq__(self, other)

    __hash__ = None

    def __repr__(self) -> str:
        self._make()
        return dict.__repr__(self)

    def keys(self) -> Any:
        self._make()
        return dict.keys(self)

    def values(self) -> Any:
        self._make()
        return dict.values(self)

    def items(self) -> Any:
        self._make()
        return dict.items(self)

    def copy(self) -> dict[K, V]:
        self._make()
        return dict(dict.items(self))
