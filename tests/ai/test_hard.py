"""Hard leaves the normal rules' choice only for an action its search estimates clearly better."""

from __future__ import annotations

import pytest

from core import Settings, new_game
from core.ai import players
from core.ai.knowledge import read_knowledge
from core.ai.normal import decide
from core.ai.players import HardPlayer
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
