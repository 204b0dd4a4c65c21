"""Fixtures: the Discord fake on loopback, the game service on fakeredis, and the real bot client."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from storage.store import RedisGameStore
from tests.discord.table import Table
from tests.fakes.discord_gateway import FakeDiscord, running_fake_discord


@pytest.fixture
async def discord_api() -> AsyncIterator[FakeDiscord]:
    async with running_fake_discord() as fake:
        yield fake


@pytest.fixture
def store(fake_redis: object) -> RedisGameStore:
    return RedisGameStore(fake_redis)  # type: ignore[arg-type]


@pytest.fixture
async def table(discord_api: FakeDiscord, store: RedisGameStore) -> Table:
    """A guild with one channel, the bot connected and ``/durak`` synced once."""
    table = Table(discord_api, store)
    await table.start()
    return table
