"""A finished game's analysis on demand: computed in the AI worker pool, kept beside the game's archive.

Asked for when someone opens it (the web's ``GET api/analysis``), never before: a game's analysis is the hard
AI's `hint` at each decision of its people (`core.ai.analysis`), 50-300 ms of a worker each, seconds to a
minute of work per game. So it runs as one task per game that sends the pool one batch of ``batch``
decisions at a time (`AiPool.offload`) and reports how many are done. The pool starts a batch only on a
worker no move or `/hint` waits for, so a game move waits behind at most the one batch already running:
hence batches of one decision.

Bounds: one analysis computed per game (a second ask while it runs gets its progress, and a finished one is
answered from the store); one running per chat; ``max_running`` at a time in this process; and each person
starts at most ``STARTS_PER_HOUR`` (``budget``: that many at once, then one every 12 minutes), since any
player could otherwise keep the workers analysing by asking for game after game. Reading one computed or
being computed costs nothing. The result is stored by `GameStore.save_analysis` until the archive expires
(30 days), and the last ``kept`` results are kept here too. Between processes nothing is shared while
computing: two processes asked at once could both compute a game (the store keeps the first), and each
keeps its own budgets (as `bot.runtime.ratelimit` does).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from bot.game.archive import Archived, ArchiveError, first_position
from bot.runtime.ai_work import AnalysisJob, analysis_steps, analysis_work
from bot.runtime.lru import LRU
from bot.runtime.ratelimit import PressLimiter
from bot.session import Seat
from core.ai.analysis import Analysis, Decision
from storage.errors import StoreUnavailable
from storage.store import GameStore

log = logging.getLogger("durak.analysis")

BATCH = 1  # decisions per job: what a move may wait behind, 50-300 ms of a worker (`AiPool.offload`)
KEPT = 64  # finished analyses kept in this process (a few KiB each)
STARTS_PER_HOUR = 5  # new analyses per person: a game takes 3-15 s of a worker (docs/ai.md, "Game analysis")

Offload = Callable[[Callable[[AnalysisJob], Any], AnalysisJob], Awaitable[Any]]
Person = tuple[str, str]  # (platform, user id): who asks, for their budget


def started_budget(clock: Callable[[], float] = time.monotonic) -> PressLimiter:
    """Analyses one person may start: ``STARTS_PER_HOUR`` at once, then one every 60 / that minutes."""
    return PressLimiter(STARTS_PER_HOUR / 3600, STARTS_PER_HOUR, clock)


@dataclass(frozen=True, slots=True)
class Progress:
    """An analysis being computed: ``done`` of ``total`` decisions (``total`` 0 while they are counted)."""

    done: int
    total: int


class Busy(Enum):
    """Why an analysis is not started now."""

    CHAT = "chat"  # another game of this chat is being analysed
    FULL = "full"  # this process computes as many as it may
    PERSON = "person"  # the person asking started as many as they may lately (`started_budget`)


@dataclass
class _Running:
    chat: str
    progress: Progress
    task: asyncio.Task[None] | None = None


class Analyses:
    """The analyses this process computes and keeps; ``offload`` runs a job in the AI pool."""

    def __init__(
        self,
        store: GameStore,
        offload: Offload,
        *,
        max_running: int = 1,
        batch: int = BATCH,
        kept: int = KEPT,
        budget: PressLimiter | None = None,
    ) -> None:
        self.store = store
        self.offload = offload
        self.max_running = max_running
        self.batch = batch
        self.budget = budget or started_budget()  # new analyses per person
        self._done: LRU[str, Analysis] = LRU(kept)
        self._running: dict[str, _Running] = {}  # by game id
        self.jobs = 0  # sent to the pool, for tests and the bench

    async def ask(
        self, game_id: str, archived: Archived, asker: Person | None = None
    ) -> Analysis | Progress | Busy:
        """The game's analysis if computed; else its progress, starting it when the bounds allow, ``asker``'s
        budget last (only a start is counted against it). Raises StoreUnavailable when Redis does not
        answer."""
        known = self._known(game_id)
        if known is not None:
            return known
        stored = await self.store.analysis(game_id)
        known = self._known(game_id)  # computed or started meanwhile
        if known is not None:
            return known
        if stored is not None:
            try:
                found = Analysis.decode(stored)
            except ValueError as error:
                log.warning("the stored analysis of %s cannot be read: %s", game_id, error)
            else:
                self._done[game_id] = found
                return found
        if any(running.chat == archived.chat for running in self._running.values()):
            return Busy.CHAT
        if len(self._running) >= self.max_running:
            return Busy.FULL
        if asker is not None and not self.budget.allow(*asker):
            return Busy.PERSON
        running = _Running(archived.chat, Progress(0, 0))
        self._running[game_id] = running
        running.task = asyncio.create_task(self._compute(game_id, archived, running))
        return running.progress

    def _known(self, game_id: str) -> Analysis | Progress | None:
        done = self._done.touch(game_id)
        if done is not None:
            return done
        running = self._running.get(game_id)
        return running.progress if running is not None else None

    async def _compute(self, game_id: str, archived: Archived, running: _Running) -> None:
        try:
            encoded = (await self._analysed(game_id, archived.record, running)).encode()
            self._done[game_id] = Analysis.decode(encoded)  # as stored: the chances to 0.001
            try:
                await self.store.save_analysis(game_id, encoded)
            except StoreUnavailable as error:  # kept here; computed again elsewhere
                log.warning("the analysis of %s was not stored: %s", game_id, error)
        except ArchiveError as error:
            log.warning("archived game %s cannot be analysed: %s", game_id, error)
        except Exception:
            log.exception("the analysis of %s failed", game_id)
        finally:
            self._running.pop(game_id, None)

    async def _analysed(self, game_id: str, record: str, running: _Running) -> Analysis:
        def progress(done: Progress) -> None:
            running.progress = done

        return await computed(game_id, record, self._job, self.batch, progress)

    async def _job(self, fn: Callable[[AnalysisJob], Any], job: AnalysisJob) -> Any:
        self.jobs += 1
        return await self.offload(fn, job)

    async def aclose(self) -> None:
        """Stop the analyses being computed (a job already in a worker finishes there)."""
        tasks = [r.task for r in self._running.values() if r.task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def analysed_seats(seats: Sequence[Seat]) -> tuple[int, ...]:
    """The seats whose decisions are analysed: the people's (an AI's moves are no one's decisions), or every
    seat of a game without people."""
    people = tuple(seat for seat, described in enumerate(seats) if not described.ai)
    return people or tuple(range(len(seats)))


async def computed(
    game_id: str,
    record: str,
    offload: Offload,
    batch: int = BATCH,
    progress: Callable[[Progress], object] = lambda progress: None,
    parallel: int = 1,
) -> Analysis:
    """An archived game's analysis, its jobs run by ``offload`` (``parallel`` batches at a time), and its
    ``progress`` told after each batch. ArchiveError when the record cannot be read."""
    _data, game, log, seats_ = first_position(record)
    seats = analysed_seats(seats_)
    steps: tuple[int, ...] = await offload(
        analysis_steps, AnalysisJob(game_id, game, tuple(log), seats=seats)
    )
    progress(Progress(0, len(steps)))
    slots = asyncio.Semaphore(parallel)
    done = 0

    async def evaluated(part: tuple[int, ...]) -> tuple[Decision, ...]:
        nonlocal done
        async with slots:
            found: tuple[Decision, ...] = await offload(
                analysis_work, AnalysisJob(game_id, game, tuple(log), part)
            )
        done += len(found)
        progress(Progress(done, len(steps)))
        return found

    parts = [steps[start : start + batch] for start in range(0, len(steps), batch)]
    decisions = [d for found in await asyncio.gather(*map(evaluated, parts)) for d in found]
    return Analysis(seats, tuple(decisions))
