"""Wiring, in one place: the PTB `Application`, the handlers, the delivery queue, commands and transport.

Nothing happens at import time. `durak-bot run` calls `run_telegram(config, service, store, deliveries)`; it
registers this adapter's delivery with the process's turn-timer loop (`bot.timers.Deliveries`), so deadlines'
effects go through the same paced queue as everything else. Long polling by default; with ``WEBHOOK_URL`` set,
Telegram calls us instead (our own server, adapters/telegram/webhook.py, which also serves ``/metrics``)
and every request must carry the secret token (``WEBHOOK_SECRET``, or a random one chosen at start).
Every Bot API call is counted in the metrics by the transport (adapters/telegram/request.py).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import secrets
import time
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urlsplit

from telegram import BotCommand
from telegram.error import NetworkError
from telegram.ext import Application, ApplicationBuilder

from adapters.telegram.delivery import Delivery
from adapters.telegram.handlers import Handlers
from adapters.telegram.membership import Membership
from adapters.telegram.memory import PLATFORM, ChatMemory, ref
from adapters.telegram.miniapp import MiniApp
from adapters.telegram.pacing import Clock, Limits, Pacer
from adapters.telegram.request import CountingRequest
from adapters.telegram.shared_pacing import SharedPacer
from adapters.telegram.webhook import WebhookServer
from adapters.web.telegram_pages import TelegramPages, telegram_pages
from bot.adapter import (
    TRANSLATED,
    BotConfig,
    Deliveries,
    Effect,
    GameService,
    MessageMemory,
    Place,
    Readiness,
    RedisGameStore,
    TimerDue,
    keep_secret,
    offered_in,
    run_own_timers,
    translator,
)

log = logging.getLogger("durak.telegram")

START_RETRY_DELAYS = (1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0)  # seconds between tries; the last one repeats
STOP_DRAIN = 10.0  # seconds queued messages get to go out when the bot stops (STOP_TIMEOUT)

ALLOWED_UPDATES = ["message", "callback_query"]
COMMAND_LANGUAGES = ("", *TRANSLATED)  # "" is every other language: English


async def connected(application: Application, delays: Sequence[float]) -> None:  # type: ignore[type-arg]
    """Initialise the application (its getMe), trying again while Telegram cannot be reached.

    A network error or a 5xx at start-up is an outage like one later on: it is waited out with one log line
    a try, never ended with a traceback. A refused token raises at once (`durak-bot run` names the
    setting)."""
    for attempt in itertools.count():
        try:
            await application.initialize()
            return
        except NetworkError as error:
            delay = delays[min(attempt, len(delays) - 1)]
            log.warning("Telegram cannot be reached (%s); trying again in %g s", error, delay)
            await asyncio.sleep(delay)


def bot_commands(lang: str) -> list[BotCommand]:
    """The command menu: the table's Telegram commands, described by their /help lines (one translation)."""
    tr = translator(lang or "en")
    return [BotCommand(spec.name, tr.declared(spec.help)) for spec in offered_in(Place.TELEGRAM)]


class TelegramBot:
    """One bot: its PTB application and our delivery queue, started and stopped together. The Telegram
    `bot.adapter.Adapter`."""

    platform = PLATFORM

    def __init__(
        self,
        config: BotConfig,
        service: GameService,
        store: MessageMemory,
        clock: Clock | None = None,
        limits: Limits | None = None,
        deliveries: Deliveries | None = None,
        live: Any = None,
        pacer: Pacer | None = None,
        readiness: Readiness | None = None,
    ) -> None:
        """``deliveries``: the process's turn-timer routes (`durak-bot run`), joined at `start` unless this
        bot runs a timer loop of its own. ``live``: the Redis client the Mini App's pages follow saved changes
        on (needed only when WEBAPP_URL is set). ``pacer``: Telegram's limits; by default shared through Redis
        with every process serving the token (`shared_pacing.py`) when the store is Redis, else this
        process's own. ``readiness``: the process's checks, answered on PORT when this bot's server holds
        it (the webhook's, or the pages' in long polling)."""
        if not config.telegram_token:
            raise ValueError("TELEGRAM_TOKEN is not set")
        self.config, self.service, self.store, self.live = config, service, store, live
        self.readiness = readiness or Readiness()
        self.start_retry_delays: Sequence[float] = START_RETRY_DELAYS
        api = config.telegram_api_url.rstrip("/")
        self.application: Application = (  # type: ignore[type-arg]
            ApplicationBuilder()
            .token(config.telegram_token)
            .base_url(f"{api}/bot")
            .base_file_url(f"{api}/file/bot")
            # PTB's default pool sizes; every call counted on the service's metrics
            .request(CountingRequest(service.metrics, connection_pool_size=256))
            .get_updates_request(CountingRequest(service.metrics, connection_pool_size=1))
            .concurrent_updates(False)  # one update at a time: effects are queued in the order they happened
            .build()
        )
        self.memory = ChatMemory(store, config.telegram_cache_chats, config.telegram_cache_users)
        limits = limits or Limits(table_every=config.telegram_table_every)
        if pacer is None and isinstance(store, RedisGameStore):
            pacer = SharedPacer(store, limits, clock)
        self.delivery = Delivery(
            self.application.bot,
            self.memory,
            clock,
            limits,
            texts=config.telegram_cache_chats,
            repost_after=config.telegram_repost_after,
            pacer=pacer,
            migrate=self.chat_migrated,
            private_closed=self.private_closed,
            mini_app=MiniApp(config.webapp_url, config.webapp_name)
            if config.webapp_on and config.webapp_url and config.webapp_name
            else None,
        )
        self.membership = Membership(self.application.bot)  # who administers a group, who may join its games
        self.handlers = Handlers(service, store, self.memory, self.delivery, self.membership)
        self.handlers.register(self.application)
        self.application.bot_data["durak"] = self
        self._stop_timers = asyncio.Event()
        self._timers: asyncio.Task[None] | None = None
        self._stopping = False
        self.deliveries = deliveries
        self.webhook_secret = ""
        self.webhook: WebhookServer | None = None
        self.pages: TelegramPages | None = None  # the Mini App's pages (adapters/web), from `start`

    async def chat_migrated(self, old: str, new: str) -> None:
        """A send found a group moved to a supergroup (Telegram's answer names the new id)."""
        await self.handlers.migrate(old, new)

    async def private_closed(self, group: str, user_id: str) -> None:
        """Telegram refused a private message to a person (they never opened the chat with the bot)."""
        self.delivery.submit(await self.service.private_chat(ref(group), user_id, is_open=False))

    async def deliver_pressed(self, platform: str, chat_id: str, effects: list[Effect]) -> None:
        """The effects of a press made on a Mini App page: through the process's route for the chat's
        platform (`Deliveries.deliver`), or this bot's own queue when it runs alone."""
        if self.deliveries is not None:
            await self.deliveries.deliver(platform, chat_id, effects)
        elif platform == self.platform:
            self.delivery.submit(effects)

    async def deliver_due(self, due: TimerDue, effects: list[Effect]) -> None:
        """A turn deadline's (or the start-up catch-up's) effects, queued like those of an update."""
        self.delivery.submit(effects)

    async def start(
        self,
        webhook: bool | None = None,
        listen: str | None = None,
        own_timer_loop: bool = False,
        timer_poll: float = 0.25,
        timer_clock: Callable[[], float] = time.time,
    ) -> None:
        """Connect (getMe), publish the command menu, then poll or serve the webhook.

        ``own_timer_loop``: run a turn-timer loop here (tests, or a process serving only Telegram without
        `cli.main`); otherwise register with the process's loop."""
        application = self.application
        listen = listen or self.config.listen_address  # LISTEN_ADDRESS, for the webhook's and the pages' port
        await connected(application, self.start_retry_delays)
        await self.publish_commands()
        await application.start()
        assert application.updater is not None
        self.pages = telegram_pages(  # WEBAPP_URL: the pages
            self.config, self.service, self.live, self.deliver_pressed, self.membership.is_member
        )
        if self.pages is not None:
            self.pages.resume_when_closed(
                self.deliveries if self.deliveries is not None else self.deliver_due
            )
        if webhook is None:  # `durak-bot run --webhook` sets telegram_webhook; WEBHOOK_URL alone is enough
            webhook = self.config.telegram_webhook or bool(self.config.webhook_url)
        if webhook:
            url = self.config.webhook_url or ""
            self.webhook_secret = self.config.webhook_secret or secrets.token_urlsafe(32)
            keep_secret(self.webhook_secret)  # a random one is no setting the log already masks
            self.webhook = WebhookServer(
                application,
                urlsplit(url).path,
                self.webhook_secret,
                listen,
                self.config.port,
                mount=self.pages.mount if self.pages is not None else None,
                readiness=self.readiness,
                metrics=self.service.metrics,
            )
            await self.webhook.start(url, ALLOWED_UPDATES)
        else:
            await application.updater.start_polling(allowed_updates=ALLOWED_UPDATES)
            if self.pages is not None:  # no webhook server holds PORT: the pages get a server of their own
                await self.pages.serve(listen, self.config.port, self.readiness)
            log.info("Telegram: long polling as @%s", application.bot.username)
        if own_timer_loop:
            self._timers = asyncio.create_task(
                run_own_timers(
                    self.service,
                    self._stop_timers,
                    self.deliver_due,
                    poll=timer_poll,
                    clock=timer_clock,
                    platforms=[self.platform],  # only Telegram's deadlines: others belong to other adapters
                )
            )
        elif self.deliveries is not None:
            self.deliveries.join(self)

    async def publish_commands(self) -> None:
        for lang in COMMAND_LANGUAGES:
            await self.application.bot.set_my_commands(bot_commands(lang), language_code=lang or None)

    def connected(self) -> str | None:
        """None while this bot takes updates (the application runs; it long-polls, or its webhook server
        listens); else what is wrong, for ``/readyz`` (`bot.runtime.health`)."""
        if self._stopping:
            return "stopping"
        if not self.application.running:
            return "the application is not running"
        if self.webhook is not None:
            return None if self.webhook.listening else "the webhook server is not listening"
        updater = self.application.updater
        return None if updater is not None and updater.running else "not polling Telegram"

    async def stop(self, drain: float = STOP_DRAIN) -> None:
        """Stop in the order that loses nothing: take no new update (the webhook server stops listening,
        so Telegram retries it elsewhere or later; the long poll ends, and what it did not fetch waits at
        Telegram), work off the updates already received, stop claiming deadlines, then send what is queued
        for up to ``drain`` seconds and record what was delivered (a later process re-sends the rest,
        `bot.game.catch_up`)."""
        application = self.application
        self._stopping = True
        queued = self.delivery.unsent
        log.info("Telegram: stopping, %d messages queued", queued, extra={"fields": {"queued": queued}})
        if self.webhook is not None:
            await self.webhook.stop()
        if self.pages is not None:
            await self.pages.stop()
        if application.updater is not None and application.updater.running:
            await application.updater.stop()
        if application.running:
            await application.stop()  # PTB handles the updates already queued first
        if self.deliveries is not None:
            self.deliveries.leave(self)
        self._stop_timers.set()
        if self._timers is not None:
            await asyncio.wait_for(self._timers, timeout=5)
        await self.delivery.close(drain)
        await application.shutdown()


def build_application(config: BotConfig, service: GameService, store: MessageMemory) -> Application:  # type: ignore[type-arg]
    """The configured PTB application (handlers registered); its `bot_data["durak"]` is the `TelegramBot`."""
    return TelegramBot(config, service, store).application


async def run_telegram(
    config: BotConfig,
    service: GameService,
    store: MessageMemory,
    deliveries: Deliveries | None = None,
    webhook: bool | None = None,
    *,
    live: Any = None,
    readiness: Readiness | None = None,
) -> None:
    """Serve Telegram until cancelled (`cli.main` cancels on Ctrl-C and SIGTERM), then stop cleanly: no
    new update is taken, those received are handled, queued messages get STOP_TIMEOUT seconds to go out
    (`TelegramBot.stop`). ``deliveries``: the process's turn-timer routes to join; without them this bot
    runs its own timer loop. ``webhook``: None means "when WEBHOOK_URL is set, or ``config.telegram_webhook``"
    (`durak-bot run --webhook`); False forces long polling. ``live``: the Redis client of the Mini App's live
    updates, and ``readiness`` the process's checks, from `durak-bot run`. The `bot.adapter.RunPlatform` of
    Telegram."""
    bot = TelegramBot(config, service, store, deliveries=deliveries, live=live, readiness=readiness)
    await bot.start(webhook=webhook, own_timer_loop=deliveries is None)
    try:
        await asyncio.Event().wait()
    finally:
        await bot.stop(config.stop_timeout)
