"""Crashes, outages and restarts of a real redis-server, and the embedded default."""

from __future__ import annotations

import asyncio
import logging
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from fakeredis.aioredis import FakeRedis

from bot.platforms import PLATFORMS
from storage import ChatRef, connect
from storage.connect import client_for_url, open_store
from storage.embedded import RedisServer, socket_path_for
from storage.errors import StoreUnavailable
from storage.models import GameOutcome, PlayerOutcome, PlayerStats
from storage.store import RedisGameStore

CHAT = ChatRef("tg", "-100555")
GAME = GameOutcome(
    "g1", '{"seed": 7}', [PlayerOutcome("u1", "Ann", durak=True), PlayerOutcome("u2", "Bob", points=3)]
)
Factory = Callable[..., RedisServer]


@pytest.mark.redis_server
async def test_a_killed_server_restarted_on_its_aof_keeps_games_and_stats(
    redis_server_factory: Factory,
) -> None:
    server = redis_server_factory(fsync="always")
    client = client_for_url(server.url)
    store = RedisGameStore(client, counting_versions=True)
    await store.save(CHAT, 0, "finished game", ttl=86400, outcome=GAME)
    await store.save(CHAT, 1, '{"running": true}', ttl=3600, deadline=123.0)
    await store.set_messages(CHAT, {"table": "42"})
    before = await store.load(CHAT)
    server.kill()  # SIGKILL: no shutdown, no final flush
    with pytest.raises(StoreUnavailable):
        await store.load(CHAT)
    server.start()
    after = await store.load(CHAT)  # the same store and client, reconnected
    assert after == before and after.state == '{"running": true}'
    assert await store.stats(CHAT) == [
        PlayerStats("u2", "Bob", 1, points=3, streak=1),
        PlayerStats("u1", "Ann", 1, 1, streak=-1),
    ]
    assert await store.archived_game("g1") == '{"seed": 7}'
    assert await store.claim_due_timers(200.0, platforms=PLATFORMS) == [(CHAT, 2)]
    await client.aclose()


@pytest.mark.redis_server
async def test_a_stopped_server_fails_calls_quickly_and_the_store_recovers(
    redis_server_factory: Factory,
) -> None:
    server = redis_server_factory()
    client = client_for_url(server.url)
    store = RedisGameStore(client, counting_versions=True)
    await store.save(CHAT, 0, "lobby", ttl=900)
    server.stop()
    for call in (store.load(CHAT), store.save(CHAT, 1, "x", ttl=900), store.stats(CHAT), store.ping()):
        started = time.monotonic()
        with pytest.raises(StoreUnavailable):
            await call
        assert time.monotonic() - started < 3.0
    server.start()
    assert (await store.load(CHAT)).state == "lobby"
    assert await store.save(CHAT, 1, "game", ttl=900) == 2
    await client.aclose()


@pytest.mark.redis_server
async def test_a_frozen_server_times_out_quickly_and_the_store_recovers(
    redis_server_factory: Factory,
) -> None:
    server = redis_server_factory()
    assert server.process is not None
    client = client_for_url(server.url)
    store = RedisGameStore(client)
    await store.save(CHAT, 0, "lobby", ttl=900)
    server.process.send_signal(signal.SIGSTOP)  # accepts connections, never answers
    try:
        started = time.monotonic()
        with pytest.raises(StoreUnavailable):
            await store.load(CHAT)
        assert time.monotonic() - started < 4.0
    finally:
        server.process.send_signal(signal.SIGCONT)
    assert (await store.load(CHAT)).state == "lobby"
    await client.aclose()


async def test_a_store_call_never_outlasts_its_call_timeout() -> None:
    class Hanging:
        async def ping(self) -> None:
            await asyncio.sleep(60)

    store = RedisGameStore(Hanging(), call_timeout=0.2)  # type: ignore[arg-type]
    started = time.monotonic()
    with pytest.raises(StoreUnavailable):
        await store.ping()
    assert time.monotonic() - started < 1.0


async def test_a_wrong_socket_raises_store_unavailable_quickly(tmp_path: Path) -> None:
    client = client_for_url(f"unix://{tmp_path}/nothing-here.sock")
    started = time.monotonic()
    with pytest.raises(StoreUnavailable):
        await RedisGameStore(client).load(CHAT)
    assert time.monotonic() - started < 3.0
    await client.aclose()


async def test_a_disconnected_redis_raises_store_unavailable_and_recovers(fake_redis: FakeRedis) -> None:
    server = fake_redis.connection_pool.connection_kwargs["server"]
    store = RedisGameStore(fake_redis, counting_versions=True)
    await store.save(CHAT, 0, "lobby", ttl=900)
    server.connected = False
    with pytest.raises(StoreUnavailable):
        await store.save(CHAT, 1, "game", ttl=900)
    server.connected = True
    assert await store.save(CHAT, 1, "game", ttl=900) == 2


def commands_sent(
    server: RedisServer, ready: threading.Event, until: str, timeout: float = 10.0
) -> list[str]:
    """Commands clients send to `server` (not those run inside scripts) until `ECHO until`, seen by MONITOR."""
    seen: list[str] = []
    deadline = time.monotonic() + timeout
    with server.client(decode_responses=True) as client, client.monitor() as monitor:
        ready.set()
        while time.monotonic() < deadline:
            command = monitor.next_command()
            if command["client_type"] == "lua":
                continue
            if command["command"] == f"ECHO {until}":
                return seen
            seen.append(command["command"].split()[0].upper())
    raise TimeoutError("the sentinel never arrived")


@pytest.mark.redis_server
async def test_load_and_save_are_one_command_each_on_the_server(redis_server: RedisServer) -> None:
    client = client_for_url(redis_server.url)
    store = RedisGameStore(client)
    await client.flushall()
    await store.save(CHAT, 0, "lobby", ttl=900)
    await store.load(CHAT)  # the server now knows both scripts
    ready = threading.Event()
    watcher = asyncio.create_task(asyncio.to_thread(commands_sent, redis_server, ready, "done"))
    await asyncio.to_thread(ready.wait, 10)
    await asyncio.sleep(0.05)  # MONITOR is on once its OK has come back; give it a moment
    record = await store.load(CHAT)
    await store.save(CHAT, record.version, "game", ttl=3600, deadline=1.0, outcome=GAME)
    await client.echo("done")
    assert await asyncio.wait_for(watcher, 10) == ["EVALSHA", "EVALSHA"]
    await client.aclose()


@pytest.mark.redis_server
async def test_the_embedded_default_keeps_a_game_across_close_and_reopen(tmp_path: Path) -> None:
    store, close = await open_store(None, tmp_path / "data")
    assert not isinstance(store.redis, FakeRedis)
    await store.save(CHAT, 0, '{"game": 1}', ttl=3600, outcome=GAME)
    await close()
    assert not RedisServer(tmp_path / "data").answers()  # close stopped the server
    assert (tmp_path / "data" / "appendonly.aof").exists()
    store, close = await open_store(None, tmp_path / "data")
    try:
        assert (await store.load(CHAT)).state == '{"game": 1}'
        assert [s.user_id for s in await store.stats(CHAT)] == ["u2", "u1"]  # Bob scored, Ann lost
    finally:
        await close()


async def test_without_a_binary_the_default_falls_back_to_fakeredis_loudly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    pytest.importorskip("lupa", reason="fakeredis needs lupa for Lua")
    monkeypatch.setattr(connect, "find_redis_server", lambda: None)
    with caplog.at_level(logging.WARNING):
        store, close = await open_store(None, tmp_path)
    assert "NOTHING WILL BE KEPT" in caplog.text
    assert (await store.save(CHAT, 0, "lobby", ttl=900) or 0) > 0
    await close()


async def test_a_url_that_does_not_answer_still_opens_and_logs_an_error(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR):
        store, close = await open_store(f"unix://{tmp_path}/none.sock", tmp_path)
    assert "not answering" in caplog.text
    with pytest.raises(StoreUnavailable):
        await store.ping()
    await close()


BOT = """
import asyncio, sys, time
from pathlib import Path
from storage.connect import open_store
from storage.keys import ChatRef

async def main():
    store, close = await open_store(None, Path(sys.argv[1]))
    await store.save(ChatRef("tg", "1"), 0, "saved before the kill", ttl=3600)
    print("saved", flush=True)
    await asyncio.sleep(60)

asyncio.run(main())
"""


@pytest.mark.redis_server
async def test_a_killed_bot_takes_its_embedded_server_down_and_the_game_survives(tmp_path: Path) -> None:
    data = tmp_path / "data"
    bot = subprocess.Popen(
        [sys.executable, "-c", BOT, str(data)], cwd=Path(__file__).resolve().parents[2],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert bot.stdout is not None and bot.stdout.readline().strip() == "saved", bot.stderr
    finally:
        bot.kill()  # SIGKILL: no close(), no cleanup of any kind
        bot.wait(10)
    deadline = time.monotonic() + 10
    while RedisServer(data).answers():  # the server got SIGTERM when its parent died
        assert time.monotonic() < deadline, "the embedded redis-server outlived the killed bot"
        await asyncio.sleep(0.05)
    store, close = await open_store(None, data)
    try:
        assert (await store.load(ChatRef("tg", "1"))).state == "saved before the kill"
    finally:
        await close()


@pytest.mark.redis_server
async def test_the_embedded_default_reuses_a_server_already_on_its_socket(
    redis_server_factory: Factory,
) -> None:
    server = redis_server_factory("data")
    store, close = await open_store(None, server.data_dir)
    assert (await store.save(CHAT, 0, "lobby", ttl=900) or 0) > 0
    await close()
    assert server.answers()  # not ours to stop


def test_a_data_dir_too_deep_for_a_unix_socket_gets_a_short_stable_socket_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    assert len(str(deep / "redis.sock")) > 107
    path = socket_path_for(deep)
    assert len(str(path)) <= 100 and path == socket_path_for(deep)
    assert path != socket_path_for(tmp_path / ("d" * 60) / ("f" * 60))
    assert socket_path_for(tmp_path) == tmp_path.resolve() / "socket" / "redis.sock"
