"""The Telegram adapter's side of crash recovery: it records what it delivered with the chat, so a process
starting up knows which screens a dead one never sent (bot/outbox.py, bot/game/catch_up.py)."""

from __future__ import annotations

from bot.outbox import TABLE_SHOWN
from storage import ChatRef
from tests.telegram.test_behaviour import two_player_game
from tests.telegram.world import World


async def test_every_screen_delivered_is_recorded_so_a_restart_has_nothing_to_catch_up(world: World) -> None:
    group, ann, bob = await two_player_game(world)
    await world.press_first_move([ann, bob])
    await world.bot.delivery.marks.flush()
    chat = ChatRef("tg", str(group.id))
    record = await world.store.load(chat)
    assert record.messages[TABLE_SHOWN] == str(record.version)
    assert {f"shown:hand:{ann.id}", f"shown:hand:{bob.id}"} <= record.messages.keys()
    assert await world.service.catch_up(chat) == [], "each hand recorded is the one the stored game draws"


async def test_a_screen_not_delivered_is_not_recorded(world: World) -> None:
    group, ann, bob = await two_player_game(world)
    await world.bot.delivery.marks.flush()
    world.fake.hold("editMessageText", "sendMessage")
    mover = world.acting([ann, bob])
    hand = world.hand(mover)
    assert hand is not None
    data = next(b["callback_data"] for b in hand.buttons() if "callback_data" in b)
    world.fake.user_presses(mover, hand.message_id, mover, data)
    await world.fake.wait_until(lambda: world.fake.held_calls > 0, what="the move's edits to be held")
    await world.bot.delivery.marks.flush()
    chat = ChatRef("tg", str(group.id))
    record = await world.store.load(chat)
    assert int(record.messages[TABLE_SHOWN]) < record.version
    assert await world.service.catch_up(chat), "a restart now would show the move's screens"
    world.fake.release()
    await world.settle()
