"""`durak-bot replay <game id>`: an archived game rebuilt from its settings, seed (or deck) and log, with the
group's table printed after every step by the same renderer the chats use (the archive is read by
`bot.game.archive`)."""

from __future__ import annotations

import asyncio
import multiprocessing
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TextIO

from adapters.local.text import message_text
from bot.adapter import AnalysisJob, Progress, analysis_lines, computed, replay_screens
from core.ai.analysis import Analysis


def print_replay(archive_json: str, out: TextIO, lang: str = "en") -> None:
    """Print the game's table before the first move and after each step, then the result
    (`bot.render.replay.replay_screens`)."""
    for number, (heading, screen) in enumerate(replay_screens(archive_json, lang)):
        out.write(("" if number == 0 else "\n") + (heading + "\n" if heading else ""))
        out.write(message_text(screen) + "\n")


def print_analysis(archive_json: str, analysis: Analysis, out: TextIO, lang: str = "en") -> None:
    """`durak-bot replay <id> --analyse`: each player's decisions judged by the hard AI, the costliest first."""
    out.write("\n" + "\n".join(analysis_lines(archive_json, analysis, lang)) + "\n")


async def analyse_here(game_id: str, archive_json: str, workers: int, progress: TextIO) -> Analysis:
    """The game's analysis computed in a pool of ``workers`` processes, a progress line on ``progress``."""
    loop = asyncio.get_running_loop()
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(workers, mp_context=context) as pool:

        async def offload(fn: Callable[[AnalysisJob], Any], job: AnalysisJob) -> Any:
            return await loop.run_in_executor(pool, fn, job)

        def told(done: Progress) -> None:
            progress.write(f"\ranalysing: {done.done} of {done.total} decisions")
            progress.flush()

        found = await computed(game_id, archive_json, offload, progress=told, parallel=workers)
    progress.write("\n")
    return found
