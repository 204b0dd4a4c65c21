"""A Telegram bot process for the webhook test and bench/telegram_scale.py: `TelegramBot` serving its
webhook (and, metrics on, its ``/metrics``; with a Mini App URL, the app's pages) on its own port, with its
own `GameService` and timer loop on the shared Redis, talking to the fake Bot API. Runs until terminated."""

from __future__ import annotations

import asyncio
from functools import partial
from typing import Any

from adapters.telegram.app import TelegramBot
from bot.context import ServiceConfig
from bot.runtime import metrics
from bot.runtime.config import BotConfig
from bot.service import GameService
from storage.connect import client_for_url
from storage.presence import open_pages
from storage.store import RedisGameStore
from tests.fakes.telegram_model import SHARED_EPOCH, Clock

SPEED = 1000  # the fake's virtual seconds per real second; the bot's pacing runs on the same scale
WEBAPP_NAME = "table"


async def serve(
    api_url: str,
    token: str,
    redis_url: str,
    port: int,
    hook_url: str,
    secret: str,
    speed: float = SPEED,
    webapp_url: str | None = None,
) -> None:
    store = RedisGameStore(client_for_url(redis_url))
    apps = frozenset({"tg"}) if webapp_url else frozenset()
    service = GameService(
        store,
        ServiceConfig(ai_delay=0, app_platforms=apps),
        on_app=partial(open_pages, store.redis),  # as `durak-bot run` wires it
        metrics=metrics.PrometheusMetrics(),  # as `durak-bot run` does with METRICS=on; this process's own
    )
    config = BotConfig(
        _env_file=None,  # type: ignore[call-arg]
        telegram_token=token, telegram_api_url=api_url, webhook_url=hook_url, port=port,
        webhook_secret=secret, webapp_url=webapp_url, webapp_name=WEBAPP_NAME if webapp_url else None,
    )  # fmt: skip
    bot = TelegramBot(config, service, store, clock=Clock(speed=speed, epoch=SHARED_EPOCH), live=store.redis)
    await bot.start(webhook=True, listen="127.0.0.1", own_timer_loop=True, timer_poll=0.05)
    await asyncio.Event().wait()


def main(*args: Any) -> None:
    """`serve`'s arguments, in a process of its own."""
    asyncio.run(serve(*args))
