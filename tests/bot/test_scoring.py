"""rules.md §10, scoring: podium points, winner takes all, draws, and teams sharing their result; and §9.6,
a seat the AI played to its end, which counts for its owner as played and no more."""

from __future__ import annotations

from bot.game.scoring import Counted, counted, left_to_ai, points_for
from bot.session import Seat
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


# ---- rules.md §9.6: a seat the AI played to its end counts as played, and no more ------------------------


def test_a_seat_the_ai_finished_scores_nothing_and_nobody_moves_up_a_place() -> None:
    # seat 3 went out first with the AI playing it: no points, no first out; the others keep their places
    result = Result(durak=2, draw=False, order_out=(3, 0, 4, 1), reason="last_holder", losers=(2,))
    assert points_for(result, "podium", 5, by_ai=frozenset({3})) == [2, 0, 0, 0, 1]
    assert points_for(result, "winner", 5, by_ai=frozenset({3})) == [0, 0, 0, 0, 0]
    counts = counted(result, "podium", 5, by_ai=frozenset({3}))
    assert counts[3] == Counted(points=0, durak=False, first_out=False, draw=False, by_ai=True)
    assert [count.first_out for count in counts] == [False] * 5


def test_an_absent_owner_left_holding_cards_is_still_the_durak() -> None:
    result = Result(durak=2, draw=False, order_out=(0, 1), reason="last_holder", losers=(2,))
    assert counted(result, "podium", 3, by_ai=frozenset({2}))[2] == Counted(durak=True, by_ai=True)


def test_an_absent_partner_of_the_winning_team_loses_their_share_and_the_partner_keeps_theirs() -> None:
    # teams 0+2 and 1+3; team 1+3 loses; seat 2's partner, the AI playing for them, went out first
    result = Result(durak=3, draw=False, order_out=(2, 0, 1), reason="last_team", losers=(1, 3))
    counts = counted(result, "podium", 4, teams=True, by_ai=frozenset({2}))
    assert counts[0] == Counted(points=3, first_out=True)
    assert counts[2] == Counted(by_ai=True)
    assert counts[1] == counts[3] == Counted(durak=True)


def test_an_absent_partner_of_the_losing_team_loses_with_it() -> None:
    result = Result(durak=3, draw=False, order_out=(0, 2, 1), reason="last_team", losers=(1, 3))
    counts = counted(result, "podium", 4, teams=True, by_ai=frozenset({1}))
    assert counts[1] == Counted(durak=True, by_ai=True)
    assert counts[0] == counts[2] == Counted(points=3, first_out=True)


def test_a_draw_with_a_seat_the_ai_finished_scores_nothing_and_counts_as_played() -> None:
    result = Result(durak=None, draw=True, order_out=(1, 0), reason="everyone_out")
    assert counted(result, "podium", 2, by_ai=frozenset({1}))[1] == Counted(draw=True, by_ai=True)


def test_the_seats_left_to_the_ai_are_the_peoples_on_autopilot_not_ai_seats() -> None:
    seats = [
        Seat(user_id="1", name="Ann"),
        Seat(user_id="4", name="Dana", autopilot=True),
        Seat(user_id="ai2", name="AI 2", ai="hard"),
    ]
    assert left_to_ai(seats) == frozenset({1})
