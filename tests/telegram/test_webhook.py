"""Our webhook server (adapters/telegram/webhook.py): Telegram's POSTs with the secret only, and the
Prometheus page on the same port; every Bot API call, 429s included, counted by method and status."""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import aiohttp
import pytest

from bot.effects import Notice
from bot.render.text import line, message
from bot.runtime import metrics
from tests.fakes.telegram_api import FakeTelegram
from tests.fakes.telegram_model import FakeUser
from tests.prometheus import Samples, prometheus, scrape, value  # noqa: F401  (the fixture)
from tests.telegram.world import World


def help_update(update_id: int, user: FakeUser) -> dict[str, object]:
    return {"update_id": update_id, "message": {"message_id": update_id, "date": 0,
            "chat": {"id": user.id, "type": "private"}, "from": user.to_json(), "text": "/help",
            "entities": [{"type": "bot_command", "offset": 0, "length": 5}]}}  # fmt: skip


async def post(url: str, body: bytes, headers: dict[str, str]) -> int:
    async with (
        aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=5)) as session,
        session.post(url, data=body, headers=headers) as response,
    ):
        return response.status


async def started_webhook(world_factory: Callable[..., World], **options: object) -> World:
    world = world_factory(webhook=True, **options)
    await world.start()
    return world


async def test_a_forged_update_is_refused_with_403_and_the_same_update_with_the_secret_is_handled(
    world_factory: Callable[..., World],
) -> None:
    world = await started_webhook(world_factory)
    ann = world.person("Ann")
    await world.settle()
    forged, before = help_update(900, ann), len(world.fake.bot_messages(ann))
    assert await world.fake.post_to_webhook(forged, secret_token="test-secret_2") == 403
    assert await world.fake.post_to_webhook(forged, secret_token=None) == 403
    assert await world.fake.post_to_webhook(forged, secret_token="test-secret_") == 403, "a prefix is wrong"
    assert 900 not in world.handled and len(world.fake.bot_messages(ann)) == before
    assert await world.fake.post_to_webhook(forged) == 200  # the secret set with setWebhook
    deadline = time.monotonic() + 5
    while 900 not in world.handled:
        assert time.monotonic() < deadline, "the update with the right secret was not handled"
        await asyncio.sleep(0.01)
    await world.bot.delivery.wait_idle(5)
    assert len(world.fake.bot_messages(ann)) == before + 1, "/help was answered"


async def test_a_body_that_is_no_update_gets_400_and_a_form_post_403(
    world_factory: Callable[..., World],
) -> None:
    world = await started_webhook(world_factory)
    url = world.config.webhook_url or ""
    secret = {"X-Telegram-Bot-Api-Secret-Token": "test-secret_1"}
    assert await post(url, b"[1, 2]", secret | {"Content-Type": "application/json"}) == 400
    assert await post(url, b"{not json", secret | {"Content-Type": "application/json"}) == 400
    assert await post(url, b'{"update_id": 5}', secret | {"Content-Type": "text/plain"}) == 403
    assert not world.handled


async def test_metrics_are_served_on_the_webhook_port_and_count_the_move_and_the_api_calls(
    prometheus: metrics.PrometheusMetrics,  # noqa: F811
    world_factory: Callable[..., World],
) -> None:
    world = await started_webhook(world_factory, metrics=prometheus)
    ann, bob = world.person("Ann"), world.person("Bob")
    group = world.fake.add_group("Club", [ann, bob], owner=ann)
    await world.settle()
    await world.say(group, ann, "/newgame")
    lobby = world.newest(group, "New game")
    await world.tap(group, lobby, bob, "Join")
    status, samples = await scrape(f"http://127.0.0.1:{world.config.port}/metrics")
    assert status == 200
    assert value(samples, "durak_actions_total", platform="tg", kind="command") == 1
    assert value(samples, "durak_actions_total", platform="tg", kind="press") == 1
    assert value(samples, "durak_action_seconds_count", platform="tg") == 2
    assert_every_call_counted(world, samples)
    assert api_calls(samples, "setWebhook", "200") == 1


async def test_every_bot_api_call_and_each_429_is_counted_by_method_and_status(
    prometheus: metrics.PrometheusMetrics,  # noqa: F811
    world_factory: Callable[..., World],
) -> None:
    world = await started_webhook(world_factory, metrics=prometheus)
    ann = world.person("Ann")
    group = world.fake.add_group("Club", [ann], owner=ann)
    await world.settle()
    world.fake.limits.group_per_window = 3  # Telegram answers the fourth message of the minute with 429
    world.bot.delivery.submit([Notice(str(group.id), message([line(f"notice {n}")])) for n in range(6)])
    await world.bot.delivery.wait_idle(10)
    assert len(world.fake.bot_messages(group)) == 6, "every notice arrived after the pauses"
    _, samples = await scrape(f"http://127.0.0.1:{world.config.port}/metrics")
    refused = len(world.fake.rate_limited)
    assert refused >= 1
    assert value(samples, "durak_platform_api_429_total", platform="tg") == refused
    assert api_calls(samples, "sendMessage", "429") == refused
    assert_every_call_counted(world, samples)


async def test_the_webhook_port_answers_404_for_metrics_while_they_are_off(
    world_factory: Callable[..., World],
) -> None:
    world = await started_webhook(world_factory)  # no metrics given: the service counts nothing
    assert type(world.service.metrics) is metrics.Metrics
    status, _ = await scrape(f"http://127.0.0.1:{world.config.port}/metrics")
    assert status == 404


def api_calls(samples: Samples, method: str, status: str) -> float:
    return value(samples, "durak_platform_api_calls_total", platform="tg", method=method, status=status)


def assert_every_call_counted(world: World, samples: Samples) -> None:
    """What the fake Bot API answered, call by call, equals what the bot counted."""
    answered = Counter((record.method, str(record.status)) for record in world.fake.call_log)
    counted = {
        (labels["method"], labels["status"]): int(count)
        for (name, pairs), count in samples.items()
        if name == "durak_platform_api_calls_total" and (labels := dict(pairs))["platform"] == "tg"
    }
    assert counted == dict(answered)


async def test_long_polling_counts_its_get_updates_calls_too(
    prometheus: metrics.PrometheusMetrics,  # noqa: F811
    world_factory: Callable[..., World],
) -> None:
    world = world_factory(metrics=prometheus)
    await world.start()
    ann = world.person("Ann")
    await world.say(ann, ann, "/help")
    sample = prometheus.registry.get_sample_value
    labels = {"platform": "tg", "method": "getUpdates", "status": "200"}
    assert (sample("durak_platform_api_calls_total", labels) or 0) >= 1
    assert sample("durak_platform_api_calls_total", labels | {"method": "sendMessage"}) == 2, "welcome, help"


async def test_the_bot_token_never_reaches_the_logs(world_factory: Callable[..., World]) -> None:
    """httpx logs each request's URL at INFO, and a Bot API URL contains the token."""
    import io
    import logging

    from bot.runtime.logs import configure

    root = logging.getLogger()
    saved = (root.handlers[:], root.level, logging.getLogger("httpx").level)
    configure("INFO", "json")
    stream = io.StringIO()
    root.handlers[0].setStream(stream)  # type: ignore[attr-defined]
    try:
        world = await started_webhook(world_factory)
        await world.bot.application.bot.get_me()
        assert "webhook" in stream.getvalue(), "the bot logged its start at INFO"
        assert world.fake.token not in stream.getvalue()
    finally:
        root.handlers[:], root.level = saved[0], saved[1]
        logging.getLogger("httpx").setLevel(saved[2])


async def test_durak_bot_run_webhook_serves_telegram_by_webhook(
    telegram_api: FakeTelegram,
    fake_redis: object,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`durak-bot run --webhook` (cli/main.py) hands webhook mode to the Telegram adapter: it registers its
    webhook with the secret, never long-polls, and answers the updates POSTed to its port."""
    import gc

    from bot.runtime.config import BotConfig
    from cli import main as cli
    from storage.store import RedisGameStore
    from tests.telegram.world import free_port

    async def fake_store(redis_url: str | None, data_dir: object) -> tuple[RedisGameStore, Callable[[], Any]]:
        async def close() -> None:
            pass

        return RedisGameStore(fake_redis), close

    monkeypatch.setattr(cli, "open_store_or_explain", fake_store)
    port = free_port()
    config = BotConfig(  # type: ignore[call-arg]
        _env_file=None,
        telegram_token=telegram_api.token,
        telegram_api_url=telegram_api.base_url,
        discord_token=None,
        webhook_url=f"https://127.0.0.1:{port}/telegram-hook",  # TLS ends in front of the bot
        port=port,
        webhook_secret="run-secret",
        ai_workers=1,
    )
    ann = telegram_api.add_user("Ann")
    telegram_api.user_starts(ann)
    thresholds = gc.get_threshold()
    serving = asyncio.create_task(cli.run(config, cli.parser().parse_args(["run", "--webhook"])))
    try:
        await telegram_api.wait_until(lambda: telegram_api.webhook is not None, timeout=30)
        assert telegram_api.webhook is not None and telegram_api.webhook["secret_token"] == "run-secret"
        hook = f"http://127.0.0.1:{port}/telegram-hook"
        secret = {"X-Telegram-Bot-Api-Secret-Token": "run-secret", "Content-Type": "application/json"}
        assert await post(hook, json.dumps(help_update(700, ann)).encode(), secret) == 200
        await telegram_api.wait_until(
            lambda: len(telegram_api.bot_messages(ann.id)) == 1, what="/help answered"
        )
        assert not [call for call in telegram_api.call_log if call.method == "getUpdates"], "no long polling"
    finally:
        serving.cancel()
        code = await serving
        gc.unfreeze()  # `run` tunes the collector for a long-lived process: give the test process its own back
        gc.set_threshold(*thresholds)
    assert code == 0
