"""Storage on Redis: atomic game saves, stats and ratings, turn timers, archive; an embedded redis-server by
default."""

from storage.connect import open_store
from storage.errors import StoreUnavailable
from storage.keys import ChatRef
from storage.models import ChatRecord, GameOutcome, PersonalRecord, PlayerOutcome, PlayerStats, Rival
from storage.store import GameStore, RedisGameStore

__all__ = [
    "ChatRecord", "ChatRef", "GameOutcome", "GameStore", "PersonalRecord", "PlayerOutcome", "PlayerStats",
    "RedisGameStore", "Rival", "StoreUnavailable", "open_store",
]  # fmt: skip
