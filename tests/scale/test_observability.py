"""One structured log line per applied input, and the Prometheus numbers, from the service itself."""

from __future__ import annotations

import json
import logging
import socket
import urllib.request

import pytest

from bot.runtime import metrics
from bot.runtime.logs import JsonFormatter, PlainFormatter
from bot.runtime.ratelimit import PressLimiter
from bot.service import GameService
from storage.store import RedisGameStore
from tests.bot.conftest import ANN, BOB
from tests.bot.harness import Harness
from tests.prometheus import prometheus  # noqa: F401  (the fixture)


async def start_a_game(harness: Harness) -> None:
    await harness.command(ANN, "newgame")
    await harness.tap(BOB, "Join")
    await harness.tap(ANN, "Start")


async def test_each_applied_input_logs_one_line_with_chat_game_version_action_and_latency(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="durak.actions"):
        await start_a_game(harness)
        await harness.press(BOB, "-100|nope|0|J")  # refused: no line
    lines = [json.loads(JsonFormatter().format(r)) for r in caplog.records if r.name == "durak.actions"]
    assert [line["action"] for line in lines] == ["/newgame", "J", "S"]
    assert [line["version"] for line in lines] == [1, 2, 3]
    assert {line["platform"] for line in lines} == {"tg"} and {line["chat"] for line in lines} == {"-100"}
    assert lines[0]["game"] == lines[1]["game"] != lines[2]["game"], "the lobby's id, then the game's"
    assert all(line["ms"] >= 0 and line["level"] == "INFO" for line in lines)
    plain = PlainFormatter("%(message)s").format(caplog.records[-1])
    assert plain.startswith("applied platform=tg chat=-100 game=") and " action=S " in plain


async def test_metrics_count_applied_inputs_refusals_and_serve_them_over_http(
    fake_redis: object,
    prometheus: metrics.PrometheusMetrics,  # noqa: F811
) -> None:
    harness = Harness(RedisGameStore(fake_redis))  # type: ignore[arg-type]
    harness.service = GameService(
        harness.service.store, harness.service.config, clock=harness.service.clock,
        new_id=harness.service.new_id, seed_source=harness.service.seed_source,
        limiter=PressLimiter(rate=1, burst=3, clock=lambda: 0.0), metrics=prometheus,
    )  # fmt: skip
    await start_a_game(harness)
    for _ in range(4):
        await harness.press(BOB, "junk")  # Bob's fourth and fifth presses (Join was his first): limited
    sample = prometheus.registry.get_sample_value
    assert sample("durak_actions_total", {"platform": "tg", "kind": "command"}) == 1
    assert sample("durak_actions_total", {"platform": "tg", "kind": "press"}) == 2
    assert sample("durak_action_seconds_count", {"platform": "tg"}) == 3
    assert sample("durak_refused_total", {"platform": "tg", "reason": "rate_limited"}) == 2
    prometheus.api_call("tg", "editMessageText", 429)
    assert sample("durak_platform_api_429_total", {"platform": "tg"}) == 1
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = prometheus.serve(port, addr="127.0.0.1")
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
            text = response.read().decode()
        assert 'durak_actions_total{kind="press",platform="tg"} 2.0' in text
    finally:
        server.shutdown()


async def test_without_metrics_switched_on_nothing_is_counted(harness: Harness) -> None:
    assert type(harness.service.metrics) is metrics.Metrics
    await start_a_game(harness)  # runs with the no-op metrics
