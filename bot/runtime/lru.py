"""A dict that keeps only its most recently used entries: the adapters' per-chat and per-user caches.

A long-running bot sees every chat and user it ever served; what it caches about them must not grow with
that history. Whatever is dropped here is either kept in the store (and read again when needed) or is a
convenience (a display name) that the next update brings back.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")


class LRU(OrderedDict[K, V]):
    """At most ``size`` entries; setting one (or `touch`) makes it the newest, the oldest goes first."""

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError("an LRU cache holds at least one entry")
        super().__init__()
        self.size = size

    def __setitem__(self, key: K, value: V) -> None:
        super().__setitem__(key, value)
        self.move_to_end(key)
        if len(self) > self.size:
            self.popitem(last=False)

    def touch(self, key: K) -> V | None:
        """The entry's value, now counted as just used; None if it is not cached."""
        if key not in self:
            return None
        self.move_to_end(key)
        return super().__getitem__(key)
