"""A seat the AI played is not its owner's win (rules.md §9.6). The issue: Dana never pressed anything, the AI
took her seat after two timeouts, and she finished 1st, +3 points and a rating of 3.0.

A seat the AI is still playing when it goes out, or when the game ends, counts for its owner as played: no
points, no first out, no win, and in the ratings a place below every person who finished their own seat, the
durak included. Whoever is left holding cards is the durak as usual; an owner who taps again before their
seat goes out takes it back and is scored as usual; the table, the result and /stats say whose seat the AI
played. Whole games through the service on stacked decks (tests/bot/stacked.py): Dana never presses (two
timeouts, then the AI plays her seat), the others play `plain_line`."""

from __future__ import annotations

import json

import pytest
from openskill.models import PlackettLuce

from bot.game.archive import final_position, result_message, seats_of
from bot.i18n import translator
from bot.inputs import User
from bot.render.lobby import seat_name
from bot.render.summary import render_stats
from bot.session import ChatSession, Playing, Seat
from core import Action, Game, Kind
from storage import ChatRef
from storage.models import PlayerStats
from tests.bot.conftest import ANN, BOB, CAT
from tests.bot.harness import Harness
from tests.bot.stacked import stacked_game

OPENSKILL = PlackettLuce()  # openskill's own model with its defaults, built here, not taken from the bot
DANA = User("4", "Dana")
PLAYERS = (BOB, CAT, DANA, ANN)  # Bob opens the first bout, on Cat; Dana is seat 2
DANA_SEAT = 2
MARK = "🤖 played by the AI for Dana"
AI_FINISHED = "The AI played your seat to the end: the game counts as played, with no points and no win."
# deck=24, the whole deck dealt; hearts are trumps (Ann's last card, as the dealer's). Dana holds five of the
# six trumps and an ace: her seat goes out first, whether the AI plays it or she does.
DANA_STRONG = ["9S TS JS QS KS 9C", "TC JC QC KC AC 9D", "AH KH QH JH TH AS", "TD JD QD KD AD 9H"]
# clubs are trumps and Dana holds none: her seat, the AI playing it, is left holding cards
DANA_WEAK = ["TS KH KC AS QC KS", "AC JD KD AH TD JS", "QH TH 9S QS QD 9H", "JC TC JH AD 9D 9C"]


async def session_now(harness: Harness) -> ChatSession | None:
    record = await harness.store.load(ChatRef(harness.platform, harness.chat))
    return ChatSession.decode(record.state) if record.state is not None else None


async def running(harness: Harness) -> tuple[Playing, Game] | None:
    """The game and its header while it runs; None once it is over."""
    session = await session_now(harness)
    if session is None or session.game is None:
        return None
    assert isinstance(session.header, Playing)
    return session.header, session.game


def plain_line(game: Game, seat: int) -> str:
    """A person's move that needs no judgement: cover with the lowest card that beats, else take; attack
    with the lowest card (trumps last); never throw in."""
    legal = game.legal_actions(seat)

    def lowest(action: Action) -> tuple[bool, int]:
        return (action.card_id & 3 == game.trump_index, action.card_id)  # a card's id: rank * 4 + suit

    for kind in (Kind.COVER, Kind.TAKE, Kind.PASS, Kind.ATTACK):
        moves = [action for action in legal if action.kind is kind]
        if moves:
            return min(moves, key=lowest).code
    return legal[0].code


async def play_to_the_end(harness: Harness, back_after: int = 0, tap_once_out: bool = False) -> str:
    """Dana's clock runs out on each of her turns (after two, the AI plays her seat); the others play
    `plain_line` through their buttons, until the game is over. ``back_after``: Dana taps "My hand" on the
    table after that many timeouts and plays the plain line herself from then on; ``tap_once_out``: she taps
    it once her seat is out. The game's id."""
    timeouts, tapped, game_id = 0, False, ""
    while (now := await running(harness)) is not None:
        header, game = now
        game_id = header.game_id
        if tap_once_out and not tapped and game.is_out(DANA_SEAT):
            await harness.tap(DANA, "My hand")
            tapped = True
            continue
        seat = game.to_act
        assert seat is not None
        if PLAYERS[seat] == DANA and not (back_after and timeouts >= back_after):
            harness.clock += 61
            await harness.fire_timers()
            timeouts += 1
            if timeouts == back_after:
                await harness.tap(DANA, "My hand")
            continue
        move = plain_line(game, seat)
        await harness.press(PLAYERS[seat], f"{harness.chat}|{game_id}|{game.step}|{move}")
    return game_id


async def rows(harness: Harness) -> dict[str, PlayerStats]:
    return {row.name: row for row in await harness.store.stats(ChatRef(harness.platform, harness.chat))}


def openskill_says(ranks: list[int]) -> list[tuple[float, float]]:
    """openskill's own ratings after one game of new players, each alone on a team, at ``ranks``."""
    teams = [[OPENSKILL.rating()] for _ in ranks]
    return [(team[0].mu, team[0].sigma) for team in OPENSKILL.rate(teams, ranks=[float(r) for r in ranks])]


def places(text: str) -> list[str]:
    """The result's lines, each without the rating change a place line ends with (" · rating +2.0")."""
    return [line.split(" · rating ")[0] for line in text.splitlines()]


def result_lines(harness: Harness) -> list[str]:
    return places(harness.screen.notices[-1].plain_text)


# ---- scored: played, and no more ------------------------------------------------------------------------


async def test_a_seat_the_ai_finished_scores_no_points_and_ranks_below_the_durak(harness: Harness) -> None:
    await stacked_game(harness, PLAYERS, DANA_STRONG, trump=None, words="deck=24")
    await play_to_the_end(harness)
    assert result_lines(harness)[:4] == [
        "Game over: Cat is the durak!",
        f"1. {MARK}",
        "2. Ann (+2)",
        "3. Bob (+1)",
    ]
    stats = await rows(harness)
    dana = stats["Dana"]
    assert (dana.games, dana.points, dana.first_out, dana.durak, dana.ai_finished) == (1, 0, 0, 0, 1)
    assert (stats["Ann"].points, stats["Ann"].first_out) == (2, 0), "nobody moves up: Ann went out 2nd"
    # people ranked Ann, Bob, Cat the durak, then Dana: seats Bob 2, Cat 3, Dana 4, Ann 1
    bob, cat, dana_rating, ann = openskill_says([2, 3, 4, 1])
    assert (stats["Bob"].rating, stats["Cat"].rating, dana.rating, stats["Ann"].rating) == (
        bob,
        cat,
        dana_rating,
        ann,
    )
    assert dana_rating[0] < cat[0], "below the durak"


async def test_an_absent_owner_left_holding_cards_is_the_durak_as_usual(harness: Harness) -> None:
    await stacked_game(harness, PLAYERS, DANA_WEAK, trump=None, words="deck=24")
    await play_to_the_end(harness)
    assert result_lines(harness)[0] == f"Game over: {MARK} is the durak!"
    stats = await rows(harness)
    dana = stats["Dana"]
    assert (dana.games, dana.durak, dana.points, dana.first_out, dana.ai_finished) == (1, 1, 0, 0, 1)
    assert dana.streak == -1, "a durak's streak, as usual"
    assert dana.rating is not None
    assert all(dana.rating[0] < row.rating[0] for row in stats.values() if row.rating and row is not dana)


async def test_an_owner_who_taps_again_before_their_seat_goes_out_is_scored_as_usual(
    harness: Harness,
) -> None:
    await stacked_game(harness, PLAYERS, DANA_STRONG, trump=None, words="deck=24")
    await play_to_the_end(harness, back_after=2)
    assert result_lines(harness)[:2] == ["Game over: Cat is the durak!", "1. Dana (+3)"]
    dana = (await rows(harness))["Dana"]
    assert (dana.points, dana.first_out, dana.ai_finished) == (3, 1, 0)
    assert dana.rating == openskill_says([3, 4, 1, 2])[DANA_SEAT]  # out first, as the Dana: 3.0


async def test_a_tap_once_the_seat_is_out_does_not_take_it_back(harness: Harness) -> None:
    await stacked_game(harness, PLAYERS, DANA_STRONG, trump=None, words="deck=24")
    await play_to_the_end(harness, tap_once_out=True)
    assert result_lines(harness)[1] == f"1. {MARK}"
    dana = (await rows(harness))["Dana"]
    assert (dana.points, dana.first_out, dana.ai_finished) == (0, 0, 1)


async def test_a_seat_the_ai_finished_earns_no_streak_and_no_head_to_head_win(harness: Harness) -> None:
    await stacked_game(harness, PLAYERS, DANA_STRONG, trump=None, words="deck=24")
    await play_to_the_end(harness)
    chat = ChatRef(harness.platform, harness.chat)
    dana = await harness.store.personal(chat, DANA.id)
    assert (dana.stats.streak, dana.rivals) == (0, [])
    cat = await harness.store.personal(chat, CAT.id)  # the durak: lost to Ann and Bob, not to Dana's seat
    assert sorted((rival.name, rival.won, rival.lost) for rival in cat.rivals) == [
        ("Ann", 0, 1),
        ("Bob", 0, 1),
    ]


# ---- marked: the table, the result, /stats, the owner's hand ---------------------------------------------


async def until_the_ai_plays_for_dana(harness: Harness) -> None:
    """The others move on, and Dana's clock runs out on her first two turns: the AI plays her seat now."""
    assert harness.screen.table is not None
    for _ in range(2):
        while (now := await running(harness)) is not None and now[1].to_act != DANA_SEAT:
            header, game = now
            seat = game.to_act
            assert seat is not None
            move = plain_line(game, seat)
            await harness.press(PLAYERS[seat], f"{harness.chat}|{header.game_id}|{game.step}|{move}")
        assert MARK not in harness.screen.table.plain_text
        harness.clock += 61
        await harness.fire_timers()
    now = await running(harness)
    assert now is not None and now[0].seats[DANA_SEAT].autopilot and not now[1].is_out(DANA_SEAT)


async def test_an_owner_who_surrenders_a_seat_the_ai_plays_is_the_durak_in_person(harness: Harness) -> None:
    await stacked_game(harness, PLAYERS, DANA_STRONG, trump=None, words="deck=24")
    await until_the_ai_plays_for_dana(harness)
    await harness.surrender(DANA)
    assert result_lines(harness)[0] == "Game over: Dana surrendered and is the durak."
    dana = (await rows(harness))["Dana"]
    assert (dana.durak, dana.ai_finished) == (1, 0)


async def test_the_table_marks_the_seat_the_ai_plays_for_its_owner_until_they_take_it_back(
    harness: Harness,
) -> None:
    await stacked_game(harness, PLAYERS, DANA_STRONG, trump=None, words="deck=24")
    await until_the_ai_plays_for_dana(harness)
    assert harness.screen.table is not None
    assert f"{MARK} — " in harness.screen.table.plain_text
    await harness.tap(DANA, "My hand")
    assert MARK not in harness.screen.table.plain_text


async def test_the_owners_hand_says_the_ai_finished_the_seat_not_well_played(harness: Harness) -> None:
    await stacked_game(harness, PLAYERS, DANA_STRONG, trump=None, words="deck=24")
    await play_to_the_end(harness)
    hand = harness.screen.hands[DANA.id].plain_text
    assert AI_FINISHED in hand
    assert "Well played" not in hand and "You finished" not in hand


async def test_stats_mark_the_games_the_ai_finished_for_a_person(harness: Harness) -> None:
    await stacked_game(harness, PLAYERS, DANA_STRONG, trump=None, words="deck=24")
    await play_to_the_end(harness)
    await harness.command(ANN, "stats")
    rows_shown = harness.screen.replies[-1].plain_text.splitlines()
    dana = next(text for text in rows_shown if " Dana — " in text)
    assert dana.endswith(" · 1 game played by the AI for Dana")
    assert not any("played by the AI" in text for text in rows_shown if text is not dana)


async def test_the_replayed_result_scores_and_marks_the_seat_as_the_chat_was_told(harness: Harness) -> None:
    await stacked_game(harness, PLAYERS, DANA_STRONG, trump=None, words="deck=24")
    game_id = await play_to_the_end(harness)
    archived = await harness.store.archived_game(game_id)
    assert archived is not None
    game, _events = final_position(archived)
    replayed = result_message(game, seats_of(json.loads(archived)), harness.chat, game_id, translator("en"))
    assert replayed is not None
    assert places(replayed.plain_text)[:4] == result_lines(harness)[:4], "the same places, without ratings"
    assert places(replayed.plain_text)[1] == f"1. {MARK}", "no points for Dana's seat"


@pytest.mark.parametrize("lang", ["ru", "it"])
def test_the_mark_is_said_in_the_chats_language(lang: str) -> None:
    tr = translator(lang)
    seat = Seat(user_id="4", name="Dana", autopilot=True)
    assert seat_name(seat, tr) != MARK and "Dana" in seat_name(seat, tr)
    row = PlayerStats("4", "Dana", games=2, ai_finished=2, rating=(20.0, 8.0), rated=2)
    shown = render_stats([row], tr).plain_text
    assert "2 games played by the AI for Dana" not in shown and "Dana" in shown.splitlines()[-1]
