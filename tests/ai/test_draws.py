"""A draw is worth less than a win to the normal and hard AIs' decisions (but `/hint` still reports the chance of not
being the durak): the exact search tells a forced win from an escape that only draws."""

from __future__ import annotations

from core import Game
from core.ai.search import solve_endgame
from tests.ai.helpers import open_endgames


def _forces_a_win(game: Game, seat: int) -> bool:
    """Plain minimax over the public API: can ``seat`` make the other player the durak?"""
    if game.is_over:
        return game.result is not None and game.result.durak not in (None, seat)
    actor = game.to_act
    assert actor is not None
    outcomes = (_forces_a_win(game.apply(actor, a), seat) for a in game.legal_actions(actor))
    return any(outcomes) if actor == seat else all(outcomes)


def _draw_or_win(game: Game, seat: int) -> bool:
    """Some action draws at best and another wins."""
    values = solve_endgame(game, seat, game.legal_actions(seat), 10**5, draw=0.5)
    return values is not None and {0.5, 1.0} <= set(values.values())


def test_the_exact_search_values_an_escape_that_only_draws_below_a_forced_win() -> None:
    positions = open_endgames(range(300), _draw_or_win)
    assert len(positions) >= 3
    for game in positions:
        seat = game.to_act
        assert seat is not None
        legal = game.legal_actions(seat)
        plain = solve_endgame(game, seat, legal, 10**5)
        graded = solve_endgame(game, seat, legal, 10**5, draw=0.5)
        assert plain is not None and graded is not None
        for action in legal:
            wins = _forces_a_win(game.apply(seat, action), seat)
            assert graded[action] == (1.0 if wins else 0.5 if plain[action] else 0.0), action
            assert plain[action] == (1.0 if graded[action] else 0.0)  # without `draw`, any escape is 1.0
