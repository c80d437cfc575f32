"""Bulk loads without the cycle collector's passes.

Loading a cache, a manifest index or a set builds tens of thousands of objects and no
reference cycles. The collector still runs every 700 allocations and, as the heap grows,
walks the older objects again and again: up to a third of such a load. Inside ``bulk()``
it does not run; objects are still freed by reference counting as usual.

Those objects are all young when the block ends: the collector's next pass walks every one
of them (0.15 to 0.2 s after scoring a 10,000-item run). A process that runs one command
(the command line: ``FREEZE``) moves them out of its sight instead, as it did with its
imports, after collecting the garbage made since its last freeze (which would otherwise be
frozen with them and never collected: a command that loads many sets would grow); a
program using evalset as a library keeps the collector as it was.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

FREEZE = False
"""Whether what the outermost block built is frozen (``gc.freeze``) when it ends: set by the
command line, whose process ends with its command."""


@contextmanager
def bulk() -> Iterator[None]:
    """Pause cyclic garbage collection for the block (it resumes as it was)."""
    enabled = gc.isenabled()
    if enabled and FREEZE:
        # garbage made since the last freeze (a diff's cycles, say) is collected now: frozen
        # at the end of the block, it would never be (the pass walks no frozen object)
        gc.collect()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if FREEZE:
                gc.freeze()
            gc.enable()
