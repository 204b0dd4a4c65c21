"""A flood of forged and stale presses from one user, mixed into a real game: the game is unaffected (it
plays out exactly as without the flood) and the flooder gets rate-limited answers that cost no Redis call."""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import time

import pytest
import redis.asyncio as aioredis

from bench.service import PLATFORM, SimulatedChat
from bot.context import ServiceConfig
from bot.effects import Alert
from bot.i18n import translator
from bot.inputs import Press, User
from bot.runtime.ratelimit import PressLimiter
from bot.service import GameService
from storage import ChatRef
from storage.store import RedisGameStore

pytestmark = pytest.mark.redis_server
LIMITED = "Too many presses: wait a moment."
EVE = User("666", "Eve", "ru")


def test_a_bucket_gives_its_burst_then_its_rate() -> None:
    now = [0.0]
    limiter = PressLimiter(rate=5, burst=3, clock=lambda: now[0])
    assert [limiter.allow("tg", "1") for _ in range(4)] == [True, True, True, False]
    assert limiter.allow("tg", "2") and limiter.allow("dc", "1"), "each user on each platform has a bucket"
    now[0] += 0.2  # one token back
    assert [limiter.allow("tg", "1") for _ in range(2)] == [True, False]
    now[0] += 60
    assert [limiter.allow("tg", "1") for _ in range(4)] == [True, True, True, False], "never above the burst"
    assert limiter.refused == 3


def test_the_buckets_stay_bounded_and_forget_idle_users_first() -> None:
    now = [0.0]
    limiter = PressLimiter(rate=1, burst=2, clock=lambda: now[0], max_users=100)
    for user in range(99):
        limiter.allow("tg", str(user))
    now[0] += 10  # their buckets are full again: nothing to remember about them
    assert limiter.allow("tg", "busy") and limiter.allow("tg", "busy")
    for user in range(100, 150):
        assert limiter.allow("tg", str(user))
    assert not limiter.allow("tg", "busy"), "the user still pressing kept their (empty) bucket"
    for user in range(150, 1000):
        assert limiter.allow("tg", str(user))
        assert len(limiter.buckets) <= 100


def service(client: aioredis.Redis, limiter: PressLimiter | None) -> GameService:
    ids = itertools.count(1)
    return GameService(
        RedisGameStore(client), ServiceConfig(ai_delay=1.0), new_id=lambda: f"g{next(ids)}",
        seed_source=lambda: 11, limiter=limiter,
    )  # fmt: skip


async def play(client: aioredis.Redis, chat_id: str, flood: bool) -> tuple[list[object], list[Alert], int]:
    """One 3-player game at a quick human pace; with ``flood``, Eve sends 100 junk presses a second
    meanwhile. Returns the archived log, Eve's answers and the round trips her presses cost."""
    svc = service(client, PressLimiter())
    chat = SimulatedChat(svc, chat_id, 3, random.Random(1), think=0.02, policy="first")
    answers: list[Alert] = []
    seen: list[str] = []
    spent = [0]

    async def flooder() -> None:
        rng = random.Random(2)
        for n in itertools.count():
            await asyncio.sleep(0.01)
            stale = [b.payload for h in chat.hands.values() for row in h.buttons for b in row]
            seen.extend(stale[:2])
            junk = [
                "garbage", f"{chat_id}|zzzz|0|J", f"{chat_id}|g2|{n}|t", "-1|g2|3|a:6S",
                rng.choice(seen) if seen else "x|y",
            ]  # fmt: skip
            before = svc.store.round_trips
            effects = await svc.handle(Press(PLATFORM, EVE, junk[n % len(junk)]))
            spent[0] += svc.store.round_trips - before
            assert all(isinstance(e, Alert) and e.user_id == EVE.id for e in effects), effects
            answers.extend(e for e in effects if isinstance(e, Alert))

    task = asyncio.create_task(flooder()) if flood else None
    assert await chat.play_one_game(None, time.perf_counter() + 60)
    if task:
        task.cancel()
    record = await svc.store.load(ChatRef(PLATFORM, chat_id))
    game_id = json.loads((record.state or "{}").partition("\n")[0])["game_id"]
    archive = json.loads(await svc.store.archived_game(game_id) or "{}")
    return archive["log"], answers, spent[0]


async def test_a_hundred_junk_presses_a_second_leave_the_game_as_it_was_and_get_rate_limited(
    real_redis: aioredis.Redis,
) -> None:
    quiet_log, _, _ = await play(real_redis, "-500", flood=False)
    await real_redis.flushall()
    flooded_log, answers, spent = await play(real_redis, "-500", flood=True)
    assert flooded_log == quiet_log, "the flood changed nothing in the game"
    limited = [a for a in answers if a.text == translator("ru")._(LIMITED)]
    assert len(answers) > 100 and len(limited) > 0.7 * len(answers), (len(answers), len(limited))
    assert translator("ru")._(LIMITED) != LIMITED, "in the flooder's language"
    # only the presses let through (the burst, then 5 a second) reached Redis: one load each at most
    assert spent <= len(answers) - len(limited)
