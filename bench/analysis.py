"""A finished game's analysis (`core.ai.analysis`, computed by `bot.runtime.analyses` in the AI workers).

    python -m bench.analysis [--games 4] [--players 2 4 6] [--sanity 60] [--jobs 1]

Worker seconds per game: seeded games (deal ``d``: `new_game` seed ``d``) played by the normal AI, then every
seat's decisions analysed as a group game of people would be, in the batches the bot sends its workers
(`analysis_steps`, then `analysis_work` per `BATCH` decisions); the CPU time of those jobs, p50/p99/max per
player count (``--games`` games each).

Sanity: ``--sanity`` two-player games of hard against easy (the hard seat alternating), both seats analysed;
the share of decisions flagged costly (`COSTLY`, more than 10%) for each level, which must be several times
larger for easy. ``--jobs`` processes share the games (each game is played and analysed in one).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor

from bot.runtime.ai_work import AnalysisJob, analysis_steps, analysis_work
from bot.runtime.analyses import BATCH
from core import Game, Settings, new_game
from core.ai import make_player


def played(deal: int, levels: Sequence[str]) -> tuple[Game, Game]:
    """The game of deal ``deal`` as dealt, and as it ended with seat ``i`` played by ``levels[i]``."""
    dealt = new_game(Settings(), [f"p{i}" for i in range(len(levels))], seed=deal)
    players = [make_player(level, seed=deal * 10 + i) for i, level in enumerate(levels)]
    game = dealt
    while not game.is_over:
        seat = game.to_act
        assert seat is not None
        game = game.apply(seat, players[seat].choose(game.view(seat), game.log))
    return dealt, game


def analysed(deal: int, levels: Sequence[str]) -> tuple[float, list[tuple[int, bool]]]:
    """Worker seconds to analyse every seat of the game, and each decision as (seat, flagged)."""
    dealt, game = played(deal, levels)
    game_id = f"bench-{deal}"
    log = tuple(game.log)
    started = time.process_time()
    steps = analysis_steps(AnalysisJob(game_id, dealt, log, seats=tuple(range(len(levels)))))
    decisions = []
    for start in range(0, len(steps), BATCH):
        decisions += analysis_work(AnalysisJob(game_id, dealt, log, steps=steps[start : start + BATCH]))
    return time.process_time() - started, [(d.seat, d.costly) for d in decisions]


def timing(deal: int, players: int) -> float:
    return analysed(deal, ["normal"] * players)[0]


def sanity(deal: int) -> list[tuple[str, bool]]:
    levels = ["hard", "easy"] if deal % 2 == 0 else ["easy", "hard"]
    return [(levels[seat], flagged) for seat, flagged in analysed(deal, levels)[1]]


def percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4, help="games per player count for the timing")
    parser.add_argument("--players", type=int, nargs="*", default=[2, 4, 6])
    parser.add_argument("--sanity", type=int, default=60, help="games of hard against easy")
    parser.add_argument("--jobs", type=int, default=1, help="processes")
    args = parser.parse_args(argv)
    with ProcessPoolExecutor(args.jobs) as pool:
        for n in args.players:
            seconds = list(pool.map(timing, range(args.games), [n] * args.games))
            if seconds:
                print(
                    f"{n} players: worker seconds per game p50 {statistics.median(seconds):.1f}"
                    f" p99 {percentile(seconds, 0.99):.1f} max {max(seconds):.1f} ({len(seconds)} games)",
                    flush=True,
                )
        if args.sanity:
            shares: dict[str, list[int]] = {"hard": [0, 0], "easy": [0, 0]}
            for decisions in pool.map(sanity, range(1000, 1000 + args.sanity)):
                for level, flagged in decisions:
                    shares[level][0] += flagged
                    shares[level][1] += 1
            for level, (flagged, total) in shares.items():
                print(
                    f"{level}: {flagged} of {total} decisions flagged costly ({flagged / max(total, 1):.1%}),"
                    f" {args.sanity} games of hard against easy",
                    flush=True,
                )
            hard, easy = (shares[level][0] / max(shares[level][1], 1) for level in ("hard", "easy"))
            print(f"easy's share / hard's: {easy / hard:.1f}" if hard else "hard: none flagged", flush=True)


if __name__ == "__main__":
    main()
