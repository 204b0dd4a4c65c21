"""Ratings (bot/ratings.py): a game's finishing order rates its people exactly as openskill's own
Plackett-Luce model does with that order. AI seats are not ranked at all (tests/bot/test_rating_farming.py)."""

from __future__ import annotations

import pytest
from openskill.models import PlackettLuce

from bot.ratings import NEW, Change, ordinal, places, rated
from bot.session import Seat
from core import Result

OPENSKILL = PlackettLuce()  # openskill's own model with its defaults, built here, not taken from the bot


def people(*ratings: tuple[float, float] | None) -> list[Seat]:
    return [Seat(user_id=str(n), name=f"P{n}", rating=rating) for n, rating in enumerate(ratings)]


def openskill_says(ratings: list[tuple[float, float]], ranks: list[int]) -> list[tuple[float, float]]:
    """What openskill makes of each player alone on a team, finishing at ``ranks``."""
    teams = [[OPENSKILL.rating(mu=mu, sigma=sigma)] for mu, sigma in ratings]
    return [(team[0].mu, team[0].sigma) for team in OPENSKILL.rate(teams, ranks=[float(r) for r in ranks])]


def after(changes: list[Change | None] | None) -> list[tuple[float, float] | None]:
    assert changes is not None
    return [None if change is None else change.after for change in changes]


def test_two_players_the_durak_is_ranked_below_the_winner() -> None:
    seats = people((25.0, 8.333), (28.0, 4.0))
    result = Result(durak=1, draw=False, order_out=(0,), reason="last_holder", losers=(1,))
    assert after(rated(result, seats)) == openskill_says([(25.0, 8.333), (28.0, 4.0)], [1, 2])


def test_four_players_are_ranked_in_the_order_they_went_out_with_the_durak_last() -> None:
    ratings = [(25.0, 8.333), (30.0, 3.0), (22.0, 5.0), (26.0, 6.0)]
    result = Result(durak=2, draw=False, order_out=(3, 0, 1), reason="last_holder", losers=(2,))
    assert places(result, 4) == [2, 3, 4, 1]
    assert after(rated(result, people(*ratings))) == openskill_says(ratings, [2, 3, 4, 1])


def test_six_players_are_ranked_in_the_order_they_went_out_with_the_durak_last() -> None:
    ratings = [(25.0, 8.333), (31.0, 2.5), (19.0, 4.0), (27.5, 3.5), (24.0, 7.0), (22.0, 6.5)]
    result = Result(durak=0, draw=False, order_out=(4, 2, 5, 1, 3), reason="last_holder", losers=(0,))
    assert after(rated(result, people(*ratings))) == openskill_says(ratings, [6, 4, 2, 5, 1, 3])


def test_a_draw_ties_everyone() -> None:
    ratings = [(25.0, 8.333), (30.0, 3.0), (20.0, 5.0)]
    result = Result(durak=None, draw=True, order_out=(1, 0, 2), reason="everyone_out")
    assert places(result, 3) == [1, 1, 1]
    assert after(rated(result, people(*ratings))) == openskill_says(ratings, [1, 1, 1])


def test_a_team_game_rates_the_winning_side_above_the_losing_side() -> None:
    ratings = [(25.0, 8.333), (30.0, 3.0), (20.0, 5.0), (27.0, 4.0)]
    result = Result(durak=3, draw=False, order_out=(0, 2, 1), reason="last_team", losers=(1, 3))
    teams = [[OPENSKILL.rating(mu=m, sigma=s) for m, s in (ratings[0], ratings[2])],
             [OPENSKILL.rating(mu=m, sigma=s) for m, s in (ratings[1], ratings[3])]]  # fmt: skip
    winners, losers = OPENSKILL.rate(teams, ranks=[1.0, 2.0])
    expected = [winners[0], losers[0], winners[1], losers[1]]
    assert after(rated(result, people(*ratings), teams=True)) == [(r.mu, r.sigma) for r in expected]


def test_a_game_of_one_person_and_an_ai_seat_is_not_rated_whatever_the_ais_level() -> None:
    # Until issue 27 an AI seat played at a fixed rating per level, so a person alone with AI seats was rated
    # on every game (a farm); now a game must compare two people to be rated.
    result = Result(durak=0, draw=False, order_out=(1,), reason="last_holder", losers=(0,))
    for level in ("easy", "normal", "hard"):
        seats = [Seat(user_id="1", name="Ann", rating=NEW), Seat(user_id="ai:1", name="Bot", ai=level)]
        assert rated(result, seats) is None


def test_a_game_started_before_ratings_existed_is_not_rated() -> None:
    result = Result(durak=1, draw=False, order_out=(0,), reason="last_holder", losers=(1,))
    assert rated(result, people(NEW, None)) is None


def test_the_shown_rating_is_openskills_ordinal() -> None:
    assert ordinal((27.0, 2.0)) == OPENSKILL.rating(mu=27.0, sigma=2.0).ordinal() == pytest.approx(21.0)
    assert Change((25.0, 8.333), (27.0, 2.0)).delta == pytest.approx(21.0 - (25.0 - 3 * 8.333))


# ---- rules.md §9.6: a seat the AI played to its end ranks below everyone who finished their own --------


def test_a_seat_the_ai_finished_ranks_below_the_durak() -> None:
    # Dana (seat 1) went out first with the AI playing her seat; Cat (seat 2) is the durak
    ratings = [(25.0, 8.333), (25.0, 8.333), (22.0, 5.0), (26.0, 6.0)]
    seats = people(*ratings)
    seats[1] = seats[1].model_copy(update={"autopilot": True})
    result = Result(durak=2, draw=False, order_out=(1, 3, 0), reason="last_holder", losers=(2,))
    assert places(result, 4, by_ai=frozenset({1})) == [3, 5, 4, 2]
    changes = rated(result, seats)
    assert after(changes) == openskill_says(ratings, [2, 4, 3, 1])
    assert changes is not None and changes[1] is not None and changes[1].delta < 0


def test_seats_the_ai_finished_tie_so_none_gains_over_another() -> None:
    ratings = [(25.0, 8.333), (25.0, 8.333), (25.0, 8.333)]
    seats = [seat.model_copy(update={"autopilot": n > 0}) for n, seat in enumerate(people(*ratings))]
    result = Result(durak=2, draw=False, order_out=(1, 0), reason="last_holder", losers=(2,))
    assert after(rated(result, seats)) == openskill_says(ratings, [1, 2, 2])


def test_a_draw_ranks_a_seat_the_ai_finished_below_the_others() -> None:
    ratings = [(25.0, 8.333), (30.0, 3.0), (20.0, 5.0)]
    seats = people(*ratings)
    seats[2] = seats[2].model_copy(update={"autopilot": True})
    result = Result(durak=None, draw=True, order_out=(1, 0, 2), reason="everyone_out")
    assert after(rated(result, seats)) == openskill_says(ratings, [1, 1, 2])


def test_an_absent_partner_ranks_below_both_teams_and_the_partner_keeps_the_teams_rating() -> None:
    # teams 0+2 and 1+3; team 1+3 loses; Dana (seat 2), Ann's partner, was played by the AI to the end
    ratings = [(25.0, 8.333), (30.0, 3.0), (20.0, 5.0), (27.0, 4.0)]
    seats = people(*ratings)
    seats[2] = seats[2].model_copy(update={"autopilot": True})
    result = Result(durak=3, draw=False, order_out=(2, 0, 1), reason="last_team", losers=(1, 3))
    ann = [OPENSKILL.rating(mu=25.0, sigma=8.333)]
    losers = [OPENSKILL.rating(mu=m, sigma=s) for m, s in (ratings[1], ratings[3])]
    dana = [OPENSKILL.rating(mu=20.0, sigma=5.0)]
    new_ann, new_losers, new_dana = OPENSKILL.rate([ann, losers, dana], ranks=[1.0, 2.0, 3.0])
    expected = [new_ann[0], new_losers[0], new_dana[0], new_losers[1]]
    assert after(rated(result, seats, teams=True)) == [(r.mu, r.sigma) for r in expected]
