"""`/hint` ranks every legal action with a chance of not being the durak."""

from __future__ import annotations

from core import Settings, new_game
from core.ai import hint
from tests.ai.helpers import brute_force_safe, open_endgames


def test_hint_gives_every_legal_action_once_with_a_probability_best_first() -> None:
    game = new_game(Settings.from_words("transfer"), ["a", "b", "c"], seed=8)
    for _ in range(3):
        seat = game.to_act
        assert seat is not None
        view = game.view(seat)
        ranked = hint(view, game.log, seed=1)
        assert sorted(a.code for a, _ in ranked) == sorted(a.code for a in view.legal_actions)
        values = [p for _, p in ranked]
        assert all(0.0 <= p <= 1.0 for p in values) and values == sorted(values, reverse=True)
        game = game.apply(seat, ranked[0][0])


def test_hint_in_an_open_endgame_is_exact() -> None:
    positions = open_endgames(range(40))
    assert len(positions) >= 10
    mixed = 0
    for game in positions:
        seat = game.to_act
        assert seat is not None
        ranked = hint(game.view(seat), game.log)
        for action, value in ranked:
            assert value == (1.0 if brute_force_safe(game.apply(seat, action), seat) else 0.0), action
        mixed += len({value for _, value in ranked}) > 1
    assert mixed > 0, "no position where the choice mattered: the test proves little"
