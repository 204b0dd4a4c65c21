"""Your turn is announced: a hand is flagged to be sent anew (so the platform notifies) when the turn comes
to a person who was waiting, and never when they act again within a few seconds of their last move."""

from __future__ import annotations

from bot.effects import Effect, ShowHand, ShowTable
from bot.inputs import User
from bot.session import ChatSession, Playing
from core import Game
from storage import ChatRef
from storage.store import RedisGameStore
from tests.bot.conftest import ANN, BOB, CAT
from tests.bot.harness import Harness, buttons
from tests.bot.test_play import start, whose_turn

QUICK = 2.0  # seconds: a person answering at once
WAIT = 30.0  # seconds: long enough to have looked away


def announced(effects: list[Effect]) -> set[str]:
    return {e.user_id for e in effects if isinstance(e, ShowHand) and e.announce}


def pinged(effects: list[Effect]) -> set[str]:
    return {e.turn_user for e in effects if isinstance(e, ShowTable) and e.announce}


async def move(harness: Harness, players: tuple[User, ...], after: float) -> tuple[User, list[Effect]]:
    """``after`` seconds later, the person to act taps their first move button."""
    harness.clock += after
    user = whose_turn(harness, players)
    assert user is not None
    choices = [b for b in buttons(harness.screen.hands[user.id]) if not b.payload.endswith("|e")]
    return user, await harness.press(user, choices[0].payload)


async def test_the_turn_coming_to_a_player_who_was_waiting_is_announced(harness: Harness) -> None:
    players = (ANN, BOB)
    await start(harness, "", players)
    attacker, effects = await move(harness, players, WAIT)
    defender = whose_turn(harness, players)
    assert defender is not None and defender != attacker
    assert announced(effects) == {defender.id}
    assert pinged(effects) == {defender.id}


async def test_a_player_answering_again_within_seconds_is_not_announced(harness: Harness) -> None:
    players = (ANN, BOB)
    await start(harness, "", players)
    await move(harness, players, WAIT)  # the defender is announced; from now on both answer at once
    for _ in range(8):
        _user, effects = await move(harness, players, QUICK)
        assert announced(effects) == set() and pinged(effects) == set()


async def test_the_next_player_is_announced_again_after_a_long_think(harness: Harness) -> None:
    players = (ANN, BOB)
    await start(harness, "", players)
    for _ in range(3):
        await move(harness, players, QUICK)
    user, effects = await move(harness, players, WAIT)
    after = whose_turn(harness, players)
    assert after is not None
    expected = {after.id} if after != user else set()
    assert announced(effects) == expected and pinged(effects) == expected


async def test_only_the_player_whose_turn_it_is_is_announced(harness: Harness) -> None:
    players = (ANN, BOB, CAT)
    await start(harness, "", players)
    _user, effects = await move(harness, players, WAIT)
    after = whose_turn(harness, players)
    assert after is not None
    assert announced(effects) == {after.id}
    tables = [e for e in effects if isinstance(e, ShowTable)]
    assert tables and all(t.turn_user == after.id for t in tables)


async def stored(harness: Harness) -> tuple[Playing, Game] | None:
    """The running game as saved; None once it is over."""
    record = await harness.store.load(ChatRef(harness.platform, harness.chat))
    assert record.state is not None
    session = ChatSession.decode(record.state)
    if not isinstance(session.header, Playing) or session.game is None:
        return None
    return session.header, session.game


async def test_a_seat_the_ai_plays_for_is_never_announced(fake_redis: object) -> None:
    harness = Harness(RedisGameStore(fake_redis), ai_delay=1.2)  # type: ignore[arg-type]
    players = (ANN, BOB)
    await start(harness, "timer=15", players)
    sleeper = whose_turn(harness, players)
    assert sleeper is not None
    awake = BOB if sleeper == ANN else ANN
    seat = 0 if sleeper == ANN else 1
    handed_to_the_ai = 0
    for _ in range(60):
        running = await stored(harness)
        if running is None:
            break
        header, game = running
        if game.to_act == seat:
            harness.clock += 16 if not header.seats[seat].autopilot else 2  # a timeout, or the AI's move
            await harness.fire_timers()
            continue
        _user, effects = await move(harness, (awake,), WAIT)
        running = await stored(harness)
        if running is None:
            break
        header, game = running
        if header.seats[seat].autopilot and game.to_act == seat:
            handed_to_the_ai += 1
            assert sleeper.id not in announced(effects) and pinged(effects) == set()
    assert handed_to_the_ai > 0
