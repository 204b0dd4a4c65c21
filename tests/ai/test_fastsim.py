"""The rollout simulator agrees with the engine action for action, in every variant the engine plays."""

from __future__ import annotations

import random
from typing import Literal

import pytest

from core import Game, Settings, new_game
from core.actions import EXCHANGE
from core.ai.fastsim import Sim

QUICK_GAMES = 600  # spread over every option: about 2 s
SOAK_GAMES = 6000


def random_variant(rng: random.Random) -> tuple[Settings, int]:
    """Settings and a player count over every option, teams and Severny included."""
    teams = rng.random() < 0.25
    players = rng.choice([4, 6]) if teams else rng.randint(2, 6)
    decks: list[Literal[24, 36, 52]] = [36, 36, 52]
    if players <= 4:
        decks.append(24)
    settings = Settings(
        mode="classic" if teams else rng.choice(["classic", "transfer"]),
        deck=rng.choice(decks),
        throw_in=rng.choice(["all", "neighbours", "auto"]),
        first5=rng.random() < 0.3,
        exchange=rng.choice(["off", "lowest", "ace"]),
        opener=rng.choice(["durak_left", "durak_right", "lowest"]),
        teams=teams,
        severny=rng.random() < 0.3,
    )
    return settings, players


def state(position: Game | Sim) -> tuple[object, ...]:
    """Everything that decides the rest of a game, in one comparable form."""
    if isinstance(position, Game):
        result = position.result
        durak = -1 if result is None or result.durak is None else result.durak
        ending = (
            durak,
            result is not None and result.draw,
            sum(1 << s for s in (result.losers if result else ())),
        )
        to_act = -1 if position.to_act is None else position.to_act
    else:
        ending = (position.durak, position.draw, position.losers)
        to_act = position.to_act
    return (
        tuple(position.hand_masks), tuple(position.talon), position.trump_index, position.trump_card_id,
        position.severny_card, tuple(position.attacks), tuple(position.covers), position.table_ranks,
        position.phase, position.is_over, position.attacker, position.opener, position.defender,
        position.defender_limit, position.bout_cap, position.attack_limit, position.bout_number,
        position.passed, to_act, tuple(position.out), tuple(position.emptied),
        position.positions if isinstance(position, Game) else position.position_digests(),
        ending,
    )  # fmt: skip


def play_both(index: int) -> int:
    """A random game (out-of-turn exchanges included) on the engine and on the simulator side by side,
    compared after every action; returns the actions played."""
    rng = random.Random(index)
    settings, players = random_variant(rng)
    game = new_game(settings, [f"P{s}" for s in range(players)], seed=index, last_durak=rng.choice([None, 0]))
    sim = Sim.from_game(game)
    seats = range(players)
    while not game.is_over:
        assert state(sim) == state(game)
        legal = {seat: game.legal_actions(seat) for seat in seats}
        assert {seat: sim.legal_actions(seat) for seat in seats} == legal
        holder = game.exchange_holder()
        to_act = game.to_act
        assert to_act is not None
        if holder is not None and holder != to_act and rng.random() < 0.5:
            seat, action = holder, EXCHANGE
        else:
            seat, action = to_act, rng.choice(legal[to_act])
        game = game.apply(seat, action)
        sim.apply(seat, action)
    assert state(sim) == state(game)
    return game.step


def test_the_simulator_agrees_with_the_engine_action_for_action_in_every_variant() -> None:
    assert sum(play_both(index) for index in range(QUICK_GAMES)) > 100 * QUICK_GAMES


@pytest.mark.soak
def test_the_simulator_agrees_with_the_engine_over_thousands_of_games() -> None:
    for index in range(QUICK_GAMES, QUICK_GAMES + SOAK_GAMES):
        play_both(index)


def test_a_copy_plays_on_without_changing_the_original() -> None:
    game = new_game(Settings(), ["a", "b"], seed=3)
    sim = Sim.from_game(game)
    before = state(sim)
    branch = sim.copy()
    while not branch.is_over:
        branch.apply(branch.to_act, branch.legal_actions(branch.to_act)[0])
    assert state(sim) == before
