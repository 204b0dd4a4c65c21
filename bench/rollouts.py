"""Rollout speed: actions per second of the AI's simulator (`core.ai.fastsim.Sim`) against the engine.

    python -m bench.rollouts [--seconds 3]

Two measures, both on the same seeded deals, CPU time on one core (the deal itself is not timed):
- "random": the public API (``legal_actions`` + ``Game.apply``, which checks every action) against the
  simulator (``legal_actions`` + ``apply`` in place); the issue's target is at least 3x;
- "normal rollouts": what hard's search really does, the normal rules choosing for every seat: before, the
  rules read a `Situation` and the engine's unchecked transition (``core.rules.apply_action``) played the move;
  now the rules read the card masks (`normal_move`) and the simulator plays it.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from core import Game, Settings, new_game
from core.ai.fastsim import Sim
from core.ai.normal import decide, normal_move
from core.ai.situation import Situation
from core.rules import apply_action

Runner = Callable[[Game, random.Random], int]


def engine_random(game: Game, rng: random.Random) -> int:
    steps = 0
    while not game.is_over:
        seat = game.to_act
        assert seat is not None
        legal = game.legal_actions(seat)
        game = game.apply(seat, legal[int(rng.random() * len(legal))])
        steps += 1
    return steps


def sim_random(game: Game, rng: random.Random) -> int:
    sim = Sim.from_game(game)
    steps = 0
    while not sim.is_over:
        seat = sim.to_act
        legal = sim.legal_actions(seat)
        sim.apply(seat, legal[int(rng.random() * len(legal))])
        steps += 1
    return steps


def engine_normal(game: Game, rng: random.Random) -> int:
    steps = 0
    while not game.is_over and steps < 600:
        seat = game.to_act
        assert seat is not None
        game = apply_action(game, seat, decide(Situation.from_game(game, seat)))
        steps += 1
    return steps


def sim_normal(game: Game, rng: random.Random) -> int:
    sim = Sim.from_game(game)
    steps = 0
    while not sim.is_over and steps < 600:
        seat = sim.to_act
        sim.apply(seat, normal_move(sim, seat))
        steps += 1
    return steps


def actions_per_second(runner: Runner, settings: Settings, players: int, seconds: float) -> float:
    """Only the play is timed: the deal and the seeding of the random choices cost both sides the same and are
    no actions (counted in, they took 10-25% of the simulator's time and pulled every ratio towards 1)."""
    names = [f"P{s}" for s in range(players)]
    deals = random.Random(1)
    actions = 0
    spent = 0.0
    while spent < seconds:
        seed = deals.randrange(2**62)
        game = new_game(settings, names, seed=seed)
        game.recording = runner is engine_random  # the public API records the game; search's worlds do not
        rng = random.Random(seed)
        start = time.process_time()
        actions += runner(game, rng)
        spent += time.process_time() - start
    return actions / spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="CPU seconds per measure (default 3)")
    args = parser.parse_args()
    print(f"{'players':>7} {'mode':>8} {'play':>16} {'engine act/s':>13} {'sim act/s':>10} {'ratio':>6}")
    pairs = (("random", engine_random, sim_random), ("normal rollouts", engine_normal, sim_normal))
    for players in (2, 4):
        for mode in ("classic", "transfer"):
            settings = Settings(mode=mode)
            for label, engine, sim in pairs:
                slow = actions_per_second(engine, settings, players, args.seconds)
                fast = actions_per_second(sim, settings, players, args.seconds)
                print(
                    f"{players:>7} {mode:>8} {label:>16} {slow:>13,.0f} {fast:>10,.0f} {fast / slow:>5.1f}x"
                )


if __name__ == "__main__":
    main()
