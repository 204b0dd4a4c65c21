"""Hard AI decisions through the bot's worker pool (`bot/runtime/ai_pool.py`), as `durak-bot run` makes them.

    python -m bench.ai_pool_latency [--decisions 250] [--workers 1] [--words ""] [--opponents normal]

Plays seeded games (deal ``d``: `new_game` seed ``d``, game id ``bench-d``, the hard seat rotating, the
opponents decided in this process) until ``--decisions`` moves of the hard seat have been asked of an
`AiPool` (``--workers``, default AI_WORKERS' default: cores - 1; the pool's 1.5 s deadline). Each is one
`AiPool.move` awaited, one at a time, so the figures are those of an idle bot: no queueing behind other
chats. Printed: the wall time from asking to the answer (pickling, the worker, the way back) p50/p99/max, the
worker's CPU time for the decision (`time.process_time` around the pool's own `work`, passed in as the pool's
``work``; the pool itself is unchanged) p50/p99/max, how many decisions fell back to the normal level (late,
saturated or failed), and whether a second run, with a fresh pool, made the very same moves.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from bot.ai_seats import choose_ai_action
from bot.runtime.ai_pool import AiPool
from bot.runtime.ai_work import AiJob, AiResult, work
from bot.runtime.config import default_ai_workers
from core import Settings, new_game

CHAT = "bench"  # the pool's answers are keyed by chat: each run has a fresh pool anyway
FALLBACKS = ("late", "saturated", "failed")


@dataclass(frozen=True)
class TimedResult(AiResult):
    cpu_ms: float = 0.0  # the worker's CPU time for this job


def timed_work(job: AiJob) -> AiResult:
    """In the worker: the pool's own `work`, and the CPU time it took."""
    started = time.process_time()
    result = work(job)
    cpu_ms = (time.process_time() - started) * 1000
    return TimedResult(action=result.action, ranking=result.ranking, pid=result.pid, cpu_ms=cpu_ms)


@dataclass
class Run:
    moves: list[tuple[str, int, int, str]] = field(default_factory=list)  # (game id, step, seat, action)
    wall_ms: list[float] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)
    fallbacks: int = 0
    deadline_ms: float = 0.0
    games: int = 0


async def play(decisions: int, workers: int, words: str, opponents: Sequence[str]) -> Run:
    """Seeded games until ``decisions`` hard moves were asked of a fresh pool."""
    run = Run()
    n = len(opponents) + 1
    async with AiPool(workers=workers, work=timed_work) as pool:
        await pool.warm_up()
        deal = 0
        while len(run.wall_ms) < decisions:
            hard_seat = deal % n
            levels = list(opponents)
            levels.insert(hard_seat, "hard")
            game_id = f"bench-{deal}"
            game = new_game(
                Settings.from_words(words), [f"{lv}{i}" for i, lv in enumerate(levels)], seed=deal
            )
            while not game.is_over and len(run.wall_ms) < decisions:
                seat = game.to_act
                assert seat is not None
                if levels[seat] != "hard":
                    game = game.apply(seat, choose_ai_action(game, seat, levels[seat], game_id))
                    continue
                step = game.step
                started = time.perf_counter()
                action = await pool.move(game, seat, "hard", game_id, chat=CHAT)
                run.wall_ms.append((time.perf_counter() - started) * 1000)
                answered = pool.answered.get(("hard", CHAT, (game_id, step, seat)))
                if isinstance(answered, TimedResult):
                    run.cpu_ms.append(answered.cpu_ms)
                run.moves.append((game_id, step, seat, action.code))
                game = game.apply(seat, action)
            deal += 1
        run.games = deal
        run.deadline_ms = pool.deadline * 1000
        run.fallbacks = sum(pool.sources[source] for source in FALLBACKS)
    return run


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def spread(values: Sequence[float]) -> str:
    if not values:
        return "none"
    return f"p50 {statistics.median(values):.1f} ms, p99 {percentile(values, 0.99):.1f} ms, max {max(values):.1f} ms"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--decisions", type=int, default=250, help="hard decisions per run")
    parser.add_argument("--workers", type=int, default=default_ai_workers())
    parser.add_argument("--words", default="", help="the game's rules in words, e.g. 'transfer'")
    parser.add_argument("--opponents", nargs="+", default=["normal"], help="levels of the other seats")
    args = parser.parse_args(argv)
    first = asyncio.run(play(args.decisions, args.workers, args.words, args.opponents))
    second = asyncio.run(play(args.decisions, args.workers, args.words, args.opponents))
    setup = f"{args.words or 'classic'}, hard vs {' + '.join(args.opponents)}, {args.workers} worker(s)"
    print(f"{setup}: {len(first.wall_ms)} hard decisions in {first.games} games, twice")
    for name, run in (("run 1", first), ("run 2", second)):
        print(f"  {name}: wall (ask to answer) {spread(run.wall_ms)}")
        print(f"  {name}: worker CPU {spread(run.cpu_ms)}")
        print(f"  {name}: fell back to normal (deadline {run.deadline_ms:.0f} ms): {run.fallbacks}")
    same = first.moves == second.moves
    print(f"  same moves in both runs: {'yes' if same else 'NO'} ({len(first.moves)} compared)")


if __name__ == "__main__":
    main()
