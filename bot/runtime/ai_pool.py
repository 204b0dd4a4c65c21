"""AI decisions off the event loop: worker processes, a deadline, and the normal level as the fallback.

`durak-bot run` serves every chat of both platforms from one event loop, and a hard AI decision takes
100-300 ms of CPU (`/hint` about 160 ms): made on the loop, it would stall every other chat that long. So
before deciding a timer of an AI seat (or `/hint`) the service asks this pool (`GameService(ai=...)`). The
seat's `View` and the public log go to a worker process (a few KB pickled, see `bot.runtime.ai_work`), which
runs the very `core.ai` player the inline path runs, seeded by `decision_seed(game, step)`:
any process gives the same move. The answer reaches the pure decision through `Context.ai` (`AiAnswers`).

Two bounds keep a seat from waiting: at most ``max_in_flight`` decisions are queued or running (beyond that
the pool is *saturated*), and a job not answered within ``deadline`` seconds is *late*. Either way the seat
plays the normal level's choice, decided here (0.3-8 ms), and `durak_ai_decisions{kind,source}` counts it. A
late job still finishes in its worker (a process cannot be stopped mid-decision) and counts against
``max_in_flight`` until then; its answer is kept, so a `/hint` asked again gets it at once. `/hint` has no
cheaper stand-in: the player is told to try again. Levels cheaper than a round trip to a worker (random,
greedy, easy: under 0.1 ms) are decided here.

Other work (a finished game's analysis, `offload`) comes after the decisions: it waits here, not in the
executor's queue, and a job of it is sent only to a worker no decision is queued for or running on, and with
two or more workers never to the last one. A decision asked later is therefore never queued behind it: it
waits at most for the one job already running on its worker (an analysis sends one decision per job,
50-300 ms), and such work never counts towards ``max_in_flight``.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import time
from collections import Counter, OrderedDict, deque
from collections.abc import Awaitable, Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TypeVar

from bot.ai_seats import (
    FALLBACK_LEVEL,
    OFF_LOOP,
    AiAnswers,
    AiKey,
    Ranking,
    choose_ai_action,
    decision_seed,
)
from bot.context import Context
from bot.game.seats import seat_of
from bot.runtime.ai_work import HINT, AiJob, AiResult, start_worker, work, worker_ready
from bot.runtime.config import default_ai_workers
from bot.runtime.metrics import Metrics
from bot.runtime.ratelimit import PressLimiter
from bot.session import ChatSession, Playing
from core import Action, Game

log = logging.getLogger("durak.ai")
J = TypeVar("J")
R = TypeVar("R")

CHEAP_LEVELS = frozenset({"random", "greedy", "easy"})  # decided on the loop: cheaper than the round trip
JOBS_PER_WORKER = 2  # in flight per worker before the pool counts as saturated: one running, one queued
KEPT_ANSWERS = 256  # finished answers kept (`JobKey`), for a retry of the same decision or a late `/hint`
HINT_EVERY = 5.0  # seconds: `/hint` per user (`hint_limiter`); each costs a worker about 160 ms

Prepare = Callable[[Context, ChatSession | None], Awaitable[AiAnswers]]
JobKey = tuple[str, str, AiKey]  # (job kind, chat, (game id, step, seat)): game ids are unique per chat only


def hint_limiter(clock: Callable[[], float] = time.monotonic) -> PressLimiter:
    """One `/hint` per user every ``HINT_EVERY`` seconds, so one person cannot keep the workers busy."""
    return PressLimiter(rate=1 / HINT_EVERY, burst=1, clock=clock)


def chat_key(ctx: Context) -> str:
    return f"{ctx.chat.platform}:{ctx.chat_id}"


class AiPool:
    """A process pool for AI moves and `/hint`, with a deadline per decision and a bound on jobs in flight.

    ``work`` is what a worker runs (tests pass a slow one); it must be a module-level function."""

    def __init__(
        self,
        workers: int | None = None,
        deadline: float = 1.5,
        max_in_flight: int | None = None,
        work: Callable[[AiJob], AiResult] = work,
        metrics: Metrics | None = None,
    ) -> None:
        self.workers = workers or default_ai_workers()
        self.deadline = deadline
        self.max_in_flight = max_in_flight or JOBS_PER_WORKER * self.workers
        self.work = work
        self.metrics = metrics or Metrics()  # where each decision's source is counted
        self.executor = self._new_executor()
        self.running: dict[JobKey, asyncio.Future[AiResult]] = {}
        self.answered: OrderedDict[JobKey, AiResult] = OrderedDict()
        self.sources: Counter[str] = Counter()  # "pool", "here", "saturated", "late", "failed"
        self.worker_pids: set[int] = set()
        self.offloaded = 0  # jobs of `offload` sent to the workers (running, or about to on a free worker)
        self.offload_workers = max(1, self.workers - 1)  # the most `offload` may hold: one is kept for moves
        self.turns: deque[asyncio.Future[None]] = deque()  # jobs of `offload` waiting for a worker, in order

    def _new_executor(self) -> ProcessPoolExecutor:
        # spawn: a forked child would inherit the event loop, its sockets and the threads of the parent
        context = multiprocessing.get_context("spawn")
        return ProcessPoolExecutor(self.workers, mp_context=context, initializer=start_worker)

    # ---- what the service asks before deciding ---------------------------------------------------------

    def for_timer(self, version: int) -> Prepare:
        """For a deadline armed at ``version``: the move of the AI seat to act, if one is."""

        async def prepare(ctx: Context, session: ChatSession | None) -> AiAnswers:
            header = session.header if session is not None else None
            game = session.game if session is not None else None
            if ctx.record.version != version or not isinstance(header, Playing) or game is None:
                return OFF_LOOP
            seat = game.to_act
            if seat is None or not header.seats[seat].played_by_ai:
                return OFF_LOOP
            level = header.seats[seat].ai or FALLBACK_LEVEL
            action = await self.move(game, seat, level, header.game_id, chat=chat_key(ctx))
            return AiAnswers(moves={(header.game_id, game.step, seat): action}, inline=False)

        return prepare

    def for_hint(self, user_id: str) -> Prepare:
        """For `/hint` by ``user_id``: the ranking of their legal actions, when they are seated and may act."""

        async def prepare(ctx: Context, session: ChatSession | None) -> AiAnswers:
            header = session.header if session is not None else None
            game = session.game if session is not None else None
            if not isinstance(header, Playing) or game is None:
                return OFF_LOOP
            seat = seat_of(header, user_id)
            if seat is None or not game.legal_actions(seat):
                return OFF_LOOP
            ranking = await self.ranking(game, seat, header.game_id, chat=chat_key(ctx))
            if ranking is None:
                return OFF_LOOP
            return AiAnswers(rankings={(header.game_id, game.step, seat): ranking}, inline=False)

        return prepare

    # ---- decisions -------------------------------------------------------------------------------------

    async def move(self, game: Game, seat: int, level: str, game_id: str, chat: str = "") -> Action:
        """The AI's move for ``seat``; the normal level's, decided here, when the pool is full or late."""
        if level in CHEAP_LEVELS:
            self._count("move", "here")
            return choose_ai_action(game, seat, level, game_id)
        result = await self._ask(level, game, seat, game_id, chat)
        if result is not None and result.action is not None and result.action in game.legal_actions(seat):
            return result.action
        return choose_ai_action(game, seat, FALLBACK_LEVEL, game_id)

    async def ranking(self, game: Game, seat: int, game_id: str, chat: str = "") -> Ranking | None:
        """`/hint`'s ranking for ``seat``; None when the pool is full or late."""
        result = await self._ask(HINT, game, seat, game_id, chat)
        return result.ranking if result is not None else None

    async def _ask(self, kind: str, game: Game, seat: int, game_id: str, chat: str) -> AiResult | None:
        """The worker's answer, or None (counted by why) when the seat must do without it."""
        count = "move" if kind != HINT else HINT
        key = (kind, chat, (game_id, game.step, seat))
        known = self.answered.get(key)
        if known is not None:
            self._count(count, "pool")
            return known
        pending = self.running.get(key)
        if pending is None:
            if len(self.running) >= self.max_in_flight:
                self._count(count, "saturated")
                return None
            job = AiJob(kind, decision_seed(game_id, game.step), game.view(seat), tuple(game.log))
            try:
                pending = self._submit(key, job)
            except BrokenProcessPool:
                self._restart(count)
                return None
        try:
            result = await asyncio.wait_for(asyncio.shield(pending), self.deadline)
        except TimeoutError:
            self._count(count, "late")
            return None
        except BrokenProcessPool:
            self._restart(count)
            return None
        except Exception:
            log.exception("AI job %s failed", kind)
            self._count(count, "failed")
            return None
        self._count(count, "pool")
        return result

    async def offload(self, fn: Callable[[J], R], job: J) -> R:
        """Work that is no decision (a finished game's analysis, `bot.runtime.analyses`) on the same workers,
        after the decisions: it waits for a worker free of them (`_free_for_offload`). Raises what the job
        raised; a broken pool is replaced first."""
        await self._offload_turn()
        try:
            return await asyncio.wrap_future(self.executor.submit(fn, job))
        except BrokenProcessPool:
            self._restart("analysis")
            raise
        finally:
            self.offloaded -= 1
            self._next_offload()

    def _free_for_offload(self) -> bool:
        """A worker has nothing to do, and ``offload`` leaves one worker to the decisions when there are two
        or more: every decision and offloaded job in the executor counts as holding a worker (a decision
        queued there waits for one), so a job sent now starts at once and delays no decision queued."""
        busy = len(self.running) + self.offloaded
        return busy < self.workers and self.offloaded < self.offload_workers

    async def _offload_turn(self) -> None:
        """Wait, in order of asking, until a job of `offload` may be sent (counted in ``offloaded`` then)."""
        turn = asyncio.get_running_loop().create_future()
        self.turns.append(turn)
        self._next_offload()  # at once when a worker is free and no job asked before
        try:
            await turn
        except asyncio.CancelledError:
            if not turn.cancelled():  # given its turn just as its caller was cancelled: pass it on
                self.offloaded -= 1
                self._next_offload()
            raise

    def _next_offload(self) -> None:
        """A worker may have come free (a job ended): give it to the `offload` jobs waiting, oldest first."""
        while self.turns and self._free_for_offload():
            turn = self.turns.popleft()
            if not turn.done():  # a cancelled caller's turn is skipped
                self.offloaded += 1
                turn.set_result(None)

    def _submit(self, key: JobKey, job: AiJob) -> asyncio.Future[AiResult]:
        pending: Future[AiResult] = self.executor.submit(self.work, job)
        running = asyncio.wrap_future(pending)
        self.running[key] = running

        def finished(done: asyncio.Future[AiResult]) -> None:  # on the loop, late jobs too
            self.running.pop(key, None)
            self._next_offload()
            if done.cancelled() or done.exception() is not None:
                return
            result = done.result()
            self.worker_pids.add(result.pid)
            self.answered[key] = result
            while len(self.answered) > KEPT_ANSWERS:
                self.answered.popitem(last=False)

        running.add_done_callback(finished)
        return running

    def _restart(self, count: str) -> None:
        """A worker died (killed, out of memory) and broke the pool: start a fresh one; this decision does
        without. Only the first caller to see a broken pool replaces it."""
        self._count(count, "failed")
        broken = getattr(self.executor, "_broken", True)  # the executor's own flag, set when a worker dies
        if broken:
            log.error("an AI worker process died; starting a new pool")
            old, self.executor = self.executor, self._new_executor()
            old.shutdown(wait=False, cancel_futures=True)

    def _count(self, kind: str, source: str) -> None:
        self.sources[source] += 1
        self.metrics.ai_decided(kind, source)

    # ---- life cycle ------------------------------------------------------------------------------------

    async def warm_up(self) -> None:
        """Start every worker and load the AI in it now (one job each), so the first decisions are not late."""
        loop = asyncio.get_running_loop()
        jobs = [loop.run_in_executor(self.executor, worker_ready) for _ in range(self.workers)]
        self.worker_pids.update(await asyncio.gather(*jobs))

    def alive(self) -> str | None:
        """None when the pool can take a job: not broken, warmed up, and every worker process it started
        still running; else what is wrong (for ``/readyz``). A pool replaced after a death counts as alive
        once its fresh workers are up."""
        if getattr(self.executor, "_broken", False):
            return "the worker pool is broken"
        processes = list((getattr(self.executor, "_processes", None) or {}).values())
        if not processes:
            return "no worker process started yet"
        dead = sum(not process.is_alive() for process in processes)
        return f"{dead} of {len(processes)} worker processes died" if dead else None

    async def aclose(self) -> None:
        """Drop queued jobs (`offload`'s waiting ones too), let running ones end, and wait for every worker
        process to exit."""
        for turn in self.turns:
            turn.cancel()
        await asyncio.to_thread(self.executor.shutdown, wait=True, cancel_futures=True)

    async def __aenter__(self) -> AiPool:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
