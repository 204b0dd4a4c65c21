"""Fixtures for the local fakes of the chat platforms."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.fakes.discord_gateway import FakeDiscord, running_fake_discord
from tests.fakes.telegram_fixture import telegram_api  # noqa: F401  (the fake Telegram Bot API server)


@pytest.fixture
async def discord_api() -> AsyncIterator[FakeDiscord]:
    """A fake Discord on 127.0.0.1 with ``discord.http.Route.BASE`` pointed at it; clients closed after."""
    async with running_fake_discord() as fake:
        yield fake
