"""When Redis loses its last writes (a host crash cutting its append-only file, a failover to a replica behind),
players still hold screens drawn from the lost moves. None of them may stay ahead of the store, nor be taken
for a move of the course the game takes from then on (docs/reliability.md, "When Redis loses data").

The loss is played here by putting the chat's stored record back as it was a few moves earlier, as the
append-only file cut back would; tests/scale/test_redis_data_loss.py does it to a real redis-server.
Seen on main: the player holding the newest hand was told "That button is out of date" on every tap, nothing
was drawn again, and the game stood still until a timer redrew it."""

from __future__ import annotations

from typing import Any

from bot.effects import Alert, Effect, ShowHand, ShowTable
from bot.inputs import User
from storage import ChatRef
from storage import keys as k
from tests.bot.conftest import ANN, BOB
from tests.bot.harness import Harness, button, buttons
from tests.bot.stacked import game_now, stacked_game

# trumps: spades (A♠ turned up); Ann attacks Bob
HANDS = ["6H 7C 6D 9H TC JD", "QD 7H 8C 9C 7D 8D"]
WENT_BACK = "The game went back to its last saved move"


async def snapshot(harness: Harness) -> dict[str, Any]:
    """The chat's stored version and state, as the append-only file had them at this moment."""
    chat = ChatRef(harness.platform, harness.chat)
    redis = harness.store.redis
    return {key: await redis.get(key) for key in (k.version_key(chat), k.state_key(chat))}


async def lose_writes_since(harness: Harness, kept: dict[str, Any]) -> None:
    for key, value in kept.items():
        await harness.store.redis.set(key, value)


def hand_of(effects: list[Effect], user: User) -> ShowHand | None:
    return next((e for e in effects if isinstance(e, ShowHand) and e.user_id == user.id), None)


async def dealt(harness: Harness, hands: list[str] = HANDS) -> None:
    """The stacked game, and each person's hand as "My hand" on the table shows it."""
    await stacked_game(harness, (ANN, BOB), hands, trump="AS")
    for user in (ANN, BOB):
        await harness.tap(user, "My hand")


async def tap_first(harness: Harness, user: User) -> list[Effect]:
    return await harness.press(user, buttons(harness.screen.hands[user.id])[0].payload)


async def test_a_button_of_a_lost_move_redraws_the_table_and_the_hand_from_the_store_and_says_why(
    harness: Harness,
) -> None:
    await dealt(harness)
    kept = await snapshot(harness)
    stored = await game_now(harness)
    await tap_first(harness, ANN)  # Ann attacks; Bob's hand shows what he may answer
    await lose_writes_since(harness, kept)  # Redis comes back without Ann's attack
    effects = await tap_first(harness, BOB)  # Bob answers the attack the store no longer has
    assert (await game_now(harness)).step == stored.step, "nothing applied"
    alerts = [e for e in effects if isinstance(e, Alert) and e.user_id == BOB.id]
    assert alerts and WENT_BACK in alerts[0].text
    assert any(isinstance(e, ShowTable) for e in effects), "the table as stored"
    hand = hand_of(effects, BOB)
    assert hand is not None and buttons(hand.message) == [], "Bob's hand as stored: Ann is to attack"


async def test_the_game_goes_on_from_the_store_after_its_writes_were_lost(harness: Harness) -> None:
    await dealt(harness)
    kept = await snapshot(harness)
    await tap_first(harness, ANN)
    await lose_writes_since(harness, kept)
    effects = await tap_first(harness, BOB)  # draws the table and every hand again
    assert hand_of(effects, ANN) is not None, "Ann's hand too: it is her turn again in the store"
    before = (await game_now(harness)).step
    await harness.press(ANN, button(harness.screen.hands[ANN.id], "6♥").payload)
    assert (await game_now(harness)).step == before + 1


async def test_a_button_of_a_lost_course_is_never_taken_for_a_move_of_the_new_one(harness: Harness) -> None:
    """The game reaches the lost button's step again by another move: the button was drawn for what the lost
    move left, so it is refused, not applied."""
    await dealt(harness)
    kept = await snapshot(harness)
    await harness.press(ANN, button(harness.screen.hands[ANN.id], "6♥").payload)  # lost: 6♥
    lost = buttons(harness.screen.hands[BOB.id])  # Bob's answers to 6♥: Take, covers...
    take = next(b.payload for b in lost if b.label == "Take")
    await lose_writes_since(harness, kept)
    await harness.tap(ANN, "My hand")  # her hand as stored: her turn to attack again
    await harness.press(ANN, button(harness.screen.hands[ANN.id], "7♣").payload)  # the new course: 7♣
    step = (await game_now(harness)).step
    effects = await harness.press(BOB, take)  # the same step, the same code, another course
    assert (await game_now(harness)).step == step, "Bob did not take 7♣ with the Take drawn for 6♥"
    assert any(isinstance(e, Alert) and WENT_BACK in e.text for e in effects)


async def test_a_button_of_the_same_course_drawn_a_little_earlier_still_plays(harness: Harness) -> None:
    """The history only tells courses apart: a card drawn earlier in the same bout is still made as tapped
    (bot/game/fast_taps.py)."""
    await dealt(harness, ["6H 6C 6D 9D TD KC", HANDS[1]])
    await harness.press(ANN, button(harness.screen.hands[ANN.id], "6♥").payload)
    take = button(harness.screen.hands[BOB.id], "Take").payload
    await harness.press(BOB, take)
    six = next(b.payload for b in buttons(harness.screen.hands[ANN.id]) if b.label.startswith("6♣"))
    await harness.press(ANN, six)
    assert (await game_now(harness)).step == 3


async def test_a_wiped_store_takes_a_new_game_and_the_old_games_buttons_say_so(harness: Harness) -> None:
    await dealt(harness)
    old = buttons(harness.screen.hands[ANN.id])[0].payload
    shown = harness.screen.table
    await harness.store.redis.flushall()  # Redis restarted empty
    effects = await harness.press(ANN, old)
    assert any(isinstance(e, Alert) and "lost" in e.text for e in effects), effects
    opened = await harness.command(ANN, "newgame")
    table = next(e for e in opened if isinstance(e, ShowTable))
    assert table.message != shown and table.version > 0
