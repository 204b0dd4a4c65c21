"""Team games: the search's value of a world is the team's result, not the seat's own."""

from __future__ import annotations

import random

from core import Settings, new_game
from core.ai.fastsim import Sim


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
