"""The bot's own ports listen where LISTEN_ADDRESS says, and only on this host's loopback unless told otherwise:
a bot behind a reverse proxy on the same host must not also answer the internet on PORT, METRICS_PORT or
DISCORD_ACTIVITY_PORT (seen on main: every interface, with no setting). The image sets 0.0.0.0, because Caddy
reaches it from another container."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest

from bot.runtime import health
from bot.runtime.config import BotConfig
from bot.runtime.health import probe_host
from tests.scale.cluster import free_port

REPO = Path(__file__).resolve().parents[2]


class Answers:
    async def ping(self) -> bool:
        return True

    def alive(self) -> str | None:
        return None

    adapters: dict[str, Any] = {}


def config(**settings: Any) -> BotConfig:
    return BotConfig(_env_file=None, port=free_port(), **settings)  # type: ignore[call-arg]


async def listening_on(settings: BotConfig) -> list[str]:
    readiness = health.process_readiness(Answers(), Answers(), Answers(), [])  # type: ignore[arg-type]
    runner = await health.start(settings, readiness, [])
    assert runner is not None
    try:
        return sorted({str(address[0]) for address in runner.addresses})
    finally:
        await runner.cleanup()


async def test_the_health_port_listens_on_loopback_by_default() -> None:
    assert await listening_on(config()) == ["127.0.0.1"]


async def test_listen_address_opens_the_health_port_on_every_interface() -> None:
    assert await listening_on(config(listen_address="0.0.0.0")) == ["0.0.0.0"]


async def test_the_metrics_port_listens_on_loopback_by_default() -> None:
    pytest.importorskip("prometheus_client")
    from cli.main import process_metrics, start_metrics

    stop = asyncio.Event()
    settings = config(metrics=True, metrics_port=free_port())
    server = start_metrics(settings, process_metrics(settings))
    assert server is not None
    try:
        assert server.server_address[0] == "127.0.0.1"  # type: ignore[attr-defined]
    finally:
        server.shutdown()
        stop.set()


def test_the_image_listens_on_every_interface_for_the_proxy_in_the_next_container() -> None:
    dockerfile = (REPO / "Dockerfile").read_text()
    assert re.search(r"LISTEN_ADDRESS=0\.0\.0\.0", dockerfile)


@pytest.mark.parametrize(
    ("listen", "probed"),
    [("127.0.0.1", "127.0.0.1"), ("0.0.0.0", "127.0.0.1"), ("::", "127.0.0.1"), ("::1", "[::1]")],
)
def test_durak_bot_health_asks_where_the_bot_listens(listen: str, probed: str) -> None:
    assert probe_host(listen) == probed
