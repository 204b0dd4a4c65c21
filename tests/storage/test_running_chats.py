"""The index of chats with a game running, kept by the save script: a process starting up finds every game
it may have to re-render there (bot/game/catch_up.py) without scanning the keyspace."""

from __future__ import annotations

import time

from storage import ChatRef
from storage.store import RedisGameStore

CHAT = ChatRef("tg", "-100123")
OTHER = ChatRef("dc", "555")
TTL = 3600


async def test_a_chat_is_listed_from_the_save_that_starts_its_game_to_the_save_that_ends_it(
    store: RedisGameStore,
) -> None:
    await store.save(CHAT, 0, "lobby", ttl=TTL, running=False)
    assert await store.running_chats("tg") == []
    await store.save(CHAT, 1, "game", ttl=TTL, running=True)
    await store.save(CHAT, 2, "game, a move later", ttl=TTL, running=True)
    assert await store.running_chats("tg") == [CHAT]
    assert await store.running_chats("dc") == [], "one index per platform"
    await store.save(CHAT, 3, "finished", ttl=TTL, running=False)
    assert await store.running_chats("tg") == []


async def test_a_save_that_does_not_say_leaves_the_index_alone(store: RedisGameStore) -> None:
    await store.save(OTHER, 0, "game", ttl=TTL, running=True)
    await store.save(OTHER, 1, "game", ttl=TTL)
    assert await store.running_chats("dc") == [OTHER]


async def test_a_conflicting_save_does_not_touch_the_index(store: RedisGameStore) -> None:
    await store.save(CHAT, 0, "game", ttl=TTL, running=True)
    assert await store.save(CHAT, 0, "stale", ttl=TTL, running=False) is None
    assert await store.running_chats("tg") == [CHAT]


async def test_a_game_that_expired_untouched_drops_out_of_the_index(store: RedisGameStore) -> None:
    await store.save(CHAT, 0, "game", ttl=TTL, running=True)
    assert await store.running_chats("tg", now=time.time() + TTL + 1) == []
    assert await store.running_chats("tg") == [], "pruned, not only hidden"


async def test_a_migrated_group_takes_its_place_in_the_index(store: RedisGameStore) -> None:
    new = ChatRef("tg", "-100999")
    await store.save(CHAT, 0, "game", ttl=TTL, running=True)
    await store.migrate_chat(CHAT, new)
    assert await store.running_chats("tg") == [new]
