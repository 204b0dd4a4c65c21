"""Fixtures of the browser tests: Debian's Chromium, and a chat whose clock is the wall clock (the page
counts the turn's time down from the state's deadline)."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
from playwright.async_api import Browser

from storage.store import RedisGameStore
from tests.bot.harness import Harness
from tests.web.browser import headless_chromium


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    async with headless_chromium() as chromium:
        yield chromium


@pytest.fixture
def harness(fake_redis: Any) -> Harness:
    people = Harness(RedisGameStore(fake_redis))
    people.clock = time.time()
    return people
