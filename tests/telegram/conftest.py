"""Fixtures: the fake Telegram Bot API server (tests/fakes) and the bot under test, wired to fakeredis."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import pytest

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
