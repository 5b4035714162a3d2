"""A bounded, thread-safe LRU shared by sessions (Streamlit runs sessions in threads).

Keys are small hashable tuples (ids, hashes, options), never arrays.
"""

from __future__ import annotations

import threading
from collections import OrderedDict


class BoundedLRU:
    def __init__(self, max_entries: int = 16):
        self._d: OrderedDict = OrderedDict()
        self._lock = threading.Lock()
        self._max = max_entries

    def get(self, key):
        with self._lock:
            if key in self._d:
                self._d.move_to_end(key)
                return self._d[key]
            return None

    def put(self, key, value) -> None:
        with self._lock:
            self._d[key] = value
            self._d.move_to_end(key)
            while len(self._d) > self._max:
                self._d.popitem(last=False)
