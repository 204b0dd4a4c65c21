"""The Discord Activity's server in a test: a Discord channel driven through `tests.bot.harness.Harness`, the
Activity's routes (`adapters.web.discord_pages`) over the same service, and Discord's OAuth2 and
activity-instance endpoints played by `tests.fakes.discord_oauth`."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from adapters.web.discord_auth import DiscordOAuth
from adapters.web.discord_pages import DiscordPages
from bot.inputs import User
from bot.platforms import DISCORD
from storage.store import RedisGameStore
from tests.bot.harness import Harness
from tests.fakes.discord_oauth import FakeDiscordOAuth
from tests.web.pages import Delivered

CLIENT_ID = "1300000000000000001"
CLIENT_SECRET = "the-activity-client-secret-0123456789"
BOT_TOKEN = "fake-bot-token"
CHANNEL = "880000000000000001"
GUILD = "770000000000000001"


class Clock:
    """A clock that moves only when a test moves it (``clock.now += 60``): sessions lapse, Discord's answers
    age and sign-in budgets refill only when the test says time passed."""

    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def channel_harness(redis: Any) -> Harness:
    """A Discord channel's game, driven by its buttons."""
    return Harness(RedisGameStore(redis), platform=DISCORD, chat=CHANNEL)


@asynccontextmanager
async def discord_side(*people: User) -> AsyncIterator[FakeDiscordOAuth]:
    """Discord's endpoints, knowing ``people``."""
    fake = FakeDiscordOAuth(CLIENT_ID, CLIENT_SECRET, BOT_TOKEN)
    for person in people:
        fake.add_user(person.id, person.name)
    await fake.start()
    try:
        yield fake
    finally:
        await fake.close()


def activity_pages(
    harness: Harness,
    redis: Any,
    fake: FakeDiscordOAuth,
    clock: Callable[[], float] = time.time,
    **options: Any,
) -> tuple[DiscordPages, Delivered]:
    """The Activity's routes over the harness's service; ``clock`` is the sessions' and the instances'."""
    delivered = Delivered()
    oauth = DiscordOAuth(fake.api_base, CLIENT_ID, CLIENT_SECRET, BOT_TOKEN)
    return DiscordPages(harness.service, redis, delivered, oauth, clock=clock, **options), delivered
