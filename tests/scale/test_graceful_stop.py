"""`durak-bot run` stopped with SIGTERM (docker stop, a deploy) in the middle of games whose table and hand
edits are still on their way: it exits 0, and every screen queued at the signal is shown, either sent
before the exit (within STOP_TIMEOUT) or re-sent by the next process (`bot.game.catch_up`).

The bot is a real process (tests/scale/run_worker.py) on a real redis-server that outlives it, talking to
the fake Bot API in this process, which holds the bot's sends while the moves are made, so they are queued
when the signal comes. Each test prints its figures: screens queued at the signal, sent before the exit,
left for the next process, seconds to exit.
"""

from __future__ import annotations

import asyncio
import random
import re
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bot.outbox import table_behind
from bot.session import Playing
from storage import ChatRef
from storage.connect import client_for_url
from storage.embedded import RedisServer
from storage.store import RedisGameStore
from tests.fakes.telegram_api import FakeTelegram
from tests.fakes.telegram_model import FakeChat, FakeUser
from tests.scale.test_crash_recovery import STILL, Bot, current_buttons, fake, game_of, polling, tap_until

pytestmark = pytest.mark.redis_server
__all__ = ["fake"]  # the fixture, shared with the crash test

GAMES = 3
FIGURES = re.compile(r"delivery stopped: (\d+) queued in (\d+) chats, (\d+) sent, (\d+) left")


async def open_game(fake: FakeTelegram, store: RedisGameStore, n: int) -> tuple[FakeChat, list[FakeUser]]:
    """A group with two people who started the bot, their game started."""
    ann, bob = fake.add_user(f"Ann{n}"), fake.add_user(f"Bob{n}")
    fake.user_starts(ann)
    fake.user_starts(bob)
    group = fake.add_group(f"Club{n}", [ann, bob], owner=ann)
    fake.user_sends(group, ann, "/newgame timer=0 deck=24")
    await fake.wait_until(lambda: any("New game" in m.text for m in fake.bot_messages(group)), 20)
    lobby = next(m for m in fake.bot_messages(group) if "New game" in m.text)
    fake.press_button(group, lobby.message_id, bob, "Join")
    await fake.wait_until(lambda: "Bob" in fake.message(group, lobby.message_id).text, 20)
    fake.press_button(group, lobby.message_id, ann, "Start")
    deadline = time.monotonic() + 20
    while not isinstance(getattr((await game_of(store, group.id))[1], "header", None), Playing):
        assert time.monotonic() < deadline, "the game did not start"
        await asyncio.sleep(0.02)
    return group, [ann, bob]


async def shown_everywhere(
    fake: FakeTelegram, store: RedisGameStore, games: list[tuple[FakeChat, list[FakeUser]]]
) -> bool:
    """Every game's delivered table is the stored one, and its current move buttons are on screen."""
    for group, players in games:
        record = await store.load(ChatRef("tg", str(group.id)))
        _, session = await game_of(store, group.id)
        assert session is not None and session.game is not None
        if table_behind(record) or not current_buttons(fake, players, session.game.step):
            return False
    return True


async def moves_with_screens_held(
    fake: FakeTelegram, store: RedisGameStore, games: list[tuple[FakeChat, list[FakeUser]]]
) -> None:
    """One move in each game, saved, with its table and hand edits held on their way."""
    rng = random.Random(7)
    for group, players in games:  # the games run; their screens keep up
        await tap_until(fake, store, group.id, players, 2, rng)
    deadline = time.monotonic() + STILL
    while not await shown_everywhere(fake, store, games):
        assert time.monotonic() < deadline, "the screens before the held move were not shown"
        await asyncio.sleep(0.05)
    fake.hold("sendMessage", "editMessageText")
    for group, players in games:
        await tap_until(fake, store, group.id, players, 1, rng)
    await fake.wait_until(lambda: fake.held_calls >= GAMES, 20, "the moves' edits to be on their way")
    assert not await shown_everywhere(fake, store, games)


async def terminated(bot: Bot, limit: float) -> tuple[int, float]:
    """SIGTERM the bot; (its exit status, seconds it took)."""
    begin = time.monotonic()
    bot.process.send_signal(signal.SIGTERM)
    status = await asyncio.to_thread(bot.process.wait, limit)
    return status, time.monotonic() - begin


def figures(bot: Bot) -> tuple[int, int, int, int]:
    """(queued, chats, sent, left) from the bot's log line at the end of its delivery."""
    found = FIGURES.search(bot.log.read_text(errors="replace"))
    assert found is not None, f"no delivery figures in the log:\n{bot.output()}"
    queued, chats, sent, left = map(int, found.groups())
    return queued, chats, sent, left


async def stage(
    redis_server_factory: Callable[..., RedisServer], tmp_path: Path
) -> tuple[RedisServer, Any, RedisGameStore, Path]:
    """A redis-server that outlives the bot processes, a client on it, and the bots' data folder."""
    redis = redis_server_factory("graceful")
    client = client_for_url(redis.url)
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    return redis, client, RedisGameStore(client), data_dir


async def test_sigterm_with_edits_queued_sends_them_all_before_exiting_0(
    fake: FakeTelegram, tmp_path: Path, redis_server_factory: Callable[..., RedisServer]
) -> None:
    redis, client, store, data_dir = await stage(redis_server_factory, tmp_path)
    bot = Bot(fake, data_dir, "first", REDIS_URL=redis.url, STOP_TIMEOUT="10")
    try:
        await polling(fake, bot, 0)
        games = [await open_game(fake, store, n) for n in range(GAMES)]
        await moves_with_screens_held(fake, store, games)
        held = fake.held_calls
        begin = time.monotonic()
        bot.process.send_signal(signal.SIGTERM)
        await asyncio.sleep(4.0)  # the network comes back 4 s into the stop (STOP_TIMEOUT is 10)
        fake.release()
        status = await asyncio.to_thread(bot.process.wait, 30)
        seconds = time.monotonic() - begin
        assert status == 0, bot.output()
        assert seconds < 10 + 5, f"it took {seconds:.1f} s to exit"
        queued, chats, sent, left = figures(bot)
        print(f"\nSIGTERM: {held} sends on their way, {queued} queued in {chats} chats, {sent} sent "
              f"before exit, {left} left, {seconds:.1f} s to exit")  # fmt: skip
        assert queued >= held and sent >= held and left == 0
        assert await shown_everywhere(fake, store, games), "every queued screen went out before the exit"
    finally:
        fake.release()
        bot.stop()
        await client.aclose()


async def test_sigterm_past_the_bound_exits_0_and_the_next_process_shows_what_was_left(
    fake: FakeTelegram, tmp_path: Path, redis_server_factory: Callable[..., RedisServer]
) -> None:
    redis, client, store, data_dir = await stage(redis_server_factory, tmp_path)
    first = Bot(fake, data_dir, "first", REDIS_URL=redis.url, STOP_TIMEOUT="1")
    second: Bot | None = None
    try:
        await polling(fake, first, 0)
        games = [await open_game(fake, store, n) for n in range(GAMES)]
        await moves_with_screens_held(fake, store, games)
        status, seconds = await terminated(first, 30)  # the network stays stuck past STOP_TIMEOUT
        assert status == 0, first.output()
        queued, chats, sent, left = figures(first)
        print(f"\nSIGTERM past the bound: {queued} queued in {chats} chats, {sent} sent before exit, "
              f"{left} left for the next process, {seconds:.1f} s to exit")  # fmt: skip
        assert left > 0 and sent == 0
        assert seconds < 1 + 8, f"it took {seconds:.1f} s to exit"
        assert not await shown_everywhere(fake, store, games)
        fake.release()  # the dead process's held calls were cancelled with it: never applied

        second = Bot(fake, data_dir, "second", REDIS_URL=redis.url)
        await polling(fake, second, fake.calls["getUpdates"])
        deadline = time.monotonic() + STILL
        while not await shown_everywhere(fake, store, games):
            assert time.monotonic() < deadline, f"the next process did not re-send them:\n{second.output()}"
            await asyncio.sleep(0.05)
    finally:
        fake.release()
        first.stop()
        if second is not None:
            second.stop()
        await client.aclose()
