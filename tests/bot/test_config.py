"""LOG_FORMAT and METRICS_PORT are settings like the others (validated, named in errors), and the metrics
go on the Telegram webhook's port when there is one, on METRICS_PORT otherwise."""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest
from pydantic import ValidationError

from bot.runtime import metrics
from bot.runtime.config import BotConfig
from cli.main import main, start_metrics, watch_active_games
from tests.prometheus import prometheus  # noqa: F401  (the fixture)


def config(**values: object) -> BotConfig:
    return BotConfig(_env_file=None, **values)  # type: ignore[call-arg, arg-type]


@pytest.fixture
def bare_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[pytest.MonkeyPatch]:
    """No .env file and none of the bot's variables from the machine running the tests; the root logger
    as it was afterwards (`main()` configures it)."""
    monkeypatch.chdir(tmp_path)
    for name in BotConfig.model_fields:
        monkeypatch.delenv(name.upper(), raising=False)
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        yield monkeypatch
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)


def test_log_format_and_metrics_port_default_to_plain_and_9464(bare_env: pytest.MonkeyPatch) -> None:
    read = BotConfig()
    assert read.log_format == "plain" and read.metrics_port == 9464 and not read.metrics


def test_log_format_and_metrics_port_are_read_from_the_environment(bare_env: pytest.MonkeyPatch) -> None:
    bare_env.setenv("LOG_FORMAT", " JSON ")
    bare_env.setenv("METRICS_PORT", "9100")
    read = BotConfig()
    assert read.log_format == "json" and read.metrics_port == 9100


@pytest.mark.parametrize("fmt", ["xml", "", "yes"])
def test_an_unknown_log_format_is_refused_naming_the_setting_and_the_choices(fmt: str) -> None:
    with pytest.raises(ValidationError, match=r"LOG_FORMAT must be one of plain, json"):
        config(log_format=fmt)


@pytest.mark.parametrize("port", [0, 65536, -1])
def test_a_metrics_port_outside_1_to_65535_is_refused(port: int) -> None:
    with pytest.raises(ValidationError, match="metrics_port"):
        config(metrics_port=port)


def test_durak_bot_reports_a_bad_log_format_by_name_and_exits_2(
    bare_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    bare_env.setenv("LOG_FORMAT", "xml")
    assert main(["run", "--check"]) == 2
    error = capsys.readouterr().err
    assert "LOG_FORMAT" in error and "plain, json" in error and "Traceback" not in error


@pytest.mark.parametrize(
    ("webhook", "said"), [("https://bot.example.net/hook", "port 8443 (the webhook's)"), ("", "port 9100")]
)
def test_run_check_says_on_which_port_the_metrics_are(
    bare_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], webhook: str, said: str
) -> None:
    for name, value in {"METRICS": "on", "TELEGRAM_TOKEN": "1:x", "WEBHOOK_URL": webhook, "PORT": "8443",
                        "METRICS_PORT": "9100", "DATA_DIR": "data"}.items():  # fmt: skip
        bare_env.setenv(name, value)
    assert main(["run", "--check", "--offline"]) == 0
    out = capsys.readouterr().out
    assert f"Metrics: on, GET /metrics on {said}\n" in out
    assert "Redis: ok (the embedded redis-server in data)" in out


def test_metrics_go_on_the_webhook_port_only_with_metrics_on_a_telegram_token_and_a_webhook() -> None:
    hook = {"telegram_token": "1:x", "webhook_url": "https://bot.example.net/hook"}
    assert config(metrics=True, **hook).metrics_on_webhook
    assert not config(metrics=False, **hook).metrics_on_webhook
    assert not config(metrics=True, telegram_token="1:x").metrics_on_webhook, "long polling"
    assert not config(metrics=True, discord_token="d", webhook_url=hook["webhook_url"]).metrics_on_webhook


class NoRedis:
    """`watch_active_games` reads Redis; here it fails, which the watcher must shrug off."""

    @property
    def redis(self) -> object:
        raise ConnectionError("no Redis in this test")


async def test_metrics_port_is_opened_without_a_webhook_and_not_when_the_webhook_serves_them(
    prometheus: metrics.PrometheusMetrics,  # noqa: F811
) -> None:
    port = free_port()
    on_webhook = config(
        metrics=True, telegram_token="1:x", webhook_url="https://h.example/x", metrics_port=port
    )
    assert start_metrics(on_webhook, prometheus) is None
    assert not await answers(port), "METRICS_PORT stays closed: the webhook serves /metrics"
    polling = config(metrics=True, telegram_token="1:x", metrics_port=port)
    server = start_metrics(polling, prometheus)
    assert server is not None
    try:
        assert await answers(port)
    finally:
        server.shutdown()


async def test_the_active_games_watcher_shrugs_off_an_outage_and_ends_when_told(
    prometheus: metrics.PrometheusMetrics,  # noqa: F811
) -> None:
    stop = asyncio.Event()
    watcher = watch_active_games(config(metrics=True, telegram_token="1:x"), prometheus, NoRedis(), stop)  # type: ignore[arg-type]
    assert watcher is not None
    await asyncio.sleep(0.05)
    assert not watcher.done(), "Redis failing does not end it"
    stop.set()
    await asyncio.wait_for(watcher, timeout=5)


async def test_without_metrics_nothing_is_watched_or_served() -> None:
    from bot.runtime.metrics import Metrics

    off = config(telegram_token="1:x")
    assert watch_active_games(off, Metrics(), NoRedis(), asyncio.Event()) is None  # type: ignore[arg-type]
    assert start_metrics(off, Metrics()) is None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def answers(port: int) -> bool:
    try:
        async with (
            aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=2)) as session,
            session.get(f"http://127.0.0.1:{port}/metrics") as response,
        ):
            return response.status == 200 and "durak_actions" in await response.text()
    except aiohttp.ClientConnectionError:
        return False
