"""AI tournament: how often each level is the durak against the baselines and each other (issue 7).

Every pairing plays seeded deals; each deal is played once per seat rotation, so luck of the deal cancels
out. For each pairing it prints the durak rate of each side with a 95% Wilson interval, the number of
games, the opponents' share of the decided games (the issue's measure, with its interval), and the median and 99th-percentile decision
time of the AI under test: CPU time of its own process (one core, whatever else runs on the machine) and
wall time. Quick run: ``python -m bench.ai_tournament --games 20 --hard-games 6``. Paired runs (the same deals and
seats): ``--outcomes FILE`` for each arm (``--hard-budget N`` for hard's rollout actions), then
``--compare BEFORE AFTER``; ``--summary FILE`` prints the rows of a run cut short; ``--first K`` starts at game K. In team pairings the tested
side loses when the durak's team does.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from core import Settings, new_game
from core.ai import Player, make_player
from core.ai.players import HardPlayer


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
    Pairing("2p transfer: hard vs normal", "transfer", ("hard", "normal")),
    Pairing("4p classic: hard vs 3 normal", "", ("hard", "normal", "normal", "normal")),
    # teams: seats alternate, so the tested AI's partner sits two seats on; a side loses together
    Pairing("4p teams: hard+hard vs normal+normal", "teams", ("hard", "normal", "hard", "normal")),
    Pairing("4p teams: hard+greedy vs normal+normal", "teams", ("hard", "normal", "greedy", "normal")),
)


@dataclass
class GameOutcome:
    durak_is_tested: bool
    durak_is_other: bool
    cpu_ms: list[float] = field(default_factory=list)
    wall_ms: list[float] = field(default_factory=list)


def play_one(pairing: Pairing, index: int, hard_budget: int | None = None) -> GameOutcome:
    """Deal ``index // n`` with the tested AI in seat ``index % n``; time only the tested AI's decisions (in a
    team game, those of its side's seats playing its level). The result is the tested side's: in a team
    game, the durak's whole team loses. ``hard_budget`` sets the hard AI's rollout actions (paired runs)."""
    n = len(pairing.seats)
    deal, rotation = divmod(index, n)
    levels = [pairing.seats[(seat - rotation) % n] for seat in range(n)]
    tested_seat = rotation
    players = [_player(level, deal * 10 + seat, hard_budget) for seat, level in enumerate(levels)]
    teams = "teams" in pairing.words.split()
    timed = {
        s
        for s in range(n)
        if s == tested_seat or (teams and s % 2 == tested_seat % 2 and levels[s] == levels[tested_seat])
    }
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
        if seat in timed:
            outcome.cpu_ms.append((time.process_time() - cpu) * 1000)
            outcome.wall_ms.append((time.perf_counter() - wall) * 1000)
        game = game.apply(seat, action)
    result = game.result
    losers = set(result.losers) if result is not None and result.durak is not None else set()
    outcome.durak_is_tested = tested_seat in losers
    outcome.durak_is_other = bool(losers) and tested_seat not in losers
    return outcome


def _player(level: str, seed: int, hard_budget: int | None) -> Player:
    if level == "hard" and hard_budget is not None:
        return HardPlayer(seed=seed, rollout_actions=hard_budget)
    return make_player(level, seed=seed)


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


def run_pairing(
    pairing: Pairing,
    games: int,
    jobs: int,
    hard_budget: int | None = None,
    outcomes_to: str = "",
    first: int = 0,
) -> str:
    """Play games ``first`` .. ``first + games - 1`` (whole rotations) and return the pairing's row."""
    n = len(pairing.seats)
    games = max(n, games - games % n)  # whole rotations only
    indices = range(first - first % n, first - first % n + games)
    outcomes: list[GameOutcome] = []
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        played = pool.map(play_one, [pairing] * games, indices, [hard_budget] * games)
        for index, o in zip(indices, played, strict=True):
            outcomes.append(o)
            if outcomes_to:  # as each game ends, so that a run cut short still tells its games
                with open(outcomes_to, "a", encoding="utf-8") as out:
                    row = {"pairing": pairing.name, "game": index, "tested": o.durak_is_tested,
                           "other": o.durak_is_other, "cpu_ms": [round(t, 1) for t in o.cpu_ms]}  # fmt: skip
                    out.write(json.dumps(row) + "\n")
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
    parser.add_argument("--hard-budget", type=int, default=None, help="the hard AI's rollout actions")
    parser.add_argument("--first", type=int, default=0, help="start at this game (to extend a run)")
    parser.add_argument("--outcomes", default="", help="append each game's result to this JSON-lines file")
    parser.add_argument(
        "--compare", nargs=2, metavar=("BEFORE", "AFTER"), help="paired comparison of two --outcomes files"
    )
    parser.add_argument(
        "--summary", metavar="OUTCOMES", help="the table rows of an --outcomes file (even a partial one)"
    )
    args = parser.parse_args(argv)
    if args.compare:
        print(compare(*args.compare))
        return
    if args.summary:
        print(HEADER)
        print(summary(args.summary))
        return
    print(HEADER, flush=True)
    for pairing in PAIRINGS:
        if args.only and args.only not in pairing.name:
            continue
        games = args.hard_games if pairing.uses_hard else args.games
        print(run_pairing(pairing, games, args.jobs, args.hard_budget, args.outcomes, args.first), flush=True)


def compare(before_path: str, after_path: str) -> str:
    """Per pairing, the games both files played (the same deals and seats): the opponents' share of decided
    games before and after, and how many games changed each way (the tested side's result)."""

    def read(path: str) -> dict[tuple[str, int], int]:
        results = {}
        with open(path, encoding="utf-8") as lines:
            for line in lines:
                row = json.loads(line)
                results[(row["pairing"], row["game"])] = -1 if row["tested"] else (1 if row["other"] else 0)
        return results

    before, after = read(before_path), read(after_path)
    rows = [
        "| pairing | paired games | before: opponents' share of decided | after | better | worse |",
        "|---|---|---|---|---|---|",
    ]
    for name in dict.fromkeys(name for name, _ in after):
        games = sorted(g for (p, g) in after if p == name and (p, g) in before)
        if not games:
            continue
        b = [before[(name, g)] for g in games]
        a = [after[(name, g)] for g in games]
        better = sum(x > y for x, y in zip(a, b, strict=True))
        worse = sum(x < y for x, y in zip(a, b, strict=True))
        shares = [
            rate(r.count(1), r.count(1) + r.count(-1)) if r.count(1) + r.count(-1) else "n/a" for r in (b, a)
        ]
        rows.append(f"| {name} | {len(games)} | {shares[0]} | {shares[1]} | {better} | {worse} |")
    return "\n".join(rows)


def summary(path: str) -> str:
    """The table rows of the games in an --outcomes file (CPU time only: the file keeps no wall time)."""
    rows: dict[str, list[dict[str, object]]] = {}
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            rows.setdefault(row["pairing"], []).append(row)
    out = []
    for name, games in rows.items():
        tested = sum(bool(g["tested"]) for g in games)
        others = sum(bool(g["other"]) for g in games)
        cpu = [float(t) for g in games for t in g.get("cpu_ms", [])]  # type: ignore[attr-defined]
        share = rate(others, tested + others) if tested + others else "n/a"
        timing = f"{statistics.median(cpu):.1f} / {percentile(cpu, 0.99):.1f}" if cpu else "n/a"
        out.append(
            f"| {name} | {len(games)} | {rate(tested, len(games))} | {rate(others, len(games))} | {share} | {timing} | n/a |"
        )
    return "\n".join(out)


if __name__ == "__main__":
    main()
