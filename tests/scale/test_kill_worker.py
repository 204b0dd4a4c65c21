"""SIGKILL one of two bot processes in the middle of bouts: the other carries every game to its end.

The two workers only run turn-timer loops (AI seats move by deadline); the test process plays the people.
Deadlines live in Redis, so the survivor claims the dead one's future deadlines, and the ones the dead process
had claimed but not handled come back after their lease.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from collections.abc import Callable

import pytest

from bot.context import ServiceConfig
from bot.inputs import TimerDue
from bot.service import GameService
from bot.session import ChatSession, Playing
from storage import ChatRef
from storage.connect import client_for_url
from storage.embedded import RedisServer
from storage.keys import timers_key
from storage.store import RedisGameStore
from tests.scale.workers import AI_DELAY, LEASE, move_for_person, open_games, start_workers

pytestmark = pytest.mark.redis_server


async def test_killing_one_of_two_workers_mid_bout_leaves_the_other_to_finish_every_game(
    redis_server_factory: Callable[..., RedisServer],
) -> None:
    server = redis_server_factory("kill")
    workers, handled, stop = start_workers(server.url, 2)
    client = client_for_url(server.url)
    store = RedisGameStore(client)
    service = GameService(store, ServiceConfig(ai_delay=AI_DELAY))
    chats = [f"-7{i:03d}" for i in range(16)]
    try:
        people = await open_games(service, chats)
        over: set[str] = set()
        killed = False
        mid_bout = handled_by_b = 0
        begin = time.monotonic()
        while len(over) < len(chats) and time.monotonic() - begin < 45:
            for chat_id, person in zip(chats, people, strict=True):
                if chat_id not in over and (await move_for_person(service, chat_id, person))[0]:
                    over.add(chat_id)
            if not killed and min(handled[0].value, handled[1].value) >= 10:  # both are moving AI seats
                mid_bout = await games_mid_bout(store, chats)
                os.kill(workers[0].pid, signal.SIGKILL)  # type: ignore[arg-type]
                workers[0].join(5)
                killed, handled_by_b = True, handled[1].value
            await asyncio.sleep(0.005)
        assert killed, "both workers were moving AI seats before the kill"
        assert mid_bout > 0, "the kill came in the middle of bouts"
        assert over == set(chats), f"games left unfinished: {sorted(set(chats) - over)}"
        assert handled[1].value > handled_by_b, "the survivor went on moving AI seats"
        for chat_id in chats:
            record = await store.load(ChatRef("tg", chat_id))
            finished = ChatSession.decode(record.state or "").header
            archive = json.loads(await store.archived_game(finished.game_id) or "{}")
            assert archive.get("result") is not None
        assert await client.zcard(timers_key("tg")) == 0, "no deadline left behind"
    finally:
        stop.set()
        for worker in workers:
            worker.join(5)
            if worker.is_alive():
                worker.kill()
        await client.aclose()


async def games_mid_bout(store: RedisGameStore, chats: list[str]) -> int:
    count = 0
    for chat_id in chats:
        record = await store.load(ChatRef("tg", chat_id))
        session = ChatSession.decode(record.state) if record.state else None
        if session and isinstance(session.header, Playing) and session.game and session.game.attacks:
            count += 1
    return count


async def test_a_deadline_claimed_by_a_process_that_died_fires_again_from_another_after_its_lease(
    real_redis: object,
) -> None:
    store_a, store_b = (RedisGameStore(real_redis, counting_versions=True) for _ in range(2))  # type: ignore[arg-type]
    service = GameService(store_b, ServiceConfig(ai_delay=AI_DELAY))
    people = await open_games(service, ["-801"])
    chat = ChatRef("tg", "-801")
    while (await move_for_person(service, chat.chat_id, people[0]))[1]:
        pass  # the person moves while it is their turn, so the armed deadline is an AI seat's
    version = (await store_b.load(chat)).version
    now = time.time() + 1
    assert await store_a.claim_due_timers(now, lease=LEASE, platforms=["tg"]) == [(chat, version)]
    # process A dies here, before handling it; B sees nothing due until the lease is over
    assert await store_b.claim_due_timers(now + LEASE / 2, lease=LEASE, platforms=["tg"]) == []
    claimed = await store_b.claim_due_timers(now + LEASE + 0.01, lease=LEASE, platforms=["tg"])
    assert claimed == [(chat, version)]
    effects = await service.handle_timer(TimerDue("tg", chat.chat_id, version))
    assert effects and (await store_b.load(chat)).version == version + 1, "the AI seat moved, once"
    # given back with the next claim, the handled deadline is gone; the new one (next AI move) remains
    later = await store_b.claim_due_timers(now, lease=LEASE, platforms=["tg"], done=claimed)
    assert (chat, version) not in later
