"""The Discord bot: an `AutoShardedClient` wired in `setup_hook`, and `run_discord` for `durak-bot run`.

All game state is in Redis, so several processes can share one bot: each runs a range of shards
(``SHARD_IDS=0,1 SHARD_COUNT=4`` here, ``SHARD_IDS=2,3 SHARD_COUNT=4`` there) against the same store.
Slash commands are uploaded only when asked (``DISCORD_SYNC=1``, or ``python -m adapters.discord sync``),
never at every start: Discord rate-limits command updates and they take a while to spread.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import Any

import discord
from discord import app_commands
from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from adapters.discord.chatter import REPOST_AFTER, Chatter
from adapters.discord.commands import entry_point_command, install
from adapters.discord.delivery import PLATFORM, Delivery
from adapters.discord.flow import InteractionFlow
from adapters.discord.hands import CACHE_USERS, HandRegistry
from adapters.discord.tracing import api_call_trace
from adapters.discord.views import ActivityButton, CardSelect, DirectMessageToggle, ServiceButton
from adapters.web.discord_pages import discord_pages
from bot.adapter import BotConfig, Deliveries, Effect, GameService, MessageMemory, TimerDue, run_own_timers

log = logging.getLogger("durak.discord")


class DiscordSettings(BaseSettings):
    """Discord-only settings, from the environment or ``.env`` (names in capitals)."""

    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    shard_ids: str = ""  # "0,1": the shards this process runs; empty: all of them
    shard_count: int | None = None  # the total over all processes; needed with SHARD_IDS
    discord_sync: bool = False  # upload the slash commands at start (once per deploy)
    discord_sync_guild: int | None = None  # sync to this guild only (appears at once; for testing)
    discord_ack_budget: float = 1.5  # seconds to wait for the service before deferring an interaction
    discord_cache_users: int = Field(default=CACHE_USERS, ge=100)  # users whose language stays in memory
    discord_repost_after: int = Field(default=REPOST_AFTER, ge=0)  # more messages after the table: it moves

    def shard_list(self) -> list[int] | None:
        ids = [int(part) for part in self.shard_ids.replace(" ", "").split(",") if part]
        if ids and not self.shard_count:
            raise ValueError("SHARD_IDS needs SHARD_COUNT (the number of shards over all processes)")
        if any(not 0 <= shard < (self.shard_count or 0) for shard in ids):
            raise ValueError(f"SHARD_IDS {ids} must lie in 0..{(self.shard_count or 1) - 1}")
        return ids or None


class DurakDiscordClient(discord.AutoShardedClient):
    """The bot, and the Discord `bot.adapter.Adapter`. ``run_timer_loop``: also run the turn-timer loop here
    (a Discord-only process, tests); under ``durak-bot run`` the one loop of the process calls this client
    through its ``deliveries``."""

    platform = PLATFORM

    def __init__(
        self,
        service: GameService,
        store: MessageMemory,
        settings: DiscordSettings | None = None,
        *,
        run_timer_loop: bool = False,
        deliveries: Deliveries | None = None,
        timer_poll: float = 0.25,
        clock: Callable[[], float] = time.time,
        activity: bool = False,
        stop_timeout: float = 5.0,
    ) -> None:
        """``activity``: the application has the table as an Activity (DISCORD_ACTIVITY=on): its Entry Point
        command is synced with the slash commands."""
        self.settings = settings or DiscordSettings()
        shards: dict[str, Any] = {}
        if self.settings.shard_list():
            shards = {"shard_ids": self.settings.shard_list(), "shard_count": self.settings.shard_count}
        elif self.settings.shard_count:
            shards = {"shard_count": self.settings.shard_count}
        super().__init__(
            # guild messages: only to count them (`Chatter`); no members, no message content
            intents=discord.Intents(guilds=True, guild_messages=True),
            member_cache_flags=discord.MemberCacheFlags.none(),
            max_messages=None,  # the counted messages are not kept
            chunk_guilds_at_startup=False,
            http_trace=api_call_trace(service.metrics),  # every REST call counted in the metrics (METRICS=on)
            **shards,
        )
        self.service, self.store = service, store
        self.tree: app_commands.CommandTree[DurakDiscordClient] = app_commands.CommandTree(self)
        self.hands = HandRegistry(clock, self.settings.discord_cache_users)
        self.delivery = Delivery(self, store, self.hands, Chatter(self.settings.discord_repost_after))
        self.flow = InteractionFlow(
            service, self.delivery, self.hands, self.settings.discord_ack_budget, clock
        )
        self.run_timer_loop, self.timer_poll, self.clock = run_timer_loop, timer_poll, clock
        self.deliveries = deliveries
        self.launches_activity = activity
        self.stop_timeout = stop_timeout  # STOP_TIMEOUT: seconds what is queued gets to go out when stopping
        self._stop_timers = asyncio.Event()
        self._timers: asyncio.Task[None] | None = None

    async def setup_hook(self) -> None:
        await install(self.tree)
        self.add_dynamic_items(ServiceButton, CardSelect, DirectMessageToggle, ActivityButton)
        if self.run_timer_loop:
            self._timers = asyncio.create_task(
                run_own_timers(
                    self.service,
                    self._stop_timers,
                    self.deliver_due,
                    self.timer_poll,
                    self.clock,
                    platforms=[self.platform],  # only Discord's deadlines: others belong to other adapters
                )
            )
        elif self.deliveries is not None:
            self.deliveries.join(self)
        if self.settings.discord_sync:
            await self.sync_commands(self.settings.discord_sync_guild)

    async def sync_commands(self, guild_id: int | None = None) -> list[app_commands.AppCommand]:
        """Upload ``/durak`` globally (up to an hour to appear everywhere) or to one guild (at once). With the
        Activity, the global upload holds its Entry Point command too: a bulk overwrite without it would
        delete it (Entry Point commands are global only)."""
        if guild_id is None and self.launches_activity and self.application_id is not None:
            translator = self.tree.translator
            payload = [
                await command.get_translated_payload(self.tree, translator)
                if translator
                else command.to_dict(self.tree)
                for command in self.tree.get_commands()
            ]
            data = await self.http.bulk_upsert_global_commands(
                self.application_id, payload=[*payload, entry_point_command()]
            )
            synced = [app_commands.AppCommand(data=d, state=self._connection) for d in data]
        elif guild_id is None:
            synced = await self.tree.sync()
        else:
            guild = discord.Object(id=guild_id)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
        log.info("synced %d commands %s", len(synced), f"to guild {guild_id}" if guild_id else "globally")
        return synced

    async def deliver_due(self, due: TimerDue, effects: list[Effect]) -> None:
        """A turn deadline's effects (AI moves, timeouts, reminders), shown like any other."""
        if due.platform == self.platform:
            await self.delivery.deliver(effects)

    async def on_message(self, message: discord.Message) -> None:
        """A message in one of our guilds' channels: counted, never read (`Chatter`)."""
        if message.guild is not None and not message.flags.ephemeral:
            self.delivery.chatter.saw(str(message.channel.id), message.id)

    def connected(self) -> str | None:
        """None while the gateway session is up (for ``/readyz``, `bot.runtime.health`)."""
        if self.is_closed():
            return "the gateway connection is closed"
        return None if self.is_ready() else "the gateway is not ready yet"

    async def on_ready(self) -> None:
        log.info("connected as %s, shards %s of %s", self.user, self.shard_ids, self.shard_count)

    async def close(self) -> None:
        if self.deliveries is not None:
            self.deliveries.leave(self)
        self._stop_timers.set()
        if self._timers is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._timers, timeout=5)
        with contextlib.suppress(TimeoutError):
            await self.delivery.settled(timeout=self.stop_timeout)
        await self.delivery.marks.close()  # what was delivered, for the next process (bot/outbox.py)
        await super().close()


async def run_discord(
    config: BotConfig,
    service: GameService,
    store: MessageMemory,
    deliveries: Deliveries | None = None,
    *,
    live: object = None,
    readiness: object = None,
) -> None:
    """`durak-bot run`: serve Discord with ``config.discord_token`` until the process is stopped; join the
    process's turn-timer ``deliveries``, or without them run a timer loop of its own. With DISCORD_ACTIVITY=on
    the Activity's page is served on DISCORD_ACTIVITY_PORT (``live``: the Redis client its live updates and
    presence use). ``readiness`` is not Discord's to answer: it holds no PORT. The `bot.adapter.RunPlatform`
    of Discord."""
    token = config.discord_token
    if not token:
        raise ValueError("DISCORD_TOKEN is not set")
    client = DurakDiscordClient(
        service,
        store,
        run_timer_loop=deliveries is None,
        deliveries=deliveries,
        activity=config.discord_activity_on,
        stop_timeout=config.stop_timeout,
    )

    async def deliver_pressed(platform: str, chat_id: str, effects: list[Effect]) -> None:
        if deliveries is not None:
            await deliveries.deliver(platform, chat_id, effects)
        else:
            await client.delivery.deliver(effects)

    pages = discord_pages(config, service, live, deliver_pressed)  # DISCORD_ACTIVITY=on: the Activity's page
    async with client:
        if pages is not None:
            pages.resume_when_closed(deliveries if deliveries is not None else client.deliver_due)
            await pages.serve(config.listen_address, config.discord_activity_port)
        try:
            await client.start(token)
        finally:
            if pages is not None:
                await pages.stop()
