"""`durak-bot run` builds the process's readiness and metrics and hands them to the Telegram adapter: the
webhook's port answers ``/readyz`` with every check of the process, and ``/metrics`` with the Bot API calls
the adapter made, counted on the metrics the service was built with (cli/main.py, `serve`)."""

from __future__ import annotations

import asyncio
import contextlib
import time

import aiohttp
import pytest

from adapters.telegram.app import run_telegram
from bot.runtime.config import BotConfig
from cli.main import serve
from storage.store import RedisGameStore
from tests.fakes.telegram_api import FakeTelegram
from tests.fakes.telegram_fixture import telegram_api  # noqa: F401  (the fake server)
from tests.prometheus import scrape, value
from tests.telegram.world import free_port


async def ready_checks(url: str, within: float = 20.0) -> dict[str, str]:
    """The checks ``/readyz`` names once it answers 200 (the AI workers and Telegram take a moment)."""
    deadline = time.monotonic() + within
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=2)) as session:
        while True:
            with contextlib.suppress(aiohttp.ClientError, TimeoutError):
                async with session.get(url) as answer:
                    body = await answer.json()
                    if answer.status == 200:
                        checks: dict[str, str] = body["checks"]
                        return checks
            assert time.monotonic() < deadline, f"{url} never answered ready"
            await asyncio.sleep(0.1)


async def test_the_webhook_port_answers_the_processs_readiness_and_its_metrics(
    telegram_api: FakeTelegram,  # noqa: F811
    fake_redis: object,
) -> None:
    pytest.importorskip("prometheus_client")
    port = free_port()
    config = BotConfig(
        _env_file=None,  # type: ignore[call-arg]
        telegram_token=telegram_api.token, telegram_api_url=telegram_api.base_url,
        webhook_url=f"http://127.0.0.1:{port}/telegram-hook", port=port, webhook_secret="test-secret_1",
        listen_address="127.0.0.1", metrics=True, ai_workers=1,
    )  # fmt: skip
    running = asyncio.create_task(serve(config, RedisGameStore(fake_redis), {"telegram": run_telegram}))  # type: ignore[arg-type]
    try:
        checks = await ready_checks(f"http://127.0.0.1:{port}/readyz")
        assert checks == {"redis": "ok", "telegram": "ok", "ai": "ok"}
        status, samples = await scrape(f"http://127.0.0.1:{port}/metrics")
        assert status == 200
        labels = {"platform": "tg", "method": "setWebhook", "status": "200"}
        assert value(samples, "durak_platform_api_calls_total", **labels) == 1
    finally:
        running.cancel()
        assert await running == 0, "serve returns 0 once cancelled, its platforms stopped"
