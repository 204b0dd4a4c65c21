"""Pytest fixture: a fake Telegram Bot API server on a free 127.0.0.1 port.

Other test folders can use it with ``pytest_plugins = ["tests.fakes.telegram_fixture"]`` in the top-level
tests/conftest.py.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.fakes.telegram_api import FakeTelegram


@pytest.fixture
async def telegram_api() -> AsyncIterator[FakeTelegram]:
    fake = FakeTelegram()
    await fake.start()
    try:
        yield fake
    finally:
        await fake.close()
