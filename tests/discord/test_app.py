"""Wiring: `durak-bot run` finds `run_discord`; shard settings are read and checked."""

from __future__ import annotations

import asyncio
import time

import pytest

from adapters.discord.app import DiscordSettings, DurakDiscordClient, run_discord
from bot.service import GameService
from bot.timers import Deliveries
from cli.main import platform_runner
from storage import ChatRef
from storage.store import RedisGameStore
from tests.discord.table import Table
from tests.fakes.discord_gateway import FakeDiscord


def settings(**values: object) -> DiscordSettings:
    return DiscordSettings(_env_file=None, **values)  # type: ignore[call-arg,arg-type]


def test_durak_bot_run_loads_run_discord() -> None:
    assert platform_runner("discord") is run_discord


def test_shard_ids_are_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHARD_IDS", "2, 3")
    monkeypatch.setenv("SHARD_COUNT", "4")
    monkeypatch.setenv("DISCORD_SYNC", "1")
    read = DiscordSettings(_env_file=None)  # type: ignore[call-arg]
    assert read.shard_list() == [2, 3] and read.shard_count == 4 and read.discord_sync


def test_no_shard_ids_means_all_shards() -> None:
    assert settings().shard_list() is None


@pytest.mark.parametrize(("ids", "count"), [("0,1", None), ("4", 4), ("-1", 2)])
def test_shard_ids_without_a_count_or_outside_it_are_refused(ids: str, count: int | None) -> None:
    with pytest.raises(ValueError):
        settings(shard_ids=ids, shard_count=count).shard_list()


async def test_run_discord_refuses_to_start_without_a_token() -> None:
    class NoToken:
        discord_token = None

    with pytest.raises(ValueError, match="DISCORD_TOKEN"):
        await run_discord(NoToken(), None, None)  # type: ignore[arg-type]


async def test_under_durak_bot_run_the_client_joins_the_process_timer_routes_and_leaves_on_close(
    discord_api: FakeDiscord, store: RedisGameStore
) -> None:
    deliveries = Deliveries()  # the process's timer routes, as `durak-bot run` builds them
    client = DurakDiscordClient(GameService(store), store, settings(), deliveries=deliveries)
    await discord_api.connect(client)
    assert deliveries.routes["dc"] == client.deliver_due and "dc" in deliveries.platforms
    await discord_api.disconnect(client)
    assert "dc" not in deliveries.routes


async def test_its_own_timer_loop_claims_only_discord_deadlines(
    discord_api: FakeDiscord, store: RedisGameStore
) -> None:
    telegram_chat = ChatRef("tg", "-100")
    version = await store.save(telegram_chat, 0, "{}", ttl=60, deadline=time.time() - 1)
    assert version
    table = Table(discord_api, store)
    client = await table.start(run_timer_loop=True, timer_poll=0.01)
    await asyncio.sleep(0.1)  # several passes of the loop
    assert client.deliveries is None
    assert await store.claim_due_timers(time.time(), platforms=["tg"]) == [(telegram_chat, version)]
    await discord_api.disconnect(client)


async def test_on_close_what_is_queued_gets_stop_timeout_seconds(
    discord_api: FakeDiscord, store: RedisGameStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = DurakDiscordClient(GameService(store), store, settings(), stop_timeout=7.5)
    await discord_api.connect(client)
    given: list[float] = []

    async def settled(timeout: float = 10.0) -> None:
        given.append(timeout)

    monkeypatch.setattr(client.delivery, "settled", settled)
    await discord_api.disconnect(client)
    assert given == [7.5], "STOP_TIMEOUT, as the Telegram side drains its queues"
