"""Process settings for a long-running bot process (`durak-bot run`, and `bench/service.py` to match it)."""

from __future__ import annotations

import gc

YOUNG_THRESHOLD = 10_000  # net container allocations between young collections (CPython's default: 700)


def tune_garbage_collector() -> None:
    """Fewer, cheaper garbage collections.

    Nearly everything an input allocates (views, messages, spans, JSON) is freed by reference counting; the
    collector only finds cycles. With CPython's defaults it still ran a young collection every 700 net
    allocations and full ones that walked every module object: in `bench/service.py` that was ~14% of
    the CPU and pauses of tens of milliseconds. So: what exists after start-up (modules, catalogs, the
    engine's tables) is frozen out of the collector's sight, and young collections run every 10,000."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, 20, 20)
