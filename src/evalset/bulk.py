"""Bulk loads without the cycle collector's passes.

Loading a cache, a manifest index or a set builds tens of thousands of objects and no
reference cycles. The collector still runs every 700 allocations and, as the heap grows,
walks the older objects again and again: up to a third of such a load. Inside ``bulk()``
it does not run; objects are still freed by reference counting as usual.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def bulk() -> Iterator[None]:
    """Pause cyclic garbage collection for the block (it resumes as it was)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
