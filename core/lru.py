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

from collections import OrderedDict
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
        # Recency order, oldest first. An OrderedDict, not a dict: a dict's first key is found by skipping the slots
        # of every key removed since it last grew, and a full cache removes one per entry it takes in.
        self._entries: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        value = self._entries.get(key)
        if value is not None:
            self._entries.move_to_end(key)
        return value

    def __setitem__(self, key: K, value: V) -> None:
        self._entries[key] = value
        self._entries.move_to_end(key)
        if len(self._entries) > self.size:
            self._entries.popitem(last=False)

    def __contains__(self, key: K) -> bool:
        return key in self._entries

    def __len__(self) -> int:
        return len(self._entries)

    def keys(self) -> KeysView[K]:
        return self._entries.keys()

    def clear(self) -> None:
        self._entries.clear()
