"""Storage on Redis: atomic game saves, stats and ratings, turn timers, archive; an embedded redis-server by
default."""

from storage.chats import ChatRef
from storage.connect import open_store
from storage.errors import StoreUnavailable
from storage.models import (
    ChatRecord,
    GameOutcome,
    LastDurak,
    PersonalRecord,
    PlayerOutcome,
    PlayerStats,
    Rival,
    SaveRequest,
)
from storage.store import GameStore, RedisGameStore

__all__ = [
    "ChatRecord", "ChatRef", "GameOutcome", "GameStore", "LastDurak", "PersonalRecord", "PlayerOutcome",
    "PlayerStats", "RedisGameStore", "Rival", "SaveRequest", "StoreUnavailable", "open_store",
]  # fmt: skip
