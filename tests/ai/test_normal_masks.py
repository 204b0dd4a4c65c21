"""The normal rules on card masks (for rollouts) choose exactly what the rules choose from a `Situation`."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

import pytest

from core import Action, Game, Settings, new_game
from core.ai.baselines import greedy_choice, greedy_move
from core.ai.fastsim import Sim
from core.ai.normal import decide, normal_move
from core.ai.situation import Situation

VARIANTS = [(w, n) for w in ("", "transfer", "deck=24 neighbours", "deck=52 transfer first5") for n in (2, 4)]


def _positions(
    words: str, players: int, games: int, follow: Callable[[Game, int], Action] | None = None
) -> Iterator[tuple[Game, int]]:
    """Every position of seeded games, with the seat to act: the moves are ``follow``'s 70% of the time and
    random otherwise (all random without ``follow``), to reach positions a policy's own games do not."""
    for seed in range(games):
        game = new_game(Settings.from_words(words), [f"p{i}" for i in range(players)], seed=seed)
        rng = random.Random(seed)
        while not game.is_over:
            seat = game.to_act
            assert seat is not None
            yield game, seat
            legal = game.legal_actions(seat)
            move = follow(game, seat) if follow is not None and rng.random() < 0.7 else rng.choice(legal)
            game = game.apply(seat, move)


def _rules(game: Game, seat: int) -> Action:
    return decide(Situation.from_game(game, seat))


@pytest.mark.parametrize(("words", "players"), [*VARIANTS, ("teams", 4), ("severny exchange", 3)])
def test_normal_on_card_masks_chooses_exactly_what_the_normal_rules_choose(words: str, players: int) -> None:
    for game, seat in _positions(words, players, 12, follow=_rules):
        rules = _rules(game, seat)
        assert normal_move(game, seat) is rules, game.log
        assert normal_move(Sim.from_game(game), seat) is rules


@pytest.mark.parametrize(
    ("words", "players"), [("transfer", 2), ("transfer", 4), ("deck=52 transfer", 3), ("teams", 4)]
)
def test_greedy_on_card_masks_chooses_what_greedy_chooses_in_random_positions(
    words: str, players: int
) -> None:
    """Random moves (transfers among them) reach what greedy's own games do not: several cards waiting for a
    cover, plain and trump covers in different slots."""
    for game, seat in _positions(words, players, 15):
        choice = greedy_choice(game.view(seat))
        assert greedy_move(game, seat) is choice, game.log
        assert greedy_move(Sim.from_game(game), seat) is choice
