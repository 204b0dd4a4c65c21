"""Redis going away under a live bot: stopped for ten seconds mid-game, restarted, or killed and restarted.

The bot process here is the test process: a `GameService` and its turn-timer loop (AI seats move by
deadline), while the person's presses come in as they would from a platform.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Callable

import pytest

from bot.context import ServiceConfig
from bot.effects import Alert, Effect, Reply
from bot.i18n import translator
from bot.inputs import Command, Press, TimerDue, User
from bot.service import GameService
from bot.session import ChatSession, Playing
from bot.timers import run_timers
from storage import ChatRef
from storage.connect import client_for_url
from storage.embedded import RedisServer
from storage.store import RedisGameStore
from tests.scale.workers import AI_DELAY, RESUME_WITHIN, move_for_person, open_games, seconds_until_a_move

pytestmark = pytest.mark.redis_server
CHAT = "-900"
UNAVAILABLE = "The game service is unavailable, try again in a moment."


@contextlib.asynccontextmanager
async def bot(server: RedisServer) -> AsyncIterator[tuple[GameService, list[Effect], asyncio.Task[None]]]:
    client = client_for_url(server.url)
    store = RedisGameStore(client)
    service = GameService(store, ServiceConfig(ai_delay=AI_DELAY))
    delivered: list[Effect] = []

    async def deliver(due: TimerDue, effects: list[Effect]) -> None:
        delivered.extend(effects)

    stop = asyncio.Event()
    timers = asyncio.create_task(run_timers(service, store, stop, deliver, poll=0.02, lease=1.0))
    try:
        yield service, delivered, timers
    finally:
        stop.set()
        await asyncio.wait_for(timers, 10)
        await client.aclose()


async def play_until(
    service: GameService, person: User, steps: int, limit: float = 30, their_turn: bool = False
) -> ChatSession:
    """The person moves whenever it is their turn, until the game has ``steps`` steps (or is over); with
    ``their_turn``, until then and the person is to act (so no AI deadline can move it meanwhile)."""
    begin = time.monotonic()
    while time.monotonic() - begin < limit:
        record = await service.store.load(ChatRef("tg", CHAT))
        session = ChatSession.decode(record.state or "")
        game, header = session.game, session.header
        if game is None:
            return session
        if game.step >= steps:
            seat = next(i for i, s in enumerate(header.seats) if s.user_id == person.id)
            if not their_turn or game.to_act == seat:
                return session
        await move_for_person(service, CHAT, person)
        await asyncio.sleep(0.01)
    raise AssertionError(f"the game did not reach step {steps} in {limit} s")


async def finish(service: GameService, person: User) -> dict[str, object]:
    session = await play_until(service, person, 10_000)
    assert not isinstance(session.header, Playing), "the game ended"
    archive = json.loads(await service.store.archived_game(session.header.game_id) or "{}")
    assert archive["result"] is not None
    return archive


async def test_redis_stopped_ten_seconds_mid_game_answers_unavailable_then_the_game_resumes_intact(
    redis_server_factory: Callable[..., RedisServer],
) -> None:
    server = redis_server_factory("outage")
    async with bot(server) as (service, delivered, timers):
        (person,) = await open_games(service, [CHAT])
        session = await play_until(service, person, 12)
        assert isinstance(session.header, Playing) and session.game is not None
        step, game_id = session.game.step, session.header.game_id
        legal = session.game.legal_actions(session.game.to_act or 0)[0].code
        server.stop()
        answers: list[Effect] = []
        ended = time.monotonic() + 10
        while time.monotonic() < ended:  # people keep pressing and typing; the timer loop keeps polling
            answers += await service.handle(Press("tg", person, f"{CHAT}|{game_id}|{step}|{legal}"))
            answers += await service.handle(Command("tg", CHAT, person, "stats"))
            await asyncio.sleep(0.5)
        assert not timers.done(), "the timer loop survived the outage"
        text = translator("en")._(UNAVAILABLE)
        assert answers and all(
            (isinstance(a, Alert) and a.text == text and a.show_alert)
            or (isinstance(a, Reply) and a.message.plain_text == text)
            for a in answers
        ), answers
        server.start()
        assert await seconds_until_a_move(service, CHAT, person) < RESUME_WITHIN
        session = await play_until(service, person, step + 1)  # the game resumes from where it stood
        assert session.game is None or session.game.step >= step + 1
        archive = await finish(service, person)
        assert archive["game_id"] == game_id
        log = archive["log"]
        assert isinstance(log, list) and len(log) > step, "every move before the outage is in the log"


@pytest.mark.parametrize("how", ["restart", "crash"])
async def test_a_game_continues_after_redis_restarts_on_its_append_only_file(
    redis_server_factory: Callable[..., RedisServer], how: str
) -> None:
    server = redis_server_factory(how, fsync="always" if how == "crash" else "everysec")
    async with bot(server) as (service, _, _):
        (person,) = await open_games(service, [CHAT])
        before = await play_until(service, person, 10, their_turn=True)
        record = await service.store.load(ChatRef("tg", CHAT))
        if how == "crash":
            server.kill()  # SIGKILL: only what was fsynced survives (everything, with appendfsync always)
        else:
            server.stop()  # SIGTERM: Redis writes out its AOF
        server.start()
        again = await service.store.load(ChatRef("tg", CHAT))
        assert (again.version, again.state) == (record.version, record.state), "the game as it was"
        assert await seconds_until_a_move(service, CHAT, person) < RESUME_WITHIN
        archive = await finish(service, person)
        assert isinstance(before.header, Playing) and archive["game_id"] == before.header.game_id


async def test_a_game_continues_after_redis_was_paused(
    redis_server_factory: Callable[..., RedisServer],
) -> None:
    """SIGSTOP: Redis accepts connections and answers nothing (a stalled disk, a VM paused), for 8 s."""
    import signal

    server = redis_server_factory("pause")
    async with bot(server) as (service, _, timers):
        (person,) = await open_games(service, [CHAT])
        before = await play_until(service, person, 8, their_turn=True)
        assert server.process is not None and before.game is not None
        server.process.send_signal(signal.SIGSTOP)
        try:
            answers = await service.handle(Command("tg", CHAT, person, "stats"))
            await asyncio.sleep(8)
        finally:
            server.process.send_signal(signal.SIGCONT)
        assert not timers.done()
        assert all(isinstance(a, Reply) and "unavailable" in a.message.plain_text for a in answers), answers
        assert await seconds_until_a_move(service, CHAT, person) < RESUME_WITHIN
        after = await service.store.load(ChatRef("tg", CHAT))
    assert ChatSession.decode(after.state or "").game is not None
