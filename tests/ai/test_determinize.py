"""Worlds built from a view agree with the real game in everything the seat can see."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from core import Settings, new_game
from core.ai.determinize import sample_game, sample_hidden
from core.ai.knowledge import Knowledge, read_knowledge
from core.view import View

VISIBLE = ("hand", "hand_sizes", "table", "trump", "trump_card", "talon_size", "discard_size", "phase",
           "to_act", "attacker", "defender", "passed", "out", "attack_limit", "legal_actions", "severny_card")  # fmt: skip


def _random_positions(words: str, n: int) -> Iterator[tuple[View, Knowledge, random.Random]]:
    """Every decision of five random games: the deciding seat's view, its knowledge and the games' generator."""
    for seed in range(5):
        game = new_game(Settings.from_words(words), [f"p{i}" for i in range(n)], seed=seed)
        rng = random.Random(seed)
        while not game.is_over and game.attacker != game.defender:
            seat = game.to_act
            assert seat is not None
            view = game.view(seat)
            yield view, read_knowledge(view, game.log), rng
            game = game.apply(seat, rng.choice(game.legal_actions(seat)))


@pytest.mark.parametrize(
    ("words", "n"), [("", 2), ("transfer", 3), ("deck=24 exchange first5", 4), ("teams severny", 4)]
)
def test_a_sampled_world_shows_the_seat_exactly_what_the_real_game_shows(words: str, n: int) -> None:
    for view, k, rng in _random_positions(words, n):
        world = sample_game(view, k, rng)
        seen = world.view(k.seat)
        for name in VISIBLE:
            assert getattr(seen, name) == getattr(view, name), name
        for s in range(n):  # what the seat knows holds in the world, and no card is dealt twice
            assert k.known[s] & ~world.hand_masks[s] == 0
            assert k.lacks[s] & world.hand_masks[s] == 0
        everything = world.discard | sum(1 << c for c in world.talon)
        for mask in world.hand_masks:
            assert not everything & mask
            everything |= mask


def test_certain_absences_hold_in_every_world_even_where_quick_random_deals_miss_them() -> None:
    """24 cards and four players: nothing left to draw, so the unseen cards must fill the opponents' hands
    exactly; random deals that skip the rules' certain absences often fail there, and the sampler then
    searches for a deal instead of dropping the absences."""
    checked = 0
    for _, k, _ in _random_positions("deck=24 exchange first5", 4):
        if any(k.lacks):
            for draw in range(40):
                hands, _ = sample_hidden(k, random.Random(draw))
                assert all(k.lacks[s] & hands[s] == 0 for s in range(4))
            checked += 1
    assert checked > 20


def test_contradictory_absences_are_dropped_rather_than_failing_the_deal() -> None:
    """Knowledge read from a log that breaks the rules may leave no deal at all: the sampler still deals."""
    game = new_game(Settings(), ["a", "b"], seed=3)
    view = game.view(0)
    k = read_knowledge(view, game.log)
    k.lacks[1] = k.unseen  # seat 1 "holds none of the cards it must hold"
    hands, talon = sample_hidden(k, random.Random(1))
    assert hands[1].bit_count() == view.hand_sizes[1]
    assert len(talon) == view.talon_size and hands[0] == k.hand
