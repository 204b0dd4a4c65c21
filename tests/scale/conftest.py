from __future__ import annotations

import pytest

from storage.store import RedisGameStore
from tests.bot.harness import Harness


@pytest.fixture
def harness(fake_redis: object) -> Harness:
    return Harness(RedisGameStore(fake_redis, counting_versions=True))  # type: ignore[arg-type]
