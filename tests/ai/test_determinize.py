"""Worlds built from a view agree with the real game in everything the seat can see."""

from __future__ import annotations

import random

import pytest

from core import Settings, new_game
from core.ai.determinize import sample_game
from core.ai.knowledge import read_knowledge

VISIBLE = ("hand", "hand_sizes", "table", "trump", "trump_card", "talon_size", "discard_size", "phase",
           "to_act", "attacker", "defender", "passed", "out", "attack_limit", "legal_actions", "severny_card")  # fmt: skip


@pytest.mark.parametrize(
    ("words", "n"), [("", 2), ("transfer", 3), ("deck=24 exchange first5", 4), ("teams severny", 4)]
)
def test_a_sampled_world_shows_the_seat_exactly_what_the_real_game_shows(words: str, n: int) -> None:
    for seed in range(5):
        game = new_game(Settings.from_words(words), [f"p{i}" for i in range(n)], seed=seed)
        rng = random.Random(seed)
        while not game.is_over and game.attacker != game.defender:
            seat = game.to_act
            assert seat is not None
            view = game.view(seat)
            k = read_knowledge(view, game.log)
            world = sample_game(view, k, rng)
            seen = world.view(seat)
            for name in VISIBLE:
                assert getattr(seen, name) == getattr(view, name), name
            for s in range(n):  # what the seat knows holds in the world, and no card is dealt twice
                assert k.known[s] & ~world.hand_masks[s] == 0
                assert k.lacks[s] & world.hand_masks[s] == 0
            everything = world.discard | sum(1 << c for c in world.talon)
            for mask in world.hand_masks:
                assert not everything & mask
                everything |= mask
            game = game.apply(seat, rng.choice(game.legal_actions(seat)))
