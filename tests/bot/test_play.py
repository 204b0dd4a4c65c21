"""Playing through the service: whole games, bad and stale buttons, timers, surrender and the result."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable

import pytest

from bot import payloads
from bot.effects import Alert, Notice, ShowHand, ShowTable
from bot.inputs import User
from bot.payloads import parse
from core import Game, Settings, new_game
from core.cards import CARDS
from storage.store import RedisGameStore
from tests.bot.conftest import ANN, BOB, CAT, EVE
from tests.bot.harness import Harness, buttons
from tests.bot.stacked import game_now


async def start(harness: Harness, words: str = "", players: tuple[User, ...] = (ANN, BOB)) -> None:
    await harness.command(players[0], "newgame", words)
    for user in players[1:]:
        await harness.tap(user, "Join")
    await harness.tap(players[0], "Start")


def drawn_at(payload: str) -> int:
    """The game step a move button was drawn at (`bot.payloads`)."""
    parsed = payloads.parse(payload)
    assert parsed is not None
    return parsed.step


def whose_turn(harness: Harness, players: tuple[User, ...]) -> User | None:
    """The person whose hand shows the newest move buttons (an older hand may still show buttons of a step
    already played)."""
    newest: tuple[int, User] | None = None
    for user in players:
        hand = harness.screen.hands.get(user.id)
        steps = (
            [drawn_at(b.payload) for b in buttons(hand) if b.payload and not b.payload.endswith("|e")]
            if hand
            else []
        )
        if steps and (newest is None or max(steps) > newest[0]):
            newest = (max(steps), user)
    return newest[1] if newest is not None else None


async def play_to_the_end(
    harness: Harness, players: tuple[User, ...], seed: int = 0, limit: int = 2000
) -> int:
    """Every step: the person to act taps one of their buttons at random; returns the number of taps."""
    rng = random.Random(seed)
    for taps in range(limit):
        if harness.screen.notices:
            return taps
        user = whose_turn(harness, players)
        assert user is not None, "nobody has a button to press, but the game is not over"
        choices = [b for b in buttons(harness.screen.hands[user.id]) if not b.payload.endswith("|e")]
        before = await harness.version()
        payload = rng.choice(choices).payload
        current = drawn_at(payload) == (await game_now(harness)).step
        effects = await harness.press(user, payload)
        if not current and await harness.version() == before:  # a button their own move left: redrawn
            assert harness.screen.alerts[-1].text == "That button is out of date: use the newest message."
            continue
        assert await harness.version() == before + 1, "a legal tap must be saved exactly once"
        assert any(isinstance(e, ShowTable) for e in effects), "every move updates the table"
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("words", ["", "transfer", "transfer neighbours first5 deck=24", "deck=52 exchange"])
async def test_a_whole_game_of_people_ends_with_a_result_and_stats(harness: Harness, words: str) -> None:
    players = (ANN, BOB, CAT)
    await start(harness, words, players)
    await play_to_the_end(harness, players)
    result = harness.screen.notices[-1].plain_text
    assert "Game over" in result
    assert [b.label for b in buttons(harness.screen.notices[-1])] == ["Rematch", "The deal"]
    await harness.command(ANN, "stats")
    stats = harness.screen.replies[-1].plain_text
    assert stats.count("1 game") == 3 or "draw" in result


async def test_only_hands_whose_view_changed_are_sent_again(harness: Harness) -> None:
    players = (ANN, BOB, CAT)
    await start(harness, "", players)
    user = whose_turn(harness, players)
    assert user is not None
    effects = await harness.press(user, buttons(harness.screen.hands[user.id])[0].payload)
    changed = {e.user_id for e in effects if isinstance(e, ShowHand)}
    game = await game_now(harness)
    assert game.to_act is not None
    assert changed == {user.id, players[game.to_act].id}, (
        "the mover's and the one who must answer; not the third"
    )


async def test_a_stale_button_changes_nothing_and_says_so(harness: Harness) -> None:
    await start(harness)
    user = whose_turn(harness, (ANN, BOB))
    assert user is not None
    old = buttons(harness.screen.hands[user.id])[0].payload
    await harness.press(user, old)
    version = await harness.version()
    await harness.press(user, old)
    assert await harness.version() == version
    assert "out of date" in harness.screen.alerts[-1].text


async def test_someone_outside_the_game_cannot_press_a_players_button(harness: Harness) -> None:
    await start(harness)
    user = whose_turn(harness, (ANN, BOB))
    assert user is not None
    version = await harness.version()
    await harness.press(EVE, buttons(harness.screen.hands[user.id])[0].payload)
    assert await harness.version() == version
    assert harness.screen.alerts[-1].text == "You are not playing in this game."


async def test_a_player_cannot_use_another_players_button(harness: Harness) -> None:
    await start(harness)
    user = whose_turn(harness, (ANN, BOB))
    other = BOB if user == ANN else ANN
    version = await harness.version()
    await harness.press(other, buttons(harness.screen.hands[user.id])[0].payload)  # type: ignore[union-attr]
    assert await harness.version() == version
    assert harness.screen.alerts[-1].text == f"It is not your turn: {user.name} is attacking."  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "forged",
    [
        "",
        "garbage",
        "-100|g2|0|a:6S",
        "-100|g2|9999|t",
        "-100|g2|0|zz",
        "-999|g2|0|J",
        "-100|g2|0|c:9:AS",
        "x" * 300,
    ],
)
async def test_forged_payloads_do_nothing_but_answer(harness: Harness, forged: str) -> None:
    """A forged step ahead of the game cannot be told from a button of writes Redis lost: the screens are
    drawn again as stored (docs/reliability.md §13), nothing else."""
    await start(harness)
    version = await harness.version()
    effects = await harness.press(ANN, forged)
    assert await harness.version() == version
    assert effects and all(isinstance(e, Alert) for e in effects if not isinstance(e, ShowTable | ShowHand))
    assert all(e.version == version for e in effects if isinstance(e, ShowTable | ShowHand)), "as stored"


async def test_a_double_press_applies_once(harness: Harness) -> None:
    await start(harness)
    user = whose_turn(harness, (ANN, BOB))
    assert user is not None
    payload = buttons(harness.screen.hands[user.id])[0].payload
    version = await harness.version()
    await asyncio.gather(*(harness.press(user, payload) for _ in range(10)))
    assert await harness.version() == version + 1


async def test_a_press_after_the_game_ended_is_refused(harness: Harness) -> None:
    await start(harness)
    user = whose_turn(harness, (ANN, BOB))
    assert user is not None
    payload = buttons(harness.screen.hands[user.id])[0].payload
    await harness.surrender(ANN)
    assert "surrendered" in harness.screen.notices[-1].plain_text
    version = await harness.version()
    await harness.press(user, payload)
    assert await harness.version() == version
    assert "over" in harness.screen.alerts[-1].text


async def test_leave_during_play_is_a_surrender_and_the_leaver_is_the_durak(harness: Harness) -> None:
    await start(harness)
    await harness.surrender(BOB)
    assert "Bob surrendered and is the durak" in harness.screen.notices[-1].plain_text
    await harness.command(ANN, "stats")
    standings = harness.screen.replies[-1].plain_text.splitlines()
    assert standings[1] == "Provisional (fewer than 5 games):"  # one rated game each
    assert standings[2].startswith("· Ann — ") and "durak: 0 times" in standings[2]
    assert standings[3].startswith("· Bob — ") and "durak: 1 time" in standings[3]
    assert standings[4] == "Most often the durak: Bob (1 time)"


async def test_stats_count_a_game_once(harness: Harness) -> None:
    await start(harness)
    await harness.surrender(BOB)
    await harness.command(BOB, "leave")
    await harness.command(ANN, "stats")
    assert "1 game · durak: 1 time" in harness.screen.replies[-1].plain_text


async def test_a_timer_that_fires_after_the_player_moved_does_nothing(harness: Harness) -> None:
    await start(harness, "timer=30")
    stale_version = await harness.version()
    user = whose_turn(harness, (ANN, BOB))
    await harness.press(user, buttons(harness.screen.hands[user.id])[0].payload)  # type: ignore[union-attr]
    from bot.inputs import TimerDue

    version = await harness.version()
    effects = await harness.service.handle(TimerDue("tg", "-100", stale_version))
    assert effects == [] and await harness.version() == version


async def test_a_reminder_comes_fifteen_seconds_before_the_timeout(harness: Harness) -> None:
    await start(harness, "timer=30")
    harness.clock += 14
    assert await harness.fire_timers() == []
    harness.clock += 1
    effects = await harness.fire_timers()
    assert any("15 seconds left" in e.message.plain_text for e in effects if hasattr(e, "message"))


async def test_timeout_plays_the_safe_default_and_two_in_a_row_hand_the_seat_to_the_ai(
    harness: Harness,
) -> None:
    await start(harness, "timer=15")
    opener = whose_turn(harness, (ANN, BOB))
    assert opener is not None
    harness.clock += 16
    await harness.fire_timers()
    assert "ran out of time" in harness.screen.table.plain_text  # type: ignore[union-attr]
    assert "played" in harness.screen.table.plain_text  # type: ignore[union-attr]


async def test_rematch_opens_a_lobby_with_the_same_players(harness: Harness) -> None:
    await start(harness, "transfer")
    await harness.surrender(BOB)
    effects = await harness.press(ANN, buttons(harness.screen.notices[-1])[0].payload)
    table = next(e for e in effects if isinstance(e, ShowTable))
    assert table.new_message and "1. Ann" in table.message.plain_text and "2. Bob" in table.message.plain_text
    assert "Transfer" in table.message.plain_text


async def test_the_durak_of_the_last_game_sets_the_opener_of_the_next(harness: Harness) -> None:
    await start(harness)
    await harness.surrender(BOB)  # Bob is the durak
    await harness.press(ANN, buttons(harness.screen.notices[-1])[0].payload)
    await harness.tap(ANN, "Start")
    # durak_left: the player left of Bob (seat 1) is seat 0, Ann, who attacks first
    assert whose_turn(harness, (ANN, BOB)) == ANN
    assert "Ann attacks" in harness.screen.table.plain_text  # type: ignore[union-attr]


async def test_payloads_stay_within_telegrams_64_bytes(harness: Harness) -> None:
    await start(harness, "deck=52", (ANN, BOB, CAT))
    await play_to_the_end(harness, (ANN, BOB, CAT), seed=3)
    for message in [harness.screen.table, *harness.screen.hands.values(), *harness.screen.notices]:
        for b in buttons(message):
            assert len(b.payload.encode()) <= 64 and parse(b.payload) is not None


async def test_the_store_being_down_gives_a_clear_alert(harness: Harness) -> None:
    await start(harness)
    user = whose_turn(harness, (ANN, BOB))
    payload = buttons(harness.screen.hands[user.id])[0].payload  # type: ignore[union-attr]

    async def broken(*_: object, **__: object) -> None:
        from storage.errors import StoreUnavailable

        raise StoreUnavailable("down")

    harness.store.load = broken  # type: ignore[method-assign]
    harness.store.save_or_current = broken  # type: ignore[method-assign]
    effects = await harness.press(user, payload)  # type: ignore[arg-type]
    assert [e.text for e in effects if isinstance(e, Alert)] == [
        "The game service is unavailable, try again in a moment."
    ]
    assert not any(isinstance(e, Notice) for e in effects)


async def test_a_game_against_ai_seats_runs_to_the_end_with_the_ai_moving_between_taps(
    harness: Harness,
) -> None:
    await harness.command(ANN, "newgame", "transfer")
    await harness.tap(ANN, "Add AI")
    await harness.tap(ANN, "hard")
    await harness.tap(ANN, "Start")
    await play_to_the_end(harness, (ANN,), seed=5)
    assert "Game over" in harness.screen.notices[-1].plain_text


async def test_ai_seats_wait_for_their_timer_when_a_delay_is_set(fake_redis: object) -> None:
    from storage.store import RedisGameStore

    harness = Harness(RedisGameStore(fake_redis), ai_delay=1.5)  # type: ignore[arg-type]
    await harness.command(ANN, "newgame")
    await harness.tap(ANN, "Add AI")
    await harness.tap(ANN, "Start")
    for _ in range(500):
        if harness.screen.notices:
            break
        if whose_turn(harness, (ANN,)) is ANN:
            choices = [b for b in buttons(harness.screen.hands[ANN.id]) if not b.payload.endswith("|e")]
            await harness.press(ANN, choices[0].payload)
        else:
            assert await harness.fire_timers() == [], "the AI must not move before its delay"
            harness.clock += 1.5
            assert await harness.fire_timers(), "the AI moves once its delay is over"
    assert harness.screen.notices


async def seat_flags(harness: Harness) -> list[tuple[int, bool]]:
    from bot.session import ChatSession
    from storage import ChatRef

    record = await harness.store.load(ChatRef("tg", "-100"))
    session = ChatSession.decode(record.state or "")
    return [(seat.timeouts, seat.autopilot) for seat in session.header.seats]


async def test_two_timeouts_in_a_row_hand_the_seat_to_the_ai_until_its_owner_taps(harness: Harness) -> None:
    await start(harness, "timer=15")
    timeouts = 0
    for _ in range(400):
        user = whose_turn(harness, (ANN, BOB))
        assert user is not None and not harness.screen.notices
        if user == ANN:
            await harness.press(ANN, buttons(harness.screen.hands[ANN.id])[0].payload)
            continue
        harness.clock += 16
        await harness.fire_timers()
        timeouts += 1
        if timeouts == 1:
            assert (await seat_flags(harness))[1] == (1, False)
        else:
            assert (await seat_flags(harness))[1] == (2, True)
            break
    assert "ran out of time" in " ".join(m.plain_text for m in [harness.screen.table] if m)
    await harness.tap(BOB, "My hand")
    assert (await seat_flags(harness))[1] == (0, False), "the owner's tap takes the seat back"


async def test_hint_ranks_every_legal_move_in_a_private_practice_game(harness: Harness) -> None:
    await harness.command(ANN, "newgame", private=True)
    await harness.tap(ANN, "Add AI")
    await harness.tap(ANN, "Start")
    while whose_turn(harness, (ANN,)) is not ANN:
        await harness.press(ANN, buttons(harness.screen.hands[ANN.id])[0].payload)
    moves = [b for b in buttons(harness.screen.hands[ANN.id]) if not b.payload.endswith("|e")]
    await harness.command(ANN, "hint", private=True)
    lines = harness.screen.replies[-1].plain_text.splitlines()
    assert lines[0].startswith("Chance of not being the durak")
    assert len(lines) - 1 == len(moves)
    assert all(line.endswith("%") for line in lines[1:])


async def test_hint_is_refused_in_a_group_game(harness: Harness) -> None:
    await start(harness)
    await harness.command(ANN, "hint")
    assert "practice games" in harness.screen.replies[-1].plain_text


async def test_a_team_game_seats_partners_apart_and_counts_the_losing_team_together(harness: Harness) -> None:
    dan = User("4", "Dan")
    await harness.command(ANN, "newgame", "teams")
    await harness.tap(ANN, "Team A")
    await harness.tap(BOB, "Team A")
    await harness.tap(CAT, "Team B")
    await harness.tap(dan, "Join")
    assert "2. Bob · Team A" in harness.screen.table.plain_text  # type: ignore[union-attr]
    await harness.tap(ANN, "Start")
    names = [
        line.split(" — ")[0].strip(" ▶")
        for line in harness.screen.table.plain_text.splitlines()
        if " — " in line
    ]  # type: ignore[union-attr]
    assert names == ["Ann", "Cat", "Bob", "Dan"], "partners alternate round the table"
    await harness.surrender(CAT)
    assert "Cat surrendered" in harness.screen.notices[-1].plain_text
    await harness.command(ANN, "stats")
    stats = harness.screen.replies[-1].plain_text
    rows = {
        row.split(" — ")[0].strip("· "): row.split(" · ", 1)[1] for row in stats.splitlines() if " — " in row
    }
    assert rows["Cat"] == rows["Dan"] == "1 game · durak: 1 time · 0 pts"
    assert rows["Ann"] == rows["Bob"] == "1 game · durak: 0 times · 3 pts"
    assert "Most often the durak: Dan, Cat (1 time)" in stats


async def test_a_team_game_needs_four_or_six_players(harness: Harness) -> None:
    await harness.command(ANN, "newgame", "teams")
    await harness.tap(BOB, "Join")
    await harness.tap(CAT, "Join")
    await harness.tap(ANN, "Start")
    assert "4 players" in harness.screen.alerts[-1].text


async def test_teams_and_transfer_together_are_refused_with_a_clear_message(harness: Harness) -> None:
    await harness.command(ANN, "newgame", "teams transfer")
    assert "not played in team games" in harness.screen.replies[-1].plain_text


async def test_severny_announces_the_new_trumps_loudly_in_the_group(harness: Harness) -> None:
    await start(harness, "severny deck=24 timer=0", (ANN, BOB))
    await play_to_the_end(harness, (ANN, BOB), seed=11)
    changes = [n.plain_text for n in harness.screen.notices if "Trumps change" in n.plain_text]
    assert len(changes) == 1 and "are trumps now" in changes[0]


def first_seed_where(words: str, players: int, wanted: Callable[[Game], bool]) -> int:
    for seed in range(10_000):
        if wanted(new_game(Settings.from_words(words), [f"P{i}" for i in range(players)], seed=seed)):
            return seed
    raise AssertionError("no such deal in 10,000 seeds")


@pytest.mark.parametrize("words", ["exchange", "exchange=ace"])
async def test_the_holder_of_the_lowest_trump_sees_an_exchange_button_and_it_swaps_the_cards(
    fake_redis: object, words: str
) -> None:
    def fits(game: Game) -> bool:
        return game.exchange_holder() is not None

    seed = first_seed_where(words, 2, fits)
    harness = Harness(RedisGameStore(fake_redis), seed=seed)  # type: ignore[arg-type]
    await start(harness, words)
    game = new_game(Settings.from_words(words), ["Ann", "Bob"], seed=seed)
    holder = (ANN, BOB)[game.exchange_holder() or 0]
    swap = [b for b in buttons(harness.screen.hands[holder.id]) if b.payload.endswith("|e")]
    assert [b.label for b in swap] == [f"Swap for {game.trump_card.symbol}"]
    await harness.press(holder, swap[0].payload)
    assert game.trump_card.symbol in harness.screen.hands[holder.id].plain_text
    lowest = game.lowest_trump()
    assert f"({CARDS[lowest].symbol})" in harness.screen.table.plain_text  # type: ignore[union-attr]


async def test_exchange_ace_is_not_offered_when_the_turned_up_trump_is_not_the_ace(
    fake_redis: object,
) -> None:
    def fits(game: Game) -> bool:
        return game.talon[-1] >> 2 != 12 and game.talon[-1] != game.lowest_trump()

    seed = first_seed_where("exchange=ace", 2, fits)
    harness = Harness(RedisGameStore(fake_redis), seed=seed)  # type: ignore[arg-type]
    await start(harness, "exchange=ace")
    for user in (ANN, BOB):
        assert not [b for b in buttons(harness.screen.hands[user.id]) if b.payload.endswith("|e")]


@pytest.mark.parametrize(("words", "step"), [("", 1), ("opener=durak_right", -1)])
async def test_the_opener_follows_the_last_durak_across_three_games(
    harness: Harness, words: str, step: int
) -> None:
    players = (ANN, BOB, CAT)
    await start(harness, words, players)
    for leaver in (BOB, CAT):
        await harness.surrender(leaver)
        durak_seat = players.index(leaver)
        await harness.press(ANN, buttons(harness.screen.notices[-1])[0].payload)
        await harness.tap(ANN, "Start")
        opener = players[(durak_seat + step) % 3]
        assert f"{opener.name} attacks" in harness.screen.table.plain_text  # type: ignore[union-attr]
