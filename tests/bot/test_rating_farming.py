"""Ratings measure play against people (docs/reliability.md §12): a game with fewer than two people counts as a
game but is not rated, AI seats never feed a person's rating (only the people's order among themselves is
rated), a player who cancels a rated game counts as surrendering it, and an admin who is not playing stops a
game that cannot go on with nothing recorded."""

from __future__ import annotations

from openskill.models import PlackettLuce

from bot.effects import Effect, Reply
from bot.inputs import User
from bot.ratings import NEW, Change, rated
from bot.session import Seat
from core import Result
from storage import ChatRef
from storage.models import PlayerStats
from tests.bot.conftest import ANN, BOB, CAT, EVE
from tests.bot.harness import Harness, buttons
from tests.bot.stacked import game_now, press_move, stacked_game

OPENSKILL = PlackettLuce()  # openskill's own model with its defaults, built here, not taken from the bot
DAN = User("4", "Dan")
HANDS = ["6S 7S 8S 9S TS JS", "6C 7C 8C 9C TC JC", "6D 7D 8D 9D TD JD"]
# deck=24, no talon: Ann (seat 0) dumps her nines on Bob, who takes, then her tens on Dan's bout, and is out
ANN_GOES_OUT = ["9S 9C 9D 9H TS TC", "JS JC JD JH QS QC", "TD TH QD QH KS KC", "KD KH AS AC AD AH"]
ANN_OUT_MOVES = ["0 a:9S", "1 t", "0 a:9C", "0 a:9D", "0 a:9H", "2 a:TD", "3 c:0:KD", "2 p", "0 a:TS",
                 "3 c:1:AS", "2 p", "0 a:TC"]  # fmt: skip


def person(user_id: str, name: str, rating: tuple[float, float] = NEW, team: int | None = None) -> Seat:
    return Seat(user_id=user_id, name=name, rating=rating, team=team)


def ai(number: int, level: str, team: int | None = None) -> Seat:
    return Seat(user_id=f"ai{number}-g1", name=f"AI {number}", ai=level, team=team)


def openskill_says(ratings: list[tuple[float, float]], ranks: list[int]) -> list[tuple[float, float]]:
    teams = [[OPENSKILL.rating(mu=mu, sigma=sigma)] for mu, sigma in ratings]
    return [(team[0].mu, team[0].sigma) for team in OPENSKILL.rate(teams, ranks=[float(r) for r in ranks])]


def after(changes: list[Change | None] | None) -> list[tuple[float, float] | None]:
    assert changes is not None
    return [None if change is None else change.after for change in changes]


def question(effects: list[Effect]) -> Reply:
    replies = [e for e in effects if isinstance(e, Reply)]
    assert len(replies) == 1, replies
    return replies[0]


async def rows(harness: Harness) -> dict[str, PlayerStats]:
    return {row.name: row for row in await harness.store.stats(ChatRef(harness.platform, harness.chat))}


async def one_person_with(harness: Harness, *levels: str) -> None:
    """Ann alone with AI seats of ``levels``, dealt in."""
    await harness.command(ANN, "newgame")
    for level in levels:
        await harness.tap(ANN, "Add AI" if level == "normal" else level)
    await harness.tap(ANN, "Start")


# ---- who is rated ---------------------------------------------------------------------------------------


def test_one_person_who_goes_out_first_against_five_ai_seats_is_not_rated() -> None:
    seats = [person("1", "Eve"), *(ai(n, "easy") for n in range(1, 6))]
    result = Result(durak=5, draw=False, order_out=(0, 1, 2, 3, 4), reason="last_holder", losers=(5,))
    assert rated(result, seats) is None


def test_ai_seats_do_not_feed_a_persons_rating_only_the_peoples_order_among_themselves() -> None:
    # AI 1 out first, Bob second, AI 3 third, Ann the durak: of the people, Bob beat Ann, and that is all
    seats = [person("1", "Ann"), ai(1, "hard"), person("2", "Bob", (27.0, 5.0)), ai(3, "easy")]
    result = Result(durak=0, draw=False, order_out=(1, 2, 3), reason="last_holder", losers=(0,))
    ann, bob = openskill_says([NEW, (27.0, 5.0)], [2, 1])
    assert after(rated(result, seats)) == [ann, None, bob, None]


def test_the_levels_of_the_ai_seats_change_nothing_in_a_persons_rating() -> None:
    result = Result(durak=3, draw=False, order_out=(0, 1, 2), reason="last_holder", losers=(3,))

    def ratings_with(level: str) -> list[tuple[float, float] | None]:
        return after(rated(result, [person("1", "Ann"), ai(1, level), person("2", "Bob"), ai(3, level)]))

    ann, bob = openskill_says([NEW, NEW], [1, 2])
    assert ratings_with("easy") == ratings_with("hard") == [ann, None, bob, None]


def test_a_team_game_with_ai_partners_rates_the_people_of_one_side_against_the_other() -> None:
    # partners alternate round the table: Ann and an AI are team A, Bob and an AI team B, and team B loses
    seats = [
        person("1", "Ann", team=0),
        person("2", "Bob", team=1),
        ai(2, "easy", team=0),
        ai(3, "hard", team=1),
    ]
    result = Result(durak=3, draw=False, order_out=(0, 2), reason="last_team", losers=(1, 3))
    ann, bob = openskill_says([NEW, NEW], [1, 2])
    assert after(rated(result, seats, teams=True)) == [ann, bob, None, None]


def test_a_team_game_whose_people_all_sit_on_one_side_is_not_rated() -> None:
    seats = [
        person("1", "Ann", team=0),
        ai(1, "easy", team=1),
        person("2", "Bob", team=0),
        ai(3, "easy", team=1),
    ]
    result = Result(durak=1, draw=False, order_out=(0, 2, 3), reason="last_team", losers=(1, 3))
    assert rated(result, seats, teams=True) is None


async def test_a_game_of_one_person_with_ai_seats_counts_as_a_game_but_is_not_rated(harness: Harness) -> None:
    await one_person_with(harness, "easy")
    await harness.surrender(ANN)
    result = harness.screen.notices[-1].plain_text
    assert "rating" not in result.replace("Not rated: ratings", "")
    assert "Not rated: ratings count only games of people against people." in result.splitlines()
    ann = (await rows(harness))["Ann"]
    assert (ann.games, ann.durak, ann.rated, ann.rating) == (1, 1, 0, None)


async def test_a_lobby_of_one_person_with_ai_seats_says_its_game_will_not_be_rated(harness: Harness) -> None:
    await harness.command(ANN, "newgame")
    await harness.tap(ANN, "easy")
    lines = harness.screen.table.plain_text.splitlines()  # type: ignore[union-attr]
    assert "Not rated: ratings count only games of people against people." in lines
    await harness.tap(BOB, "Join")
    assert "Not rated" not in harness.screen.table.plain_text  # type: ignore[union-attr]


async def test_two_people_with_ai_seats_are_rated_on_their_order_among_themselves(harness: Harness) -> None:
    await harness.command(ANN, "newgame")
    await harness.tap(BOB, "Join")
    await harness.tap(ANN, "hard")
    await harness.tap(ANN, "Start")
    await harness.surrender(BOB)
    ann, bob = openskill_says([NEW, NEW], [1, 2])
    stats = await rows(harness)
    assert (stats["Ann"].rating, stats["Bob"].rating) == (ann, bob)


# ---- cancelling a running game --------------------------------------------------------------------------


async def test_cancel_by_a_player_of_a_rated_game_asks_whether_to_surrender_and_changes_nothing(
    harness: Harness,
) -> None:
    await stacked_game(harness, (ANN, BOB, CAT), HANDS, trump="AS")
    version = await harness.version()
    asked = question(await harness.command(ANN, "cancel"))
    assert (asked.private, asked.user_id) == (True, ANN.id)
    assert asked.message.plain_text.splitlines()[0] == (
        "Other people are playing: cancelling counts as your surrender. "
        "You will be the durak and the game ends for everyone."
    )
    assert [b.label for b in buttons(asked.message)] == ["Yes, surrender"]
    assert await harness.version() == version and not harness.screen.notices


async def test_a_player_who_cancels_a_rated_game_they_are_losing_is_its_durak_and_it_is_rated(
    harness: Harness,
) -> None:
    await stacked_game(harness, (ANN, BOB), HANDS[:2], trump="AS")
    asked = question(await harness.command(ANN, "cancel"))
    await harness.press(ANN, buttons(asked.message)[0].payload)
    assert "Ann surrendered and is the durak" in harness.screen.notices[-1].plain_text
    ann, bob = openskill_says([NEW, NEW], [2, 1])
    stats = await rows(harness)
    assert (stats["Ann"].durak, stats["Ann"].rating, stats["Bob"].rating) == (1, ann, bob)


async def test_an_admin_who_plays_a_rated_game_surrenders_by_cancelling_it_like_anyone(
    harness: Harness,
) -> None:
    await stacked_game(harness, (ANN, BOB), HANDS[:2], trump="AS")
    version = await harness.version()
    asked = question(await harness.command(BOB, "cancel", is_admin=True))
    assert "cancelling counts as your surrender" in asked.message.plain_text
    assert await harness.version() == version


async def test_a_player_already_out_cannot_cancel_the_rated_game_the_others_play_on(harness: Harness) -> None:
    players = (ANN, BOB, CAT, DAN)
    await stacked_game(harness, players, ANN_GOES_OUT, trump=None, words="deck=24")
    for move in ANN_OUT_MOVES:
        seat, code = move.split()
        await press_move(harness, players[int(seat)], code)
    assert (await game_now(harness)).is_out(0)
    version = await harness.version()
    await harness.command(ANN, "cancel")
    assert harness.screen.replies[-1].plain_text == (
        "The others are still playing and the game counts: only an admin who is not playing can stop it."
    )
    assert await harness.version() == version


async def test_an_admin_who_is_not_playing_stops_a_game_and_nothing_is_recorded(harness: Harness) -> None:
    await stacked_game(harness, (ANN, BOB), HANDS[:2], trump="AS")
    await harness.command(EVE, "cancel", is_admin=True)
    assert [notice.plain_text for notice in harness.screen.notices] == ["Eve cancelled the game."]
    assert await rows(harness) == {}


async def test_cancelling_a_game_of_one_person_with_ai_seats_just_ends_it(harness: Harness) -> None:
    await one_person_with(harness, "easy", "hard")
    await harness.command(ANN, "cancel")
    assert [notice.plain_text for notice in harness.screen.notices] == ["Ann cancelled the game."]
    assert await rows(harness) == {}
