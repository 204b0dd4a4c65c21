"""AI tournament: how often each level is the durak against the baselines and each other (issue 7).

Every pairing plays seeded deals; each deal is played once per seat rotation, so luck of the deal cancels
out. For each pairing it prints the durak rate of each side with a 95% Wilson interval, the number of
games, the opponents' share of the decided games (the issue's measure, with its interval), and the median and 99th-percentile decision
time of the AI under test: CPU time of its own process (one core, whatever else runs on the machine) and
wall time. Quick run: ``python -m bench.ai_tournament --games 20 --hard-games 6``.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from core import Settings, new_game
from core.ai import make_player


@dataclass(frozen=True)
class Pairing:
    name: str
    words: str
    seats: tuple[str, ...]  # the AI under test first, then its opponents

    @property
    def tested(self) -> str:
        return self.seats[0]

    @property
    def uses_hard(self) -> bool:
        return "hard" in self.seats


PAIRINGS = (
    Pairing("2p classic: normal vs greedy", "", ("normal", "greedy")),
    Pairing("2p classic: hard vs greedy", "", ("hard", "greedy")),
    Pairing("2p classic: hard vs normal", "", ("hard", "normal")),
    Pairing("4p classic: normal vs 3 greedy", "", ("normal", "greedy", "greedy", "greedy")),
    Pairing("4p classic: hard vs 3 greedy", "", ("hard", "greedy", "greedy", "greedy")),
    Pairing("2p transfer: normal vs greedy", "transfer", ("normal", "greedy")),
    Pairing("2p transfer: hard vs greedy", "transfer", ("hard", "greedy")),
    Pairing("4p transfer: normal vs 3 greedy", "transfer", ("normal", "greedy", "greedy", "greedy")),
    Pairing("4p transfer: hard vs 3 greedy", "transfer", ("hard", "greedy", "greedy", "greedy")),
)


@dataclass
class GameOutcome:
    durak_is_tested: bool
    durak_is_other: bool
    cpu_ms: list[float] = field(default_factory=list)
    wall_ms: list[float] = field(default_factory=list)


def play_one(pairing: Pairing, index: int) -> GameOutcome:
    """Deal ``index // n`` with the tested AI in seat ``index % n``; time only the tested AI's decisions."""
    n = len(pairing.seats)
    deal, rotation = divmod(index, n)
    levels = [pairing.seats[(seat - rotation) % n] for seat in range(n)]
    tested_seat = rotation
    players = [make_player(level, seed=deal * 10 + seat) for seat, level in enumerate(levels)]
    game = new_game(
        Settings.from_words(pairing.words), [f"{lv}{i}" for i, lv in enumerate(levels)], seed=deal
    )
    outcome = GameOutcome(False, False)
    while not game.is_over:
        seat = game.to_act
        assert seat is not None
        view = game.view(seat)
        cpu, wall = time.process_time(), time.perf_counter()
        action = players[seat].choose(view, game.log)
        if seat == tested_seat:
            outcome.cpu_ms.append((time.process_time() - cpu) * 1000)
            outcome.wall_ms.append((time.perf_counter() - wall) * 1000)
        game = game.apply(seat, action)
    durak = game.result.durak if game.result is not None else None
    outcome.durak_is_tested = durak == tested_seat
    outcome.durak_is_other = durak is not None and durak != tested_seat
    return outcome


def wilson(successes: int, total: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion."""
    if total == 0:
        return (0.0, 1.0)
    p = successes / total
    denominator = 1 + z * z / total
    centre = (p + z * z / (2 * total)) / denominator
    spread = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / denominator
    return (max(0.0, centre - spread), min(1.0, centre + spread))


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1)]


def rate(count: int, games: int) -> str:
    low, high = wilson(count, games)
    return f"{count / games:.0%} [{low:.0%}–{high:.0%}]"


def run_pairing(pairing: Pairing, games: int, jobs: int) -> str:
    n = len(pairing.seats)
    games = max(n, games - games % n)  # whole rotations only
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        outcomes = list(pool.map(play_one, [pairing] * games, range(games)))
    tested = sum(o.durak_is_tested for o in outcomes)
    others = sum(o.durak_is_other for o in outcomes)
    decided = tested + others
    cpu = [t for o in outcomes for t in o.cpu_ms]
    wall = [t for o in outcomes for t in o.wall_ms]
    other_share = rate(others, decided) if decided else "n/a"
    return (
        f"| {pairing.name} | {games} | {rate(tested, games)} | {rate(others, games)} | {other_share} | "
        f"{statistics.median(cpu):.1f} / {percentile(cpu, 0.99):.1f} | "
        f"{statistics.median(wall):.1f} / {percentile(wall, 0.99):.1f} |"
    )


HEADER = (
    "| pairing | games | tested AI is durak | an opponent is durak | opponents' share of decided | "
    "AI decision CPU ms median / p99 | wall ms median / p99 |\n|---|---|---|---|---|---|---|"
)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400, help="games per pairing without the hard AI")
    parser.add_argument("--hard-games", type=int, default=100, help="games per pairing with the hard AI")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    parser.add_argument("--only", default="", help="run only pairings whose name contains this text")
    args = parser.parse_args(argv)
    print(HEADER, flush=True)
    for pairing in PAIRINGS:
        if args.only and args.only not in pairing.name:
            continue
        games = args.hard_games if pairing.uses_hard else args.games
        print(run_pairing(pairing, games, args.jobs), flush=True)


if __name__ == "__main__":
    main()
