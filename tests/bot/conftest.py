from __future__ import annotations

import pytest

from bot.inputs import User
from storage.store import RedisGameStore
from tests.bot.harness import Harness

ANN = User("1", "Ann")
BOB = User("2", "Bob")
CAT = User("3", "Cat")
EVE = User("9", "Eve")


@pytest.fixture
def harness(fake_redis: object) -> Harness:
    return Harness(RedisGameStore(fake_redis, counting_versions=True))  # type: ignore[arg-type]
