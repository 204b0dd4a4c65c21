"""rules.md §10, scoring: podium points, winner takes all, draws, and teams sharing their result."""

from __future__ import annotations

from bot.game.scoring import points_for
from core import Result


def test_the_first_three_out_get_three_two_and_one_points() -> None:
    result = Result(durak=2, draw=False, order_out=(3, 0, 4, 1), reason="last_holder", losers=(2,))
    assert points_for(result, "podium", 5) == [2, 0, 0, 3, 1]


def test_the_durak_never_scores_even_when_fewer_than_four_play() -> None:
    result = Result(durak=1, draw=False, order_out=(0,), reason="last_holder", losers=(1,))
    assert points_for(result, "podium", 2) == [3, 0]


def test_winner_takes_all_scores_only_the_first_out() -> None:
    result = Result(durak=2, draw=False, order_out=(3, 0, 1), reason="last_holder", losers=(2,))
    assert points_for(result, "winner", 4) == [0, 0, 0, 3]


def test_a_draw_scores_nothing() -> None:
    result = Result(durak=None, draw=True, order_out=(1, 0), reason="everyone_out")
    assert points_for(result, "podium", 2) == [0, 0]


def test_every_partner_shares_the_teams_result() -> None:
    result = Result(durak=3, draw=False, order_out=(1, 0, 2), reason="last_team", losers=(1, 3))
    assert points_for(result, "podium", 4, teams=True) == [3, 0, 3, 0]
