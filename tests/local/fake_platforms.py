"""Stand-ins for adapters.telegram.app / adapters.discord.app: they record how `durak-bot run` starts them."""

from __future__ import annotations

from typing import Any

from bot.effects import Effect
from bot.inputs import TimerDue
from bot.timers import Deliveries

started: list[tuple[str, Any, Any, Any, Deliveries]] = []


async def deliver(due: TimerDue, effects: list[Effect]) -> None:
    pass


async def run_telegram(
    config: Any, service: Any, store: Any, deliveries: Deliveries, *, live: Any = None, readiness: Any = None
) -> None:
    deliveries.register("tg", deliver)
    await store.ping()
    started.append(("telegram", config, service, store, deliveries))


def run_discord(
    config: Any, service: Any, store: Any, deliveries: Deliveries, *, live: Any = None, readiness: Any = None
) -> None:
    started.append(("discord", config, service, store, deliveries))
