"""Wiring: `durak-bot run` finds `run_discord`; shard settings are read and checked."""

from __future__ import annotations

import pytest

from adapters.discord.app import DiscordSettings, run_discord
from bot.main import platform_runner


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
