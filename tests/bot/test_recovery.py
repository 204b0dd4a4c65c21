"""A crash mid-game must not freeze it: stale presses heal the screen, and a process starting up re-renders
every running game whose last screens were never delivered, moving a turn deadline that passed meanwhile.

The harness stands in for an adapter: `delivered` writes the marks an adapter writes once it has shown
every screen received so far; effects received after it are "lost" (still queued when the process died).
"""

from __future__ import annotations

from bot import outbox
from bot.effects import Alert, Effect, ShowHand, ShowTable
from bot.inputs import TimerDue
from bot.session import ChatSession, Playing
from bot.timers import catch_up_platform
from storage import ChatRef
from tests.bot.conftest import ANN, BOB, EVE
from tests.bot.harness import CHAT, Harness, buttons
from tests.bot.test_play import start, whose_turn

CHAT_REF = ChatRef("tg", CHAT)
OUT_OF_DATE = "That button is out of date: use the newest message."


async def delivered(harness: Harness) -> None:
    """Record, as an adapter does after sending, that the table and every hand received are shown."""
    version = await harness.version()
    marks: dict[str, str | None] = {**outbox.table_mark(version)}
    for user_id, hand in harness.screen.hands.items():
        marks |= outbox.hand_mark(user_id, version, hand)
    await harness.store.set_messages(CHAT_REF, marks)


async def restart(harness: Harness) -> list[Effect]:
    """What a process starting up shows for the harness's chat (its platform's catch-up pass)."""
    shown: list[Effect] = []

    async def deliver(due: TimerDue, effects: list[Effect]) -> None:
        assert due.chat_id == CHAT
        shown.extend(effects)

    await catch_up_platform(harness.service, "tg", deliver)
    harness.screen.take(shown)
    return shown


async def session(harness: Harness) -> ChatSession:
    record = await harness.store.load(CHAT_REF)
    assert record.state is not None
    return ChatSession.decode(record.state)


async def a_move_whose_screens_are_lost(harness: Harness) -> list[Effect]:
    """A game dealt and shown; then the player to act moves and the screens of that move never arrive."""
    await start(harness)
    await delivered(harness)
    user = whose_turn(harness, (ANN, BOB))
    assert user is not None
    return await harness.press(user, buttons(harness.screen.hands[user.id])[0].payload)


async def test_a_stale_press_heals_the_pressers_hand_from_the_stored_game(harness: Harness) -> None:
    await start(harness)
    user = whose_turn(harness, (ANN, BOB))
    assert user is not None
    seen = harness.screen.hands[user.id]  # what they still see when the newer hand never reached them
    old = buttons(seen)[0].payload
    await harness.press(user, old)
    effects = await harness.press(user, old)
    assert [e.text for e in effects if isinstance(e, Alert)] == [OUT_OF_DATE]
    hands = [e for e in effects if isinstance(e, ShowHand)]
    assert [hand.user_id for hand in hands] == [user.id] and hands[0].message != seen
    assert not buttons(hands[0].message), "drawn from the stored game: the other player's turn"
    assert hands[0].version == await harness.version()


async def test_a_stale_press_shows_a_hand_to_its_owner_only(harness: Harness) -> None:
    await start(harness)
    user = whose_turn(harness, (ANN, BOB))
    assert user is not None
    other = BOB if user == ANN else ANN
    old = buttons(harness.screen.hands[user.id])[0].payload
    await harness.press(user, old)
    by_other = await harness.press(other, old)  # someone else's old button: their own hand, never the owner's
    assert {e.user_id for e in by_other if isinstance(e, ShowHand)} == {other.id}
    by_outsider = await harness.press(EVE, old)
    assert not [e for e in by_outsider if isinstance(e, ShowHand | ShowTable)]


async def test_a_stale_press_shows_the_table_again_only_while_the_delivered_one_is_older(
    harness: Harness,
) -> None:
    await start(harness)
    user = whose_turn(harness, (ANN, BOB))
    assert user is not None
    old = buttons(harness.screen.hands[user.id])[0].payload
    await harness.press(user, old)
    tables = [e for e in await harness.press(user, old) if isinstance(e, ShowTable)]
    assert [table.version for table in tables] == [await harness.version()]
    await delivered(harness)
    assert not [e for e in await harness.press(user, old) if isinstance(e, ShowTable)]


async def test_start_up_re_renders_a_running_game_whose_last_screens_were_lost(harness: Harness) -> None:
    lost = await a_move_whose_screens_are_lost(harness)
    shown = await restart(harness)
    version = await harness.version()
    lost_table = next(e for e in lost if isinstance(e, ShowTable))
    assert [(e.message, e.version) for e in shown if isinstance(e, ShowTable)] == [
        (lost_table.message, version)
    ]
    lost_hands = {e.user_id: e.message for e in lost if isinstance(e, ShowHand)}
    shown_hands = {e.user_id: e.message for e in shown if isinstance(e, ShowHand)}
    assert lost_hands and lost_hands.items() <= shown_hands.items()
    assert await harness.version() == version, "a deadline still ahead is left alone: nothing to save"


async def test_start_up_leaves_a_game_whose_screens_were_delivered_alone(harness: Harness) -> None:
    await a_move_whose_screens_are_lost(harness)
    await delivered(harness)
    assert await restart(harness) == []


async def test_start_up_re_renders_a_hand_that_was_lost_while_the_table_went_out(harness: Harness) -> None:
    lost = await a_move_whose_screens_are_lost(harness)
    version = await harness.version()
    await harness.store.set_messages(CHAT_REF, {**outbox.table_mark(version)})
    shown = await restart(harness)
    assert not [e for e in shown if isinstance(e, ShowTable)]
    assert {e.user_id for e in shown if isinstance(e, ShowHand)} == {
        e.user_id for e in lost if isinstance(e, ShowHand)
    }


async def test_a_turn_deadline_that_passed_while_the_bot_was_down_moves_to_now_plus_the_timer(
    harness: Harness,
) -> None:
    await a_move_whose_screens_are_lost(harness)  # the classic timer: 60 seconds a turn
    before = await harness.version()
    harness.clock += 600  # the bot was down for ten minutes
    shown = await restart(harness)
    header = (await session(harness)).header
    assert isinstance(header, Playing)
    assert header.turn_deadline == harness.clock + 60
    assert await harness.version() == before + 1, "saved with compare-and-set, like any decision"
    assert {e.version for e in shown if isinstance(e, ShowTable | ShowHand)} == {before + 1}
    assert await harness.fire_timers() == [], "nobody is timed out for the downtime"
    assert await harness.version() == before + 1


async def test_a_passed_deadline_of_a_game_whose_screens_were_delivered_still_fires(
    harness: Harness,
) -> None:
    await a_move_whose_screens_are_lost(harness)
    await delivered(harness)
    before = await harness.version()
    harness.clock += 600
    assert await restart(harness) == []
    await harness.fire_timers()
    assert await harness.version() > before, "the player saw their turn: the timer is theirs"


async def test_the_running_chats_are_those_with_a_game_in_progress(harness: Harness) -> None:
    await harness.command(ANN, "newgame")
    assert await harness.store.running_chats("tg") == []
    await harness.tap(BOB, "Join")
    await harness.tap(ANN, "Start")
    assert await harness.store.running_chats("tg") == [CHAT_REF]
    await harness.command(EVE, "cancel", is_admin=True)  # a player's cancel would ask to surrender first
    assert await harness.store.running_chats("tg") == []
