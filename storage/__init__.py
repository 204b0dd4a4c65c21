"""Storage on Redis: atomic game saves, stats, turn timers, archive; an embedded redis-server by default."""

from storage.connect import open_store
from storage.errors import StoreUnavailable
from storage.keys import ChatRef
from storage.models import ChatRecord, GameOutcome, PlayerOutcome, PlayerStats
from storage.store import GameStore, RedisGameStore

__all__ = [
    "ChatRecord", "ChatRef", "GameOutcome", "GameStore", "PlayerOutcome", "PlayerStats", "RedisGameStore",
    "StoreUnavailable", "open_store",
]  # fmt: skip
