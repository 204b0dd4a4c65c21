"""Bot processes for the fault tests: each runs its own `GameService` and turn-timer loop on a shared Redis,
as `durak-bot run` does, and nothing else; the test process plays the people's side through its own service.

A worker counts the deadlines it handled in a shared counter and runs until it is killed or told to stop.
"""

from __future__ import annotations

import asyncio
import multiprocessing as mp
from multiprocessing.sharedctypes import Synchronized
from typing import Any

from bot.context import ServiceConfig
from bot.effects import Effect, ShowTable
from bot.inputs import Command, Press, TimerDue, User
from bot.service import GameService
from bot.session import ChatSession, Playing
from bot.timers import run_timers
from storage import ChatRef
from storage.connect import client_for_url
from storage.store import RedisGameStore

AI_DELAY = 0.02
LEASE = 1.0


async def serve_timers(url: str, handled: Synchronized[int], stop: Any) -> None:
    client = client_for_url(url)
    store = RedisGameStore(client)
    service = GameService(store, ServiceConfig(ai_delay=AI_DELAY))
    stopped = asyncio.Event()

    async def deliver(due: TimerDue, effects: list[Effect]) -> None:
        with handled.get_lock():
            handled.value += 1

    async def watch_stop() -> None:
        while not stop.is_set():
            await asyncio.sleep(0.02)
        stopped.set()

    watcher = asyncio.create_task(watch_stop())
    await run_timers(service, store, stopped, deliver, poll=0.01, platforms=["tg"], lease=LEASE)
    watcher.cancel()
    await client.aclose()


def timer_worker(url: str, handled: Synchronized[int], stop: Any) -> None:
    asyncio.run(serve_timers(url, handled, stop))


def start_workers(url: str, count: int) -> tuple[list[mp.process.BaseProcess], list[Synchronized[int]], Any]:
    ctx = mp.get_context("spawn")
    stop = ctx.Event()
    counters = [ctx.Value("i", 0) for _ in range(count)]
    workers = [ctx.Process(target=timer_worker, args=(url, counters[i], stop)) for i in range(count)]
    for worker in workers:
        worker.start()
    return workers, counters, stop


async def open_games(service: GameService, chats: list[str], ai_seats: int = 2) -> list[User]:
    """One person and ``ai_seats`` easy AI seats per chat, dealt; the people, in the order of ``chats``."""
    people = []
    for chat_id in chats:
        person = User(f"p{chat_id}", f"P{chat_id}")
        effects = await service.handle(Command("tg", chat_id, person, "newgame", "", chat_title="Fault"))
        for code in ["A:easy"] * ai_seats + ["S"]:
            table = next(e for e in effects if isinstance(e, ShowTable)).message
            payload = next(b.payload for row in table.buttons for b in row if b.payload.endswith(f"|{code}"))
            effects = await service.handle(Press("tg", person, payload))  # as the lobby's button says
        people.append(person)
    return people


async def move_for_person(service: GameService, chat_id: str, person: User) -> tuple[bool, bool]:
    """Press the person's first legal move if it is their turn, as their hand's button would:
    (game over, a move was applied)."""
    record = await service.store.load(ChatRef("tg", chat_id))
    session = ChatSession.decode(record.state) if record.state else None
    if session is None or not isinstance(session.header, Playing) or session.game is None:
        return True, False
    game, header = session.game, session.header
    seat = next(i for i, s in enumerate(header.seats) if s.user_id == person.id)
    if game.to_act != seat:
        return False, False
    action = game.legal_actions(seat)[0]
    effects = await service.handle(
        Press("tg", person, f"{chat_id}|{header.game_id}|{game.step}|{action.code}")
    )
    return False, any(isinstance(e, ShowTable) for e in effects)


RESUME_WITHIN = 5.0  # seconds from Redis answering again to a move applied (docs/reliability.md §13)


async def seconds_until_a_move(
    service: GameService, chat_id: str, person: User, limit: float = 15.0
) -> float:
    """Seconds until a move of the chat's game is applied again: the person's when it is their turn, else an
    AI seat's by its deadline."""
    import time

    begin = time.monotonic()
    chat = ChatRef("tg", chat_id)
    while time.monotonic() - begin < limit:
        before = (await service.store.load(chat)).version
        await move_for_person(service, chat_id, person)
        if (await service.store.load(chat)).version > before:
            return time.monotonic() - begin
        await asyncio.sleep(0.02)
    raise AssertionError(f"the game did not move within {limit} s")
