"""The timer loop hands each deadline to one loop only and still finishes games nobody touches; an archived
game replays step by step to the result the chat saw."""

from __future__ import annotations

import asyncio
import io
import itertools
import json
from collections import Counter

import fakeredis

from adapters.local.demo import DemoOptions, play_demo
from adapters.local.replay import print_replay
from adapters.local.screen import find_button
from bot.buttons import AddAi, Start
from bot.context import ServiceConfig
from bot.effects import Effect, Notice, ShowTable
from bot.inputs import Command, Press, TimerDue, User
from bot.service import GameService
from bot.timers import Deliveries, run_timers
from storage.store import RedisGameStore


async def open_untouched_games(service: GameService, chats: list[str]) -> None:
    """Lobbies with a 15-second turn timer, one person and one AI each, started and then left alone."""
    for chat in chats:
        user = User(f"u{chat}", f"Player {chat}")
        effects = await service.handle(Command("tg", chat, user, "newgame", "timer=15 deck=24"))
        lobby = next(e.message for e in effects if isinstance(e, ShowTable))
        add = find_button(lobby, AddAi("easy"))
        assert add is not None
        effects = await service.handle(Press("tg", user, add.payload))
        lobby = next(e.message for e in effects if isinstance(e, ShowTable))
        start = find_button(lobby, Start())
        assert start is not None
        await service.handle(Press("tg", user, start.payload))


async def test_two_timer_loops_handle_every_deadline_once_and_abandoned_games_still_end() -> None:
    client = fakeredis.aioredis.FakeRedis(server=fakeredis.FakeServer(), decode_responses=True)
    store = RedisGameStore(client)
    ticks = itertools.count()
    clock = lambda: 1_000_000.0 + 30 * next(ticks)  # noqa: E731 - every reading is 30 s later
    ids = (f"id{n}" for n in itertools.count())
    service = GameService(store, ServiceConfig(ai_delay=1.0), clock=clock, new_id=lambda: next(ids))
    chats = ["-101", "-102", "-103"]
    await open_untouched_games(service, chats)

    handled: Counter[tuple[str, int]] = Counter()
    finished: set[str] = set()
    all_done = asyncio.Event()

    async def deliver(due: TimerDue, effects: list[Effect]) -> None:
        if not due.version:
            return  # a loop's first pass shows the games again (bot/game/catch_up.py), no deadline
        handled[(due.chat_id, due.version)] += 1
        if any(isinstance(e, Notice) for e in effects):
            finished.add(due.chat_id)
            if finished == set(chats):
                all_done.set()

    routes = Deliveries()
    routes.register("tg", deliver)
    stop = asyncio.Event()
    loops = [
        asyncio.create_task(run_timers(service, store, stop, routes, poll=0.01, clock=clock))
        for _ in range(2)
    ]
    try:
        await asyncio.wait_for(all_done.wait(), timeout=20)
    finally:
        stop.set()
        await asyncio.gather(*loops)
        await client.aclose()
    assert finished == set(chats)
    assert handled and max(handled.values()) == 1
    assert sum(1 for chat, _version in handled if chat == "-101") > 10  # the whole game went by deadlines


async def test_a_deadline_of_a_platform_not_served_here_is_dropped_not_raised() -> None:
    seen: list[TimerDue] = []

    async def local(due: TimerDue, effects: list[Effect]) -> None:
        seen.append(due)

    routes = Deliveries()
    routes.register("local", local)
    await routes(TimerDue("dc", "1", 3), [])
    await routes(TimerDue("local", "terminal", 4), [])
    assert seen == [TimerDue("local", "terminal", 4)]


async def test_an_archived_game_replays_every_step_to_the_same_result() -> None:
    client = fakeredis.aioredis.FakeRedis(server=fakeredis.FakeServer(), decode_responses=True)
    store = RedisGameStore(client)
    shown = io.StringIO()
    assert await play_demo(store, DemoOptions(players=2, seed=11, brief=True), shown) == 0
    keys = await client.keys("durak:archive:*")
    assert len(keys) == 1
    archived = await store.archived_game(keys[0].rsplit(":", 1)[1])
    await client.aclose()
    assert archived is not None

    replayed = io.StringIO()
    print_replay(archived, replayed)
    lines = replayed.getvalue().splitlines()
    steps = [line for line in lines if line.startswith("Step ")]
    assert len(steps) == len(json.loads(archived)["log"]) + 1
    result = next(line for line in shown.getvalue().splitlines() if line.startswith("Game over:"))
    assert result in lines
