"""The clock is honest: the table says how long a turn is, and the acting player's hand shows the time left,
drawn again at 30 and 10 seconds left; the reminder at 15 seconds and the timeout stay as they were."""

from __future__ import annotations

import pytest

from bot.effects import TURN_REMINDER, Effect, Reply, Retract, ShowHand, ShowTable
from bot.i18n import translator
from bot.inputs import User
from bot.session import ChatSession, Playing
from storage import ChatRef
from tests.bot.harness import Harness, buttons
from tests.bot.test_play import whose_turn

TURN = {"en": "60 s a turn", "ru": "60 с на ход", "it": "60 s per turno"}
LEFT = {
    "en": ("60 seconds left for your move.", "30 seconds left for your move.", "10 seconds left for your move."),
    "ru": ("На ход осталось 60 секунд.", "На ход осталось 30 секунд.", "На ход осталось 10 секунд."),
    "it": ("Ti restano 60 secondi per la tua mossa.", "Ti restano 30 secondi per la tua mossa.",
           "Ti restano 10 secondi per la tua mossa."),
}  # fmt: skip


def players_in(lang: str) -> tuple[User, User]:
    return User("1", "Ann", lang), User("2", "Bob", lang)


async def start_in(harness: Harness, lang: str, words: str = "") -> tuple[User, User]:
    """Ann opens a game in ``lang``, Bob (same language) joins, Ann starts it."""
    ann, bob = players_in(lang)
    _ = translator(lang)._
    await harness.command(ann, "newgame", words)
    await harness.tap(bob, _("Join"))
    await harness.tap(ann, _("Start"))
    return ann, bob


async def header(harness: Harness) -> Playing:
    record = await harness.store.load(ChatRef(harness.platform, harness.chat))
    assert record.state is not None
    stored = ChatSession.decode(record.state).header
    assert isinstance(stored, Playing)
    return stored


def hand_of(effects: list[Effect], user: User) -> str | None:
    hands = [e.message.plain_text for e in effects if isinstance(e, ShowHand) and e.user_id == user.id]
    return hands[-1] if hands else None


@pytest.mark.parametrize("lang", ["en", "ru", "it"])
async def test_the_table_says_how_long_a_turn_is_instead_of_a_frozen_countdown(
    harness: Harness, lang: str
) -> None:
    players = await start_in(harness, lang)
    table = harness.screen.table
    assert table is not None
    assert TURN[lang] in table.plain_text
    harness.clock += 20
    user = whose_turn(harness, players)
    assert user is not None
    await harness.press(user, buttons(harness.screen.hands[user.id])[0].payload)
    assert TURN[lang] in harness.screen.table.plain_text  # type: ignore[union-attr]


@pytest.mark.parametrize("lang", ["en", "ru", "it"])
async def test_the_acting_hand_shows_the_time_left_and_is_drawn_again_at_30_and_10_seconds(
    harness: Harness, lang: str
) -> None:
    players = await start_in(harness, lang)
    user = whose_turn(harness, players)
    assert user is not None
    start_text, thirty, ten = LEFT[lang]
    assert start_text in harness.screen.hands[user.id].plain_text
    harness.clock += 29
    assert await harness.fire_timers() == []
    harness.clock += 1
    effects = await harness.fire_timers()
    assert thirty in (hand_of(effects, user) or "")
    harness.clock += 15
    effects = await harness.fire_timers()
    assert hand_of(effects, user) is None, "the reminder at 15 s is a message of its own"
    assert [e for e in effects if isinstance(e, Reply) and e.private and e.user_id == user.id]
    harness.clock += 4
    assert await harness.fire_timers() == []
    harness.clock += 1
    effects = await harness.fire_timers()
    assert ten in (hand_of(effects, user) or "")
    harness.clock += 10
    await harness.fire_timers()
    assert "timeout" in [event.kind for event in (await header(harness)).events]


async def test_a_waiting_players_hand_shows_no_clock(harness: Harness) -> None:
    players = await start_in(harness, "en")
    user = whose_turn(harness, players)
    other = players[1] if user == players[0] else players[0]
    assert "left for your move" not in harness.screen.hands[other.id].plain_text


async def test_a_short_turn_skips_the_marks_it_does_not_reach(harness: Harness) -> None:
    players = await start_in(harness, "en", "timer=15")
    user = whose_turn(harness, players)
    assert user is not None
    assert "15 seconds left for your move." in harness.screen.hands[user.id].plain_text
    harness.clock += 5
    effects = await harness.fire_timers()
    assert "10 seconds left for your move." in (hand_of(effects, user) or "")
    assert not [e for e in effects if isinstance(e, Reply)]
    harness.clock += 10
    await harness.fire_timers()
    assert "ran out of time" in harness.screen.table.plain_text  # type: ignore[union-attr]


async def test_a_late_timer_draws_the_time_actually_left_once(harness: Harness) -> None:
    """The bot was busy past the 30 s mark and the reminder: one refresh with the true time, the reminder
    sent, and the next mark is the one still ahead."""
    players = await start_in(harness, "en")
    user = whose_turn(harness, players)
    assert user is not None
    harness.clock += 47  # 13 seconds left
    effects = await harness.fire_timers()
    assert "13 seconds left for your move." in (hand_of(effects, user) or "")
    assert [e for e in effects if isinstance(e, Reply) and e.private]
    harness.clock += 3
    effects = await harness.fire_timers()
    assert "10 seconds left for your move." in (hand_of(effects, user) or "")


async def acting(harness: Harness, players: tuple[User, ...] | list[User]) -> User | None:
    """Who acts now, as stored."""
    record = await harness.store.load(ChatRef(harness.platform, harness.chat))
    assert record.state is not None
    session = ChatSession.decode(record.state)
    assert isinstance(session.header, Playing) and session.game is not None
    if session.game.to_act is None:
        return None
    user_id = session.header.seats[session.game.to_act].user_id
    return next((user for user in players if user.id == user_id), None)


def retracted(effects: list[Effect], user: User) -> list[Retract]:
    return [e for e in effects if isinstance(e, Retract) and e.tag == TURN_REMINDER and e.user_id == user.id]


async def test_the_reminder_is_said_for_a_while_and_retracted_when_its_turn_times_out(
    harness: Harness,
) -> None:
    players = await start_in(harness, "en")
    user = await acting(harness, players)
    assert user is not None
    harness.clock += 46
    effects = await harness.fire_timers()
    (reminder,) = [e for e in effects if isinstance(e, Reply) and e.private]
    assert reminder.tag == TURN_REMINDER and reminder.version, "said for a while, with its version"
    harness.clock += 4
    assert retracted(await harness.fire_timers(), user) == [], "the 10 s refresh: still the same turn"
    harness.clock += 10
    (retract,) = retracted(await harness.fire_timers(), user)  # the timeout
    assert retract.private and retract.version > reminder.version


async def test_the_reminder_is_retracted_when_its_player_moves_and_not_before(harness: Harness) -> None:
    players = await start_in(harness, "en")
    user = await acting(harness, players)
    assert user is not None
    assert retracted(await harness.press(user, buttons(harness.screen.hands[user.id])[0].payload), user) == []
    mover = await acting(harness, players)
    assert mover is not None
    harness.clock += 46
    await harness.fire_timers()
    (retract,) = retracted(
        await harness.press(mover, buttons(harness.screen.hands[mover.id])[0].payload), mover
    )
    assert retract.private


async def test_the_deal_is_not_held_at_the_spectators_pace_and_the_moves_after_it_are(
    harness: Harness,
) -> None:
    ann, bob = players_in("en")
    await harness.command(ann, "newgame")
    await harness.tap(bob, "Join")
    dealt = await harness.tap(ann, "Start")
    (table,) = [e for e in dealt if isinstance(e, ShowTable)]
    assert not table.in_play, "the lobby turns into the table at once"
    user = await acting(harness, [ann, bob])
    assert user is not None
    moved = await harness.press(user, buttons(harness.screen.hands[user.id])[0].payload)
    (table,) = [e for e in moved if isinstance(e, ShowTable)]
    assert table.in_play
