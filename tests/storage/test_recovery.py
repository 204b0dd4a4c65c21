"""The store's side of recovery: setting an unreadable state aside, reading a state that is not text, and
asking whether a save whose reply was lost was applied. Run on fakeredis and on a real redis-server."""

from __future__ import annotations

from storage import ChatRef
from storage import keys as k
from storage.models import ChatRecord, SaveRequest
from storage.store import QUARANTINE_TTL, REQUEST_TTL, RedisGameStore

CHAT = ChatRef("tg", "-100123")
TTL = 3600


async def test_a_quarantine_moves_the_state_aside_for_seven_days_and_bumps_the_version(
    store: RedisGameStore,
) -> None:
    await store.save(CHAT, 0, "lobby", ttl=TTL)
    await store.save(CHAT, 1, "unreadable", ttl=TTL, deadline=50.0)
    assert QUARANTINE_TTL == 7 * 24 * 3600
    assert await store.quarantine(CHAT, 2) == 3
    record = await store.load(CHAT)
    assert (record.version, record.state) == (3, None)
    assert await store.redis.get(k.quarantine_key(CHAT, 2)) == "unreadable"
    assert QUARANTINE_TTL - 60 <= await store.redis.ttl(k.quarantine_key(CHAT, 2)) <= QUARANTINE_TTL
    assert await store.save(CHAT, 3, "new lobby", ttl=TTL) == 4, "the chat saves again at once"


async def test_a_quarantine_at_an_old_version_leaves_the_newer_state_and_returns_it(
    store: RedisGameStore,
) -> None:
    await store.save(CHAT, 0, "unreadable", ttl=TTL)
    await store.save(CHAT, 1, "written meanwhile", ttl=TTL)
    current = await store.quarantine(CHAT, 1)
    assert isinstance(current, ChatRecord) and (current.version, current.state) == (2, "written meanwhile")
    assert await store.redis.exists(k.quarantine_key(CHAT, 1)) == 0


async def test_a_state_that_is_not_text_loads_with_replacement_characters(store: RedisGameStore) -> None:
    await store.save(CHAT, 0, "x", ttl=TTL)
    await store.redis.set(k.state_key(CHAT), b"\x80\xff{garbage")
    await store.set_messages(CHAT, {"table": "7"})
    record = await store.load(CHAT)
    assert (record.version, record.state, record.messages) == (1, "\ufffd\ufffd{garbage", {"table": "7"})
    stale = SaveRequest(0, "stale", ttl=TTL)
    assert await store.save_or_current(CHAT, stale) == record, "a conflict reads it too"


async def test_the_chat_words_are_replaced_only_if_they_are_still_the_ones_read(
    store: RedisGameStore,
) -> None:
    await store.set_chat_settings(CHAT, words="timer=900 transfer")
    assert await store.replace_chat_words(CHAT, "timer=900 transfer", "transfer")
    assert (await store.load(CHAT)).settings == "transfer"
    assert not await store.replace_chat_words(CHAT, "timer=900 transfer", ""), "an admin changed them since"
    assert await store.replace_chat_words(CHAT, "transfer", "")
    assert (await store.load(CHAT)).settings is None


async def test_a_save_with_a_request_id_can_be_asked_about_for_a_while(store: RedisGameStore) -> None:
    assert await store.save(CHAT, 0, "lobby", ttl=TTL, request_id="r1") == 1
    assert await store.save(CHAT, 1, "game", ttl=TTL, request_id="r2") == 2
    assert await store.request_outcome(CHAT, "r1") == 1, "even after another save"
    assert await store.request_outcome(CHAT, "r2") == 2
    assert REQUEST_TTL - 5 <= await store.redis.ttl(k.request_key(CHAT, "r2")) <= REQUEST_TTL


async def test_asking_about_a_request_that_never_ran_fences_it_out(store: RedisGameStore) -> None:
    await store.save(CHAT, 0, "lobby", ttl=TTL)
    assert await store.request_outcome(CHAT, "late") is None
    assert await store.save(CHAT, 1, "late move", ttl=TTL, request_id="late") is None
    assert (await store.load(CHAT)).state == "lobby"
