"""Hard leaves the normal rules' choice only for an action its search estimates clearly better."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from core import Settings, new_game
from core.ai import players
from core.ai.knowledge import read_knowledge
from core.ai.normal import decide
from core.ai.players import HardPlayer, _rollout_noise
from core.ai.search import rollout
from core.ai.situation import Situation


def test_hard_keeps_the_rules_choice_unless_another_action_is_estimated_clearly_better(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    player = HardPlayer(seed=1, rollout_actions=600)
    disagreements = 0
    for seed in range(6):
        game = new_game(Settings(), ["a", "b"], seed=seed)
        seat = game.to_act
        assert seat is not None
        view = game.view(seat)
        rules = decide(Situation.from_view(view, read_knowledge(view, game.log)))
        values = player.evaluate(view, game.log, draw=players.DRAW_VALUE)
        assert next(iter(values)) == rules  # listed first, so it wins ties
        best = max(values, key=values.__getitem__)
        monkeypatch.setattr(players, "HARD_KEEP_MARGIN", 0.0)
        assert player.choose(view, game.log) == best
        monkeypatch.setattr(players, "HARD_KEEP_MARGIN", values[best] - values[rules] + 0.01)
        assert player.choose(view, game.log) == rules
        disagreements += best != rules
    assert disagreements, "the search never disagreed with the rules: the test proves little"


@pytest.mark.parametrize(
    ("words", "players_at_table", "noisy"),
    [("", 4, True), ("transfer", 3, True), ("", 2, False), ("teams", 4, False)],
)
def test_hard_adds_random_moves_to_its_rollouts_only_in_a_free_for_all_of_three_or_more(
    words: str, players_at_table: int, noisy: bool
) -> None:
    game = new_game(Settings.from_words(words), [f"p{i}" for i in range(players_at_table)], seed=1)
    k = read_knowledge(game.view(0), game.log)
    assert _rollout_noise(k) == (players.HARD_ROLLOUT_NOISE if noisy else 0.0)
    if noisy:  # two players still holding cards are a two-player game again
        assert _rollout_noise(replace(k, out=list(range(2, players_at_table)))) == 0.0


def test_a_rollout_with_random_moves_replays_for_the_same_draws_and_leaves_the_rules_line() -> None:
    left_the_line = 0
    for seed in range(6):
        game = new_game(Settings(), ["a", "b", "c", "d"], seed=seed)
        rules = rollout(game, 0)
        noisy = rollout(game, 0, random.Random(seed), noise=0.3)
        assert noisy == rollout(game, 0, random.Random(seed), noise=0.3)
        assert rollout(game, 0, random.Random(seed), noise=0.0) == rules
        left_the_line += noisy != rules
    assert left_the_line
