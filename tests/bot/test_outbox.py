"""What adapters record of the screens they delivered (bot/outbox.py): written after the fact, a batch at a
time, and read back as the version of the table and the fingerprint of each hand."""

from __future__ import annotations

from bot.outbox import TABLE_SHOWN, DeliveredMarks, fingerprint, hand_shown
from bot.render.text import line, message
from storage import ChatRef
from storage.store import RedisGameStore

CHAT = ChatRef("tg", "-100")
HAND = message([line("Your cards: 6♠ 7♠")])


async def test_screens_delivered_close_together_cost_one_write_per_chat(fake_redis: object) -> None:
    store = RedisGameStore(fake_redis, counting_versions=True)  # type: ignore[arg-type]
    for version in range(4):  # the chat at version 4: marks of versions it has are written
        await store.save(CHAT, version, "game", ttl=60)
    await store.set_messages(CHAT, {"table": "g1:5"})  # the script is known to the server from here on
    marks = DeliveredMarks(store, delay=60)
    marks.note_table(CHAT, 3)
    marks.note_hand(CHAT, "7", 3, message([line("Your cards: 6♠ 7♠ 8♠")]))
    marks.note_table(CHAT, 4)
    marks.note_hand(CHAT, "7", 4, HAND)
    before = store.round_trips
    await marks.close()
    assert store.round_trips == before + 1
    record = await store.load(CHAT)
    assert record.messages[TABLE_SHOWN] == "4", "the newest table delivered"
    assert hand_shown(record.messages, "7") == fingerprint(HAND), "the hand shown last"
    assert hand_shown(record.messages, "8") is None, "no mark: nothing recorded for that person"


async def test_a_screen_without_a_version_is_not_recorded(fake_redis: object) -> None:
    store = RedisGameStore(fake_redis)  # type: ignore[arg-type]
    marks = DeliveredMarks(store)
    marks.note_table(CHAT, 0)
    marks.note_hand(CHAT, "7", 0, HAND)
    await marks.close()
    assert (await store.load(CHAT)).messages == {}


def test_equal_messages_have_equal_fingerprints_and_different_ones_differ() -> None:
    assert fingerprint(message([line("Your cards: 6♠ 7♠")])) == fingerprint(HAND)
    assert fingerprint(message([line("Your cards: 6♠ 8♠")])) != fingerprint(HAND)
