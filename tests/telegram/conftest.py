"""Fixtures: the fake Telegram Bot API server (tests/fakes) and the bot under test, wired to fakeredis."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from telegram import Bot
from telegram.request import HTTPXRequest

from adapters.telegram.delivery import Delivery
from adapters.telegram.memory import ChatMemory
from adapters.telegram.pacing import Clock
from adapters.telegram.shared_pacing import SharedPacer
from storage.store import RedisGameStore
from tests.fakes.telegram_api import FakeTelegram
from tests.fakes.telegram_fixture import telegram_api  # noqa: F401  (the fake server)
from tests.telegram.world import World


@pytest.fixture
async def world_factory(
    telegram_api: FakeTelegram,  # noqa: F811
    fake_redis: object,
) -> AsyncIterator[Callable[..., World]]:
    worlds: list[World] = []

    def make(**options: object) -> World:
        world = World(telegram_api, fake_redis, **options)  # type: ignore[arg-type]
        worlds.append(world)
        return world

    yield make
    for world in worlds:
        await world.stop()


@pytest.fixture
async def world(world_factory: Callable[..., World]) -> AsyncIterator[World]:
    """The bot, long polling, running."""
    started = world_factory()
    await started.start()
    yield started


@pytest.fixture
async def processes(telegram_api: FakeTelegram) -> AsyncIterator[Callable[..., Any]]:  # noqa: F811
    """``await make(redis, n, clocks=...)``: ``n`` deliveries serving the fake's one token through ``redis``."""
    made: list[tuple[Delivery, Bot]] = []  # type: ignore[type-arg]

    async def make(redis: Any, n: int = 2, clocks: list[Clock] | None = None) -> list[Delivery]:
        deliveries = []
        for index in range(n):
            pool = HTTPXRequest(connection_pool_size=256)  # as the bot's (adapters/telegram/app.py)
            bot: Bot = Bot(telegram_api.token, base_url=telegram_api.bot_base_url, request=pool)  # type: ignore[type-arg]
            await bot.initialize()
            store = RedisGameStore(redis)
            clock = clocks[index] if clocks else telegram_api.clock
            pacer = SharedPacer(store, clock=telegram_api.clock)
            delivery = Delivery(bot, ChatMemory(store), clock, pacer=pacer)
            made.append((delivery, bot))
            deliveries.append(delivery)
        return deliveries

    yield make
    for delivery, bot in made:
        await delivery.close(drain=0.1)
        await bot.shutdown()


@pytest.fixture(params=["fake_redis", pytest.param("real_redis", marks=pytest.mark.redis_server)])
def shared_redis(request: pytest.FixtureRequest) -> Any:
    return request.getfixturevalue(request.param)
