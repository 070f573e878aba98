"""A small cache of values computed from a whole text (parse trees, symbol tables).

Entries are keyed by a kind (a file extension) and the text itself: the text is kept with its
value and compared on a hit, so a hash collision can never mix two files. A value is computed
once even when several threads ask for it together: the first computes, the others wait for it.
That is what lets a parse started in the background (after a read) serve the edit that follows.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class ContentMemo(Generic[T]):
    """Least-recently-used values by (kind, text), at most ``size`` of them.

    Texts longer than ``limit`` characters are computed but not kept.
    """

    def __init__(self, size: int, limit: int | None = None) -> None:
        self.size = size
        self.limit = limit
        self._entries: OrderedDict[tuple[str, int], tuple[str, T]] = OrderedDict()
        self._pending: dict[tuple[str, int], threading.Event] = {}
        self._lock = threading.Lock()

    def peek(self, kind: str, text: str) -> T | None:
        """The value for ``text`` if it is ready, without computing or waiting."""
        key = (kind, hash(text))
        with self._lock:
            hit = self._entries.get(key)
            if hit is not None and hit[0] == text:
                self._entries.move_to_end(key)
                return hit[1]
        return None

    def get(self, kind: str, text: str, make: Callable[[], T]) -> T:
        """The value for ``text``: from the cache, from a thread computing it now, or ``make()``."""
        key = (kind, hash(text))
        while True:
            with self._lock:
                hit = self._entries.get(key)
                if hit is not None and hit[0] == text:
                    self._entries.move_to_end(key)
                    return hit[1]
                busy = self._pending.get(key)
                if busy is None:
                    done = self._pending[key] = threading.Event()
                    break
            # Another thread is computing a text with this hash (most likely this very text):
            # wait, then look again. If it was another text, or not kept, compute it here.
            busy.wait()
        try:
            value = make()
            if self.limit is None or len(text) <= self.limit:
                with self._lock:
                    self._entries[key] = (text, value)
                    self._entries.move_to_end(key)
                    while len(self._entries) > self.size:
                        self._entries.popitem(last=False)
            return value
        finally:
            with self._lock:
                del self._pending[key]
            done.set()

    def discard(self, kind: str, text: str) -> None:
        """Forget the value for ``text``."""
        key = (kind, hash(text))
        with self._lock:
            hit = self._entries.get(key)
            if hit is not None and hit[0] == text:
                del self._entries[key]

    def clear(self) -> None:
        """Forget every value (benchmarks start cold this way)."""
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)
