"""What runs in an AI worker process (see bot/runtime/ai_pool.py): small on purpose, since every worker
imports it.

A worker imports this module and `core.ai`, nothing of the bot's I/O, and gets only a seat's `View` and the
public log. Pickled, that is about 0.8 KB plus 18 bytes per move played (the view carries the seat's events,
the log the actions): 3.5 KB at the end of a 158-move 6-player game with 52 cards. Cards and Actions pickle as
their codes and come back as the interned objects, so the AI compares them by identity as it does inline.
"""

from __future__ import annotations

import functools
import multiprocessing
import multiprocessing.connection
import os
import signal
import threading
from dataclasses import dataclass

from bot.ai_seats import Ranking, decision_seed
from core.actions import Action
from core.ai.analysis import Decision
from core.state import Game
from core.view import View

HINT = "hint"  # the job kind of `/hint` (every other job names the AI level that decides)


@dataclass(frozen=True)
class AiJob:
    """Everything that crosses the process boundary: a seat's view and the public log, never the `Game`."""

    kind: str  # an AI level, or HINT
    seed: int
    view: View
    log: tuple[tuple[int, str], ...]


@dataclass(frozen=True)
class AiResult:
    action: Action | None = None  # a move (Actions pickle as their code and come back interned)
    ranking: Ranking = ()  # `/hint`
    pid: int = 0  # the worker process that answered


def work(job: AiJob) -> AiResult:
    """In a worker process: the same player (or `/hint`) as the inline path, with the same seed."""
    from core.ai import hint, make_player

    if job.kind == HINT:
        return AiResult(ranking=tuple(hint(job.view, job.log, seed=job.seed)), pid=os.getpid())
    return AiResult(action=make_player(job.kind, seed=job.seed).choose(job.view, job.log), pid=os.getpid())


@dataclass(frozen=True)
class AnalysisJob:
    """A batch of a finished game's analysis (`core.ai.analysis`): the game as dealt and its whole log (after
    the game nothing is secret, and the analysis itself asks only each deciding seat's view), and the steps
    to evaluate (for `analysis_steps`: the seats whose decisions are wanted)."""

    game_id: str  # the seeds are the game's, as `/hint` had them (`decision_seed`)
    game: Game
    log: tuple[tuple[int, str], ...]
    steps: tuple[int, ...] = ()
    seats: tuple[int, ...] = ()


def analysis_steps(job: AnalysisJob) -> tuple[int, ...]:
    """In a worker process: the steps where one of ``job.seats`` had a choice (a replay of the game)."""
    from core.ai.analysis import decision_steps

    return tuple(decision_steps(job.game, job.log, set(job.seats)))


def analysis_work(job: AnalysisJob) -> tuple[Decision, ...]:
    """In a worker process: the decisions at ``job.steps``, with the seeds `/hint` had there."""
    from core.ai.analysis import analyse

    return tuple(analyse(job.game, job.log, job.steps, functools.partial(decision_seed, job.game_id)))


def start_worker() -> None:
    """Each worker loads the AI once, leaves Ctrl-C to the bot process (which shuts the pool down), and
    ends when the bot process is gone, even SIGKILLed: an orphan would wait for jobs for ever."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = multiprocessing.parent_process()
    if parent is not None:
        watch = threading.Thread(target=exit_with, args=(parent.sentinel,), name="exit-with-bot", daemon=True)
        watch.start()
    import core.ai  # noqa: F401


def exit_with(parent_sentinel: int) -> None:
    """Wait until the parent process has ended (its sentinel becomes ready), then end this one at once."""
    multiprocessing.connection.wait([parent_sentinel])
    os._exit(0)


def worker_ready() -> int:
    return os.getpid()
