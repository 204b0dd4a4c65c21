"""The normal rules on card masks (for rollouts) choose exactly what the rules choose from a `Situation`."""

from __future__ import annotations

import random

import pytest

from core import Settings, new_game
from core.ai.fastsim import Sim
from core.ai.normal import decide, normal_move
from core.ai.situation import Situation

VARIANTS = [(w, n) for w in ("", "transfer", "deck=24 neighbours", "deck=52 transfer first5") for n in (2, 4)]


@pytest.mark.parametrize(("words", "players"), [*VARIANTS, ("teams", 4), ("severny exchange", 3)])
def test_normal_on_card_masks_chooses_exactly_what_the_normal_rules_choose(words: str, players: int) -> None:
    for seed in range(12):
        game = new_game(Settings.from_words(words), [f"p{i}" for i in range(players)], seed=seed)
        rng = random.Random(seed)
        while not game.is_over:
            seat = game.to_act
            assert seat is not None
            rules = decide(Situation.from_game(game, seat))
            assert normal_move(game, seat) is rules, game.log
            assert normal_move(Sim.from_game(game), seat) is rules
            # mostly the rules' own games, with random moves mixed in to reach other positions
            legal = game.legal_actions(seat)
            game = game.apply(seat, rules if rng.random() < 0.7 else rng.choice(legal))
