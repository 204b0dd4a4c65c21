"""A hard AI's moves while finished games are analysed on the same AI workers (`bot/runtime/ai_pool.py`).

    python -m bench.analysis_contention [--decisions 150] [--analyses 0 3] [--workers 1] [--pause 0.5]

For each count in ``--analyses``: a fresh `AiPool` (``--workers``, default AI_WORKERS' default: cores - 1;
the pool's 1.5 s deadline), warmed up; that many analyses kept running in it the whole time, each as
`bot.runtime.analyses.computed` sends them (the decisions listed by one job, then `BATCH` decisions per job
through `AiPool.offload`, one job at a time), and each followed at once by the next game's, as a player
asking for the analysis of game after game would (two-player games of the normal AI, every seat analysed).
Meanwhile one chat's hard AI plays seeded games against normal (deal ``d``: `new_game` seed ``d``, game id
``bench-d``, the hard seat alternating, normal decided in this process), asking the pool for each of its
moves as the bot does (`AiPool.move`), with a pause before each (uniform, 0 to twice ``--pause`` seconds: the
AI delay and the other seat's move, so moves come at every phase of an analysis's jobs).

Printed per count: the hard moves' fallback share (late, saturated or failed: the normal level's move
played instead) and their wait from asking to the answer, p50/p95/max; the analysis decisions made
meanwhile (the analyses are slowed, never stopped) and the worker's CPU time per analysis job (what a move
asked while one runs may wait for), p50/p99/max. The same deals and pauses every run, so a run before a
change and one after compare.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from bench.analysis import played
from bot.ai_seats import choose_ai_action
from bot.runtime.ai_pool import AiPool
from bot.runtime.ai_work import AnalysisJob, analysis_steps, analysis_work
from bot.runtime.analyses import BATCH
from bot.runtime.config import default_ai_workers
from core import Settings, new_game
from core.ai.analysis import Decision

CHAT = "bench"
FALLBACKS = ("late", "saturated", "failed")
ANALYSED = ["normal", "normal"]  # the analysed games' players: every seat analysed


@dataclass
class Figures:
    waits_ms: list[float] = field(default_factory=list)
    fallbacks: int = 0
    analysed: int = 0  # analysis decisions made while the hard AI played
    analyses_done: int = 0
    job_cpu_ms: list[float] = field(default_factory=list)  # the worker's CPU time per analysis job


def timed_analysis_work(job: AnalysisJob) -> tuple[tuple[Decision, ...], float]:
    """In the worker: the analysis job, and the CPU time it took (ms)."""
    started = time.process_time()
    decisions = analysis_work(job)
    return decisions, (time.process_time() - started) * 1000


async def analyse_forever(pool: AiPool, first_deal: int, figures: Figures) -> None:
    """Analyses of one game after another, in the jobs `computed` sends, until cancelled."""
    deal = first_deal
    while True:
        dealt, game = played(deal, ANALYSED)
        game_id, log = f"analysed-{deal}", tuple(game.log)
        seats = tuple(range(len(ANALYSED)))
        steps = await pool.offload(analysis_steps, AnalysisJob(game_id, dealt, log, seats=seats))
        for start in range(0, len(steps), BATCH):
            job = AnalysisJob(game_id, dealt, log, steps[start : start + BATCH])
            decisions, cpu_ms = await pool.offload(timed_analysis_work, job)
            figures.analysed += len(decisions)
            figures.job_cpu_ms.append(cpu_ms)
        figures.analyses_done += 1
        deal += 1000


async def hard_moves(pool: AiPool, decisions: int, pause: float, figures: Figures) -> None:
    """Seeded games of hard against normal until ``decisions`` hard moves were asked of the pool."""
    pauses = random.Random(7)
    deal = 0
    while len(figures.waits_ms) < decisions:
        hard_seat, game_id = deal % 2, f"bench-{deal}"
        game = new_game(Settings(), ["p0", "p1"], seed=deal)
        while not game.is_over and len(figures.waits_ms) < decisions:
            seat = game.to_act
            assert seat is not None
            if seat != hard_seat:
                game = game.apply(seat, choose_ai_action(game, seat, "normal", game_id))
                continue
            await asyncio.sleep(pauses.uniform(0, 2 * pause))
            before = sum(pool.sources[source] for source in FALLBACKS)
            started = time.perf_counter()
            action = await pool.move(game, seat, "hard", game_id, chat=CHAT)
            figures.waits_ms.append((time.perf_counter() - started) * 1000)
            figures.fallbacks += sum(pool.sources[source] for source in FALLBACKS) > before
            game = game.apply(seat, action)
        deal += 1


async def measured(analyses: int, decisions: int, workers: int, pause: float) -> Figures:
    figures = Figures()
    async with AiPool(workers=workers) as pool:
        await pool.warm_up()
        running = [asyncio.create_task(analyse_forever(pool, 1000 + n, figures)) for n in range(analyses)]
        await asyncio.sleep(0.5 if analyses else 0)  # the analyses under way before the first move
        analysed_before = figures.analysed
        await hard_moves(pool, decisions, pause, figures)
        figures.analysed -= analysed_before
        for task in running:
            task.cancel()
        for task in running:
            with contextlib.suppress(asyncio.CancelledError):
                await task
    return figures


def percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--decisions", type=int, default=150, help="hard moves per count of analyses")
    parser.add_argument("--analyses", type=int, nargs="+", default=[0, 3], help="analyses running meanwhile")
    parser.add_argument("--workers", type=int, default=default_ai_workers())
    parser.add_argument("--pause", type=float, default=0.5, help="mean seconds before each hard move")
    args = parser.parse_args(argv)
    print(
        f"{args.workers} worker(s), analysis batches of {BATCH} decision(s), hard against normal", flush=True
    )
    for analyses in args.analyses:
        started = time.perf_counter()
        figures = asyncio.run(measured(analyses, args.decisions, args.workers, args.pause))
        waits = figures.waits_ms
        print(
            f"  {analyses} analyses running: {len(waits)} hard moves, fell back to normal"
            f" {figures.fallbacks} ({figures.fallbacks / len(waits):.0%});"
            f" wait p50 {statistics.median(waits):.0f} ms, p95 {percentile(waits, 0.95):.0f} ms,"
            f" max {max(waits):.0f} ms; {figures.analysed} analysis decisions meanwhile"
            f" ({time.perf_counter() - started:.0f} s)",
            flush=True,
        )
        if figures.job_cpu_ms:
            jobs = figures.job_cpu_ms
            print(
                f"    an analysis job: worker CPU p50 {statistics.median(jobs):.0f} ms,"
                f" p99 {percentile(jobs, 0.99):.0f} ms, max {max(jobs):.0f} ms ({len(jobs)} jobs)",
                flush=True,
            )


if __name__ == "__main__":
    main()
