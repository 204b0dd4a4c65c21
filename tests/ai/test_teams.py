"""Team games: the search's value of a world is the team's result, not the seat's own, and it searches longer."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest

from core import Action, Settings, new_game
from core.ai import players
from core.ai.fastsim import Sim
from core.ai.knowledge import Knowledge
from core.ai.players import HardPlayer
from core.view import View


def test_a_partner_left_holding_cards_is_a_loss_for_the_whole_team_in_the_search() -> None:
    for seed in range(20):
        sim = Sim.from_game(new_game(Settings.from_words("teams"), list("abcd"), seed=seed))
        rng = random.Random(seed)
        while not sim.is_over:
            sim.apply(sim.to_act, rng.choice(sim.legal_actions(sim.to_act)))
        if sim.durak < 0:
            continue
        partner = (sim.durak + 2) % 4
        assert sim.score(partner, draw=0.5) == 0.0, "the durak's partner lost too, though it may be out"
        assert sim.score((sim.durak + 1) % 4, draw=0.5) == 1.0


def test_hard_searches_twice_as_long_while_three_or_more_players_hold_cards(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    budgets: list[int] = []

    def recorded(
        view: View, k: Knowledge, candidates: Sequence[Action], budget: int, *args: Any, **kw: Any
    ) -> Any:
        budgets.append(budget)
        return dict.fromkeys(candidates, 0.5)

    monkeypatch.setattr(players, "monte_carlo", recorded)
    for words, names in (("teams", "abcd"), ("", "abcd"), ("", "ab")):
        game = new_game(Settings.from_words(words), list(names), seed=3)
        seat = game.to_act
        assert seat is not None
        HardPlayer(seed=1).choose(game.view(seat), game.log)
    assert budgets == [players.HARD_ROLLOUT_ACTIONS_MULTI] * 2 + [players.HARD_ROLLOUT_ACTIONS]
