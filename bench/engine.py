"""Engine speed: complete random-legal-action games per second on one core (issue 2's targets: at least
1,200 two-player and 500 four-player games per second).

    python bench/engine.py [--seconds 3] [--players 2 4 6]

For 2, 4 and 6 players, classic and transfer, it plays whole games choosing uniformly among
``legal_actions`` and prints games per second, the mean actions per game, and the median microseconds of one
``legal_actions`` + ``apply`` step (timed step by step in a separate pass, so the timer does not slow the
games/s figure). CPU time is measured (``time.process_time``), so other busy processes disturb it less.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core import Settings, new_game  # noqa: E402

TARGETS = {2: 1200, 4: 500}


def games_per_second(settings: Settings, players: int, seconds: float, seed: int) -> tuple[float, float]:
    """Play whole games for about ``seconds`` of CPU time: (games per second, mean actions per game)."""
    names = [f"P{s}" for s in range(players)]
    rng = random.Random(seed)
    games = actions = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        game = new_game(settings, names, seed=rng.randrange(2**62))
        choice = rng.choice
        while not game.is_over:
            seat = game.to_act
            game = game.apply(seat, choice(game.legal_actions(seat)))
            actions += 1
        games += 1
    elapsed = time.process_time() - start
    return games / elapsed, actions / games


def median_step_microseconds(settings: Settings, players: int, games: int, seed: int) -> float:
    """The median time of one ``legal_actions`` + ``apply`` step, over every step of ``games`` games."""
    names = [f"P{s}" for s in range(players)]
    rng = random.Random(seed)
    clock = time.perf_counter_ns
    samples: list[int] = []
    for _ in range(games):
        game = new_game(settings, names, seed=rng.randrange(2**62))
        while not game.is_over:
            seat = game.to_act
            pick = rng.random()
            begin = clock()
            legal = game.legal_actions(seat)
            game = game.apply(seat, legal[int(pick * len(legal))])
            samples.append(clock() - begin)
    return statistics.median(samples) / 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="CPU seconds per row (default 3)")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4, 6])
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(
        f"{'players':>7} {'mode':>8} {'games/s':>9} {'target':>10} {'actions/game':>13} {'median us/step':>15}"
    )
    for players in args.players:
        for mode in ("classic", "transfer"):
            settings = Settings(mode=mode)
            rate, mean_actions = games_per_second(settings, players, args.seconds, args.seed)
            step = median_step_microseconds(settings, players, games=200, seed=args.seed)
            target = TARGETS.get(players)
            mark = "" if target is None else f">={target}" + (" ok" if rate >= target else " LOW")
            print(f"{players:>7} {mode:>8} {rate:>9.0f} {mark:>10} {mean_actions:>13.1f} {step:>15.1f}")


if __name__ == "__main__":
    main()
