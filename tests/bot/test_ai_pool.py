"""AI off the event loop: AI seats and `/hint` are worked out in worker processes (`bot.runtime.ai_pool`),
with a deadline and a bound on jobs in flight, after which the seat plays the normal level's move decided
here.

The workers' slow jobs wait for a gate (tests/bot/ai_workers.py) instead of a clock, so what these tests
show is an order of events, never a duration."""

from __future__ import annotations

import asyncio
import itertools
import multiprocessing
import os
import pickle
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from bot.ai_seats import choose_ai_action, rank_actions
from bot.context import ServiceConfig
from bot.effects import Effect, ShowTable
from bot.inputs import TimerDue
from bot.runtime.ai_pool import AiPool, hint_limiter
from bot.runtime.ai_work import HINT, AiJob, AnalysisJob, work
from bot.runtime.metrics import PrometheusMetrics
from bot.service import GameService
from bot.session import ChatSession, Playing
from bot.timers import handle_due
from core import Game, Settings, new_game
from storage import ChatRef
from storage.store import RedisGameStore
from tests.bot.ai_workers import (
    GATE,
    LOG,
    dies,
    gated,
    gated_last_legal,
    logged,
    logged_gated_analysis_steps,
    started_jobs,
)
from tests.bot.conftest import ANN, BOB, CAT
from tests.bot.harness import Harness, buttons
from tests.prometheus import prometheus  # noqa: F401  (a fixture)

ROOT = Path(__file__).resolve().parent.parent.parent


class Pools:
    """Pools for one test, closed after it (gate opened first, so no job is left waiting)."""

    def __init__(self, gate: Path) -> None:
        self.gate = gate
        self.made: list[AiPool] = []

    def make(self, workers: int = 1, **options: object) -> AiPool:
        pool = AiPool(workers=workers, **options)  # type: ignore[arg-type]
        self.made.append(pool)
        return pool

    def open_gate(self) -> None:
        self.gate.touch()


@pytest.fixture
async def pools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Pools]:
    monkeypatch.setenv(GATE, str(tmp_path / "gate"))
    monkeypatch.setenv(LOG, str(tmp_path / "log"))
    made = Pools(tmp_path / "gate")
    yield made
    made.open_gate()
    for pool in made.made:
        await pool.aclose()


async def until_running(pool: AiPool, jobs: int = 1) -> None:
    for _ in range(5000):
        if len(pool.running) >= jobs:
            return
        await asyncio.sleep(0.001)
    raise AssertionError(f"{len(pool.running)} jobs reached the pool, not {jobs}")


def opening(seed: int = 3, players: int = 2) -> tuple[Game, int]:
    """A fresh game and the seat to open it (six legal attacks)."""
    game = new_game(Settings.from_words(""), [f"P{i}" for i in range(players)], seed=seed)
    assert game.to_act is not None
    return game, game.to_act


def served_by(harness: Harness, pool: AiPool, ai_delay: float) -> GameService:
    """The harness's service as `durak-bot run` builds it: with the pool."""
    ids = (f"g{n}" for n in itertools.count(1))
    harness.service = GameService(
        harness.store,
        ServiceConfig(ai_delay=ai_delay),
        clock=lambda: harness.clock,
        new_id=lambda: next(ids),
        seed_source=lambda: 42,
        ai=pool,
    )
    return harness.service


async def stored_game(harness: Harness) -> tuple[str, Game]:
    record = await harness.store.load(ChatRef(harness.platform, harness.chat))
    session = ChatSession.decode(record.state or "")
    assert isinstance(session.header, Playing) and session.game is not None
    return session.header.game_id, session.game


async def to_the_ais_turn(harness: Harness) -> int:
    """Ann plays against one hard AI until the AI is to move; the version its timer was armed at."""
    await harness.command(ANN, "newgame")
    await harness.tap(ANN, "hard")
    await harness.tap(ANN, "Start")
    for _ in range(20):
        _, game = await stored_game(harness)
        if game.to_act == 1:
            return await harness.version()
        await harness.press(ANN, moves(harness)[0])
    raise AssertionError("the AI never got the turn")


def moves(harness: Harness) -> list[str]:
    """Ann's move buttons (the trump exchange aside)."""
    hand = harness.screen.hands.get(ANN.id)
    return [b.payload for b in buttons(hand) if b.payload and not b.payload.endswith("|e")]


async def test_while_a_hard_ai_decides_in_a_worker_another_chat_is_answered(
    fake_redis: object, pools: Pools
) -> None:
    pool = pools.make(work=gated, deadline=60)
    store = RedisGameStore(fake_redis)  # type: ignore[arg-type]
    ai_chat, people = Harness(store, ai_delay=1.0, chat="-100"), Harness(store, chat="-200")
    people.service = served_by(ai_chat, pool, ai_delay=1.0)
    version = await to_the_ais_turn(ai_chat)
    deciding = asyncio.create_task(ai_chat.service.handle(TimerDue("tg", "-100", version)))
    await until_running(pool)
    await people.command(BOB, "newgame")
    await people.tap(CAT, "Join")
    await people.tap(BOB, "Start")
    assert people.screen.table is not None and "Bob" in people.screen.table.plain_text
    assert not deciding.done(), "the other chat was answered while the AI was still deciding"
    pools.open_gate()
    effects = await deciding
    assert any(isinstance(effect, ShowTable) for effect in effects), "then the AI moved"
    assert pool.worker_pids and os.getpid() not in pool.worker_pids, "in another process"
    assert pool.sources["pool"] == 1


async def test_ai_seats_due_together_are_decided_side_by_side(fake_redis: object, pools: Pools) -> None:
    pool = pools.make(work=gated, deadline=60, max_in_flight=2)
    store = RedisGameStore(fake_redis)  # type: ignore[arg-type]
    one, two = Harness(store, ai_delay=1.0, chat="-100"), Harness(store, ai_delay=1.0, chat="-300")
    two.service = served_by(one, pool, ai_delay=1.0)
    await to_the_ais_turn(one)
    await to_the_ais_turn(two)
    delivered: list[str] = []

    async def deliver(due: TimerDue, effects: list[Effect]) -> None:
        delivered.append(due.chat_id)

    passing = asyncio.create_task(handle_due(one.service, store, deliver, one.clock + 1.0))
    await until_running(pool, jobs=2)  # one chat's AI does not wait for the other's
    pools.open_gate()
    assert await passing == 2
    assert sorted(delivered) == ["-100", "-300"]


async def test_a_late_decision_plays_the_normal_levels_move_and_is_counted(
    fake_redis: object,
    pools: Pools,
    prometheus: PrometheusMetrics,  # noqa: F811
) -> None:
    pool = pools.make(work=gated_last_legal, deadline=0.05, metrics=prometheus)
    harness = Harness(RedisGameStore(fake_redis), ai_delay=1.0)  # type: ignore[arg-type]
    service = served_by(harness, pool, ai_delay=1.0)
    version = await to_the_ais_turn(harness)
    game_id, game = await stored_game(harness)
    normal = choose_ai_action(game, 1, "normal", game_id)
    assert normal is not game.legal_actions(1)[-1], "the position must tell the two answers apart"
    await service.handle(TimerDue("tg", harness.chat, version))
    _, after = await stored_game(harness)
    assert after.log[-1] == (1, normal.code)
    assert pool.sources["late"] == 1
    assert (
        prometheus.registry.get_sample_value("durak_ai_decisions_total", {"kind": "move", "source": "late"})
        == 1
    )


async def test_a_saturated_pool_plays_the_normal_levels_move_at_once(pools: Pools) -> None:
    pool = pools.make(work=gated_last_legal, deadline=60, max_in_flight=1)
    first, seat = opening(seed=3)
    busy = asyncio.create_task(pool.move(first, seat, "hard", "g1"))
    await until_running(pool)
    second, other = opening(seed=4)
    normal = choose_ai_action(second, other, "normal", "g2")
    assert normal is not second.legal_actions(other)[-1], "the position must tell the two answers apart"
    assert await pool.move(second, other, "hard", "g2") is normal
    assert pool.sources["saturated"] == 1 and not busy.done()
    pools.open_gate()
    assert await busy is first.legal_actions(seat)[-1], "the job in flight still answers from the pool"


async def test_a_worker_that_dies_costs_one_normal_move_and_the_pool_starts_again(pools: Pools) -> None:
    pool = pools.make(work=dies, deadline=600)
    game, seat = opening(seed=3)
    assert await pool.move(game, seat, "hard", "g1") is choose_ai_action(game, seat, "normal", "g1")
    assert pool.sources == {"failed": 1}
    pool.work = work
    assert await pool.move(game, seat, "hard", "g2") is choose_ai_action(game, seat, "hard", "g2")
    assert pool.sources["pool"] == 1


async def test_the_pool_gives_the_same_hard_move_and_hint_as_deciding_here(pools: Pools) -> None:
    pool = pools.make(deadline=600)  # a loaded machine may be slow; the answer must come from the pool
    game, seat = opening(seed=11, players=3)
    positions: list[tuple[Game, int]] = []
    while len(positions) < 2:
        positions.append((game, seat))
        for _ in range(5):  # a few moves on, so the log has something in it
            assert game.to_act is not None
            game = game.apply(game.to_act, choose_ai_action(game, game.to_act, "normal", "g7"))
        assert game.to_act is not None
        seat = game.to_act
    for position, to_act in positions:
        here = choose_ai_action(position, to_act, "hard", "g7")
        assert await pool.move(position, to_act, "hard", "g7") is here
    game, seat = positions[-1]
    assert await pool.ranking(game, seat, "g7") == rank_actions(game, seat, "g7")
    assert pool.sources["pool"] == 3 and os.getpid() not in pool.worker_pids


async def test_with_no_ai_delay_a_pool_moves_ai_seats_by_their_timer_never_inside_a_press(
    fake_redis: object, pools: Pools
) -> None:
    pool = pools.make(deadline=600)
    harness = Harness(RedisGameStore(fake_redis))  # type: ignore[arg-type]
    served_by(harness, pool, ai_delay=0)
    await to_the_ais_turn(harness)
    _, game = await stored_game(harness)
    step = game.step
    assert game.to_act == 1 and not pool.sources, "the press did not decide the AI's move"
    assert await harness.fire_timers(), "its deadline is due at once"
    _, after = await stored_game(harness)
    assert after.step > step and after.log[step][0] == 1
    assert pool.sources["pool"] >= 1


async def test_hints_are_refused_after_one_every_five_seconds_per_user(fake_redis: object) -> None:
    store = RedisGameStore(fake_redis)  # type: ignore[arg-type]
    harness = Harness(store)
    clock = [0.0]
    harness.service.hint_limiter = hint_limiter(clock=lambda: clock[0])
    await harness.command(ANN, "newgame", private=True)
    await harness.tap(ANN, "Add AI")
    await harness.tap(ANN, "Start")  # no AI delay: the AI has moved, and it is Ann's turn
    assert moves(harness)
    await harness.command(ANN, "hint", private=True)
    assert harness.screen.replies[-1].plain_text.startswith("Chance of not being the durak")
    trips = store.round_trips
    for _ in range(5):
        await harness.command(ANN, "hint", private=True)
        refusal = harness.screen.alerts[-1]
        assert (refusal.user_id, refusal.text) == (ANN.id, "One hint at a time: ask again in a few seconds.")
    assert store.round_trips == trips, "a refused hint costs no Redis call"
    clock[0] += 5
    await harness.command(ANN, "hint", private=True)
    assert harness.screen.replies[-1].plain_text.startswith("Chance of not being the durak")


async def test_a_hint_from_the_pool_reads_as_one_worked_out_here(fake_redis: object, pools: Pools) -> None:
    harness = Harness(RedisGameStore(fake_redis))  # type: ignore[arg-type]
    await harness.command(ANN, "newgame", private=True)
    await harness.tap(ANN, "Add AI")
    await harness.tap(ANN, "Start")
    await harness.command(ANN, "hint", private=True)
    here = harness.screen.replies[-1].plain_text
    pool = pools.make(deadline=600)
    served_by(harness, pool, ai_delay=0)
    await harness.command(ANN, "hint", private=True)
    assert harness.screen.replies[-1].plain_text == here
    assert here.startswith("Chance of not being the durak") and pool.sources == {"pool": 1}


async def test_a_hint_while_the_pool_is_full_says_to_try_again(fake_redis: object, pools: Pools) -> None:
    pool = pools.make(work=gated, deadline=60, max_in_flight=1)
    game, seat = opening(seed=5)
    busy = asyncio.create_task(pool.move(game, seat, "hard", "elsewhere"))
    await until_running(pool)
    harness = Harness(RedisGameStore(fake_redis), ai_delay=1.0)  # type: ignore[arg-type]
    served_by(harness, pool, ai_delay=1.0)
    await harness.command(ANN, "newgame", private=True)
    await harness.tap(ANN, "hard")
    await harness.tap(ANN, "Start")
    for _ in range(10):  # the AI's moves meanwhile: the normal level's, since the pool is full
        if moves(harness):
            break
        harness.clock += 1.0
        await harness.fire_timers()
    assert moves(harness) and pool.sources["saturated"] == pool.sources.total()
    await harness.command(ANN, "hint", private=True)
    assert harness.screen.replies[-1].plain_text == "Hints are busy right now: try again in a moment."
    pools.open_gate()
    await busy


async def test_a_job_carries_only_the_seats_view_and_the_public_log() -> None:
    game = new_game(Settings.from_words("deck=52"), [f"P{i}" for i in range(6)], seed=8)
    while not game.is_over:
        assert game.to_act is not None
        game = game.apply(game.to_act, choose_ai_action(game, game.to_act, "greedy", "g"))
        if game.to_act is not None:
            seat = game.to_act
            job = AiJob("hard", 1, game.view(seat), tuple(game.log))
            assert len(pickle.dumps(job, protocol=pickle.HIGHEST_PROTOCOL)) < 6000
    assert set(AiJob.__dataclass_fields__) == {"kind", "seed", "view", "log"}


async def test_closing_the_pool_ends_every_worker_process() -> None:
    before = {child.pid for child in multiprocessing.active_children()}
    pool = AiPool(workers=2)
    await pool.warm_up()
    workers = {child.pid for child in multiprocessing.active_children()} - before
    assert len(workers) == 2 and os.getpid() not in workers
    await pool.aclose()
    assert not workers & {child.pid for child in multiprocessing.active_children()}
    for pid in workers:
        assert pid is not None
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_workers_end_when_the_bot_process_is_killed() -> None:
    owner = subprocess.Popen(
        [sys.executable, "-m", "tests.bot.ai_pool_owner"], stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    try:
        assert owner.stdout is not None
        workers = [int(pid) for pid in owner.stdout.readline().split()]
        assert workers and all(alive(pid) for pid in workers)
    finally:
        owner.kill()  # SIGKILL: no shutdown of the pool runs
        owner.wait()
    for _ in range(1000):
        if not any(alive(pid) for pid in workers):
            return
        time.sleep(0.01)
    raise AssertionError(f"workers {[pid for pid in workers if alive(pid)]} outlived the bot process")


def alive(pid: int) -> bool:
    """Running (a zombie waiting for a parent that does not reap it counts as ended)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().rsplit(")", 1)[-1].split()[0] == "Z")


@pytest.mark.parametrize(("cores", "workers"), [(1, 1), (2, 1), (8, 7), (None, 1)])
def test_ai_workers_default_to_the_cores_but_one_and_at_least_one(
    monkeypatch: pytest.MonkeyPatch, cores: int | None, workers: int
) -> None:
    from bot.runtime.config import BotConfig

    monkeypatch.delenv("AI_WORKERS", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: cores)
    assert BotConfig(_env_file=None).ai_workers == workers  # type: ignore[call-arg]
    monkeypatch.setenv("AI_WORKERS", " ")  # as copied from .env.example
    assert BotConfig(_env_file=None).ai_workers == workers  # type: ignore[call-arg]
    monkeypatch.setenv("AI_WORKERS", "3")
    monkeypatch.setenv("AI_DEADLINE_MS", "900")
    read = BotConfig(_env_file=None)  # type: ignore[call-arg]
    assert (read.ai_workers, read.ai_deadline_ms) == (3, 900)


def analysis_job(seed: int) -> AnalysisJob:
    """A small job of a finished game's analysis: the steps of a one-move game where its seat had a choice."""
    dealt, seat = opening(seed=seed)
    return AnalysisJob(f"a{seed}", dealt, ((seat, dealt.legal_actions(seat)[0].code),), seats=(seat,))


async def until(condition: Callable[[], bool], what: str) -> None:
    for _ in range(5000):
        if condition():
            return
        await asyncio.sleep(0.001)
    raise AssertionError(f"never: {what}")


async def asked_while_an_analysis_runs(pools: Pools, asked: str) -> list[str]:
    """One worker, an analysis batch running in it, a second batch waiting to be sent, then a move of the
    hard AI or a `/hint` asked: the jobs in the order the worker started them."""
    pool = pools.make(work=logged, deadline=60)  # JOBS_PER_WORKER: two jobs in flight before saturation
    await pool.warm_up()
    analysing = [
        asyncio.create_task(pool.offload(logged_gated_analysis_steps, analysis_job(seed))) for seed in (3, 4)
    ]
    await until(lambda: started_jobs() == ["analysis"], "the first batch started")
    game, seat = opening(seed=5)
    if asked == HINT:
        answer: asyncio.Task[object] = asyncio.create_task(pool.ranking(game, seat, "g1"))
    else:
        answer = asyncio.create_task(pool.move(game, seat, "hard", "g1"))
    await until(lambda: bool(pool.running) or answer.done(), "the decision reached the pool")
    pools.open_gate()
    if asked == HINT:
        assert await answer == rank_actions(game, seat, "g1"), "the hint as worked out in a worker"
    else:
        assert await answer is choose_ai_action(game, seat, "hard", "g1"), "the hard move, no stand-in"
    assert pool.sources == {"pool": 1}, "neither saturated nor late"
    assert await asyncio.gather(*analysing) == [(1,), (1,)]
    return started_jobs()


async def test_a_move_asked_while_an_analysis_runs_is_decided_before_its_next_batch(pools: Pools) -> None:
    """With the only worker analysing a game, a hard AI's move neither plays the normal level's stand-in nor
    waits behind the analysis's batches still to come: it waits for the one batch already running."""
    assert await asked_while_an_analysis_runs(pools, "hard") == ["analysis", "hard", "analysis"]


async def test_a_hint_asked_while_an_analysis_runs_is_answered_before_its_next_batch(pools: Pools) -> None:
    assert await asked_while_an_analysis_runs(pools, HINT) == ["analysis", HINT, "analysis"]


async def test_with_two_workers_analyses_leave_one_free_for_the_moves(pools: Pools) -> None:
    """Two analyses asked at once take one worker between them; a move is decided on the other at once, while
    the running batch still waits for the gate, and the second analysis starts after it."""
    pool = pools.make(workers=2, work=logged, deadline=60)
    await pool.warm_up()
    analysing = [
        asyncio.create_task(pool.offload(logged_gated_analysis_steps, analysis_job(seed))) for seed in (3, 4)
    ]
    await until(lambda: "analysis" in started_jobs(), "a batch started")
    game, seat = opening(seed=5)
    moving = asyncio.create_task(pool.move(game, seat, "hard", "g1"))
    await until(moving.done, "the move was decided while a batch held a worker")
    assert moving.result() is choose_ai_action(game, seat, "hard", "g1") and pool.sources == {"pool": 1}
    assert started_jobs() == ["analysis", "hard"], "the second analysis waited"
    pools.open_gate()
    assert await asyncio.gather(*analysing) == [(1,), (1,)]
    assert started_jobs() == ["analysis", "hard", "analysis"]


async def test_an_analysis_stopped_while_it_waits_for_a_worker_gives_its_turn_to_the_next(
    pools: Pools,
) -> None:
    pool = pools.make(work=logged, deadline=60)
    await pool.warm_up()
    first, stopped, third = (
        asyncio.create_task(pool.offload(logged_gated_analysis_steps, analysis_job(seed)))
        for seed in (3, 4, 5)
    )
    await until(lambda: started_jobs() == ["analysis"], "the first batch started")
    stopped.cancel()
    pools.open_gate()
    assert [await first, await third] == [(1,), (1,)]
    assert stopped.cancelled() and started_jobs() == ["analysis", "analysis"]
    assert pool.offloaded == 0 and not pool.turns
