"""Optional Prometheus metrics (``METRICS=on``): applied actions, latency, errors, platform API calls.

`prometheus-client` is imported only when metrics are switched on, so the bot runs without it. A process
holds one `Metrics`, built by `durak-bot run` (cli/main.py) and handed to what counts: the service
(`GameService.metrics`, which adapters count their API calls on), the AI pool, the timer loop. Switched off
it is the base `Metrics`, whose methods do nothing, and callers never check which one they hold.

Every process serves its own numbers: on the Telegram webhook's port (``GET /metrics`` beside the webhook
path, see adapters/telegram/webhook.py) when it serves one, otherwise on ``METRICS_PORT`` (default 9464).
Prometheus sums them over processes. The adapters count every platform API call (method, HTTP status; a
429 also in `durak_platform_api_429`): adapters/telegram/request.py, adapters/discord/tracing.py.
`active_games` is read from Redis (running games with an armed deadline, the same number in every process):
take ``max`` over processes, not the sum.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

log = logging.getLogger("durak.metrics")


class Metrics:
    """What a process counts. This base counts nothing (metrics switched off): every call is a no-op."""

    def applied(self, platform: str, kind: str, seconds: float) -> None: ...

    def refused(self, platform: str, reason: str) -> None: ...

    def error(self, where: str) -> None: ...

    def api_call(self, platform: str, method: str, status: int | str = "ok") -> None: ...

    def set_active_games(self, platform: str, count: int) -> None: ...

    def ai_decided(self, kind: str, source: str) -> None:
        """An AI move or `/hint` (``kind``) and where its answer came from (see bot/runtime/ai_pool.py)."""

    def exposition(self) -> tuple[bytes, str] | None:
        """The text a Prometheus scrape gets and its content type; None: nothing to serve."""
        return None


class PrometheusMetrics(Metrics):
    def __init__(self) -> None:
        from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

        self.registry = CollectorRegistry()
        self.actions = Counter(
            "durak_actions",
            "Inputs applied (a new state saved)",
            ["platform", "kind"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "durak_action_seconds", "Input to effects, applied inputs", ["platform"], registry=self.registry,
            buckets=(0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
        )  # fmt: skip
        self.refusals = Counter(
            "durak_refused",
            "Inputs answered without a change",
            ["platform", "reason"],
            registry=self.registry,
        )
        self.errors = Counter("durak_errors", "Unexpected errors", ["where"], registry=self.registry)
        self.api_calls = Counter(
            "durak_platform_api_calls", "Calls to the Telegram/Discord API", ["platform", "method", "status"],
            registry=self.registry,
        )  # fmt: skip
        self.api_429 = Counter(
            "durak_platform_api_429",
            "Calls the platform refused with 429",
            ["platform"],
            registry=self.registry,
        )
        self.active = Gauge(
            "durak_active_games", "Running games with an armed deadline (from Redis)", ["platform"],
            registry=self.registry,
        )  # fmt: skip
        self.ai_decisions = Counter(
            "durak_ai_decisions", "AI moves and hints by source: pool, here (cheap levels), or why not "
            "(saturated, late, failed: the normal level's move instead)", ["kind", "source"],
            registry=self.registry,
        )  # fmt: skip

    def applied(self, platform: str, kind: str, seconds: float) -> None:
        self.actions.labels(platform, kind).inc()
        self.latency.labels(platform).observe(seconds)

    def refused(self, platform: str, reason: str) -> None:
        self.refusals.labels(platform, reason).inc()

    def error(self, where: str) -> None:
        self.errors.labels(where).inc()

    def api_call(self, platform: str, method: str, status: int | str = "ok") -> None:
        self.api_calls.labels(platform, method, str(status)).inc()
        if str(status) == "429":
            self.api_429.labels(platform).inc()

    def set_active_games(self, platform: str, count: int) -> None:
        self.active.labels(platform).set(count)

    def ai_decided(self, kind: str, source: str) -> None:
        self.ai_decisions.labels(kind, source).inc()

    def exposition(self) -> tuple[bytes, str] | None:
        from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

        return generate_latest(self.registry), CONTENT_TYPE_LATEST

    def serve(self, port: int, addr: str = "0.0.0.0") -> Any:
        """Serve ``/metrics`` over HTTP from a thread; returns the server (``.shutdown()`` stops it)."""
        from prometheus_client import start_http_server

        server, _thread = start_http_server(port, addr=addr, registry=self.registry)
        log.info("metrics on http://%s:%d/metrics", addr, port)
        return server


async def watch_active_games(
    metrics: Metrics, store: Any, platforms: list[str], stop: asyncio.Event, every: float = 15.0
) -> None:
    """Every ``every`` seconds, set `durak_active_games` from the size of each platform's deadline index."""
    from storage.keys import timers_key

    while not stop.is_set():
        for platform in platforms:
            with contextlib.suppress(Exception):  # an outage shows in the error and refusal counters
                metrics.set_active_games(platform, int(await store.redis.zcard(timers_key(platform))))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), timeout=every)
