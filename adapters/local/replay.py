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
from bot.game.archive import chat_id_of, first_position, replayed, result_message
from bot.game.last_actions import events_of_step, remember
from bot.i18n import translator
from bot.render.analysis import analysis_lines
from bot.render.table import render_table
from bot.runtime.ai_work import AnalysisJob
from bot.runtime.analyses import Progress, computed
from bot.session import Playing
from core.ai.analysis import Analysis


def print_replay(archive_json: str, out: TextIO, lang: str = "en") -> None:
    """Print the game's table before the first move and after each step, then the result."""
    data, game, log, seats = first_position(archive_json)
    tr = translator(lang)
    chat_id = chat_id_of(data.get("chat", ""))
    now = float(data.get("started_at") or 0)
    header = Playing(
        game_id=str(data.get("game_id", "replay")),
        creator=seats[0].user_id,
        seats=seats,
        chat_title=str(data.get("chat_title", "")),
        lang=lang,
        started_at=now,
    )
    out.write(tr._("Game {id} · {players}").format(id=header.game_id, players=", ".join(game.players)) + "\n")
    step_heading = tr._("Step {n}")
    out.write("\n" + step_heading.format(n=0) + "\n")
    out.write(message_text(render_table(header, game.view(None), chat_id, now, tr)) + "\n")
    for step in replayed(game, log):
        events = remember(header.events, events_of_step(step.before, step.seat, step.action, step.after))
        header = header.model_copy(update={"events": events})
        game = step.after
        out.write("\n" + step_heading.format(n=step.number) + "\n")
        out.write(message_text(render_table(header, game.view(None), chat_id, now, tr)) + "\n")
    result = result_message(game, seats, chat_id, header.game_id, tr)
    if result is not None:
        out.write("\n" + message_text(result) + "\n")


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
