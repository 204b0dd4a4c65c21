"""Health of a `durak-bot run` process: ``GET /healthz`` (the process is up) and ``GET /readyz`` (it can
serve: Redis answers, every configured platform is connected, the AI workers are alive).

One `Readiness` per process: `cli.main.serve` builds it with its named checks (`process_readiness`) and
hands it to the platforms, and whichever server holds the port PORT mounts its two routes
(`Readiness.routes`): the Telegram webhook's, the Mini App's pages' in long polling, or else a small server
of their own (`serve`). Each check is cheap (a Redis PING bounded by a second, flags the adapters keep), so a
container's health check or a load balancer may ask every few seconds. ``durak-bot health`` asks ``/readyz`` on 127.0.0.1:PORT (`probe`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from bot.platforms import SERVED_PLATFORMS
from bot.runtime.config import BotConfig

if TYPE_CHECKING:  # aiohttp is imported when a route is served: the terminal's game needs none of it
    from aiohttp import web

log = logging.getLogger("durak.health")

HEALTHZ = "/healthz"
READYZ = "/readyz"
CHECK_TIMEOUT = 1.0  # seconds one check may take before it counts as failed
PROBE_TIMEOUT = 3.0  # seconds `durak-bot health` waits for the answer

Check = Callable[[], Awaitable[str | None]]  # None: ok; else what is wrong, in a few words


@dataclass
class Readiness:
    """Named checks; ready when every one passes. With no check at all the process is not ready (nothing
    is served yet), and a stopping process is not ready either, so a balancer sends nothing new to it."""

    checks: dict[str, Check] = field(default_factory=dict)
    stopping: bool = False

    def add(self, name: str, check: Check) -> None:
        self.checks[name] = check

    def routes(self, app: web.Application) -> None:
        """Add ``/readyz``, and ``/healthz`` unless the app has one already (the Mini App's pages answer it
        when they are served at the root)."""
        taken = {resource.canonical for resource in app.router.resources()}
        if HEALTHZ not in taken:
            app.router.add_get(HEALTHZ, healthz)
        app.router.add_get(READYZ, self.readyz)

    async def readyz(self, request: web.Request) -> web.Response:
        from aiohttp import web

        ready, report = await self.report()
        return web.json_response({"ok": ready, "checks": report}, status=200 if ready else 503)

    async def report(self) -> tuple[bool, dict[str, str]]:
        """(ready, {check: "ok" or what is wrong}), every check run at the same time."""
        names = list(self.checks)
        results = await asyncio.gather(*(self._run(self.checks[name]) for name in names))
        report = {name: problem or "ok" for name, problem in zip(names, results, strict=True)}
        if self.stopping:
            report["process"] = "stopping"
        ready = bool(names) and all(problem is None for problem in results) and not self.stopping
        return ready, report

    async def _run(self, check: Check) -> str | None:
        try:
            return await asyncio.wait_for(check(), CHECK_TIMEOUT)
        except TimeoutError:
            return f"no answer within {CHECK_TIMEOUT:g} s"
        except Exception as error:  # a failing check is a failed check, never a 500
            return f"{type(error).__name__}: {error}"[:200]


async def healthz(request: web.Request) -> web.Response:
    from aiohttp import web

    return web.json_response({"ok": True})


async def serve(readiness: Readiness, listen: str, port: int) -> web.AppRunner:
    """The two routes on a server of their own (no webhook nor page server holds PORT)."""
    from aiohttp import web

    app = web.Application()
    readiness.routes(app)
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
    await runner.setup()
    await web.TCPSite(runner, listen, port).start()
    log.info("health: GET %s and %s on port %d", HEALTHZ, READYZ, port)
    return runner


def probe_host(listen_address: str) -> str:
    """Where `probe` finds a server listening on ``listen_address``: this host's loopback when it listens on
    every interface, else that address (an IPv6 one in brackets, as a URL wants it)."""
    if listen_address in ("0.0.0.0", "::", ""):
        return "127.0.0.1"
    return f"[{listen_address}]" if ":" in listen_address else listen_address


def probe(port: int, host: str = "127.0.0.1", timeout: float = PROBE_TIMEOUT) -> tuple[bool, str]:
    """Ask ``/readyz`` once: (ready, one line saying so or what failed). Blocking: a health command's."""
    url = f"http://{host}:{port}{READYZ}"
    try:
        with urllib.request.urlopen(url, timeout=timeout) as answer:  # noqa: S310 (a fixed http URL)
            body = answer.read()
    except urllib.error.HTTPError as error:
        body = error.read()
    except (OSError, ValueError) as error:
        return False, f"not ready: nothing answers {url} ({error})"
    try:
        data = json.loads(body)
        checks = data["checks"]
        ok = data["ok"] is True
    except (ValueError, KeyError, TypeError):
        return False, f"not ready: {url} answered something else than the bot's readiness"
    if ok:
        return True, "ready: " + ", ".join(sorted(checks))
    failing = [f"{name}: {state}" for name, state in sorted(checks.items()) if state != "ok"]
    return False, "not ready: " + "; ".join(failing or ["no checks yet"])


# ---- the checks `durak-bot run` names ------------------------------------------------------------------


class Pingable(Protocol):
    async def ping(self) -> None: ...


class Joined(Protocol):
    """The process's turn-timer routes (`bot.timers.Deliveries`): the adapters that joined, by platform."""

    @property
    def adapters(self) -> Mapping[str, object]: ...


class Pool(Protocol):
    def alive(self) -> str | None: ...


def redis_check(store: Pingable) -> Check:
    async def check() -> str | None:
        await store.ping()
        return None

    return check


def platform_check(deliveries: Joined, platform: str) -> Check:
    """The platform's adapter joined the process (it started), and its ``connected()``, where it has one
    (`TelegramBot`, the Discord client), says nothing is wrong with its connection."""

    async def check() -> str | None:
        adapter = deliveries.adapters.get(platform)
        if adapter is None:
            return "not connected yet"
        connected = getattr(adapter, "connected", None)
        return connected() if callable(connected) else None

    return check


def pool_check(pool: Pool) -> Check:
    async def check() -> str | None:
        return pool.alive()

    return check


def process_readiness(store: Pingable, deliveries: Joined, pool: Pool, platforms: list[str]) -> Readiness:
    """`durak-bot run`'s checks: Redis, each served platform (by name: "telegram"), the AI pool."""
    readiness = Readiness({"redis": redis_check(store)})
    ids = {platform.name: platform.id for platform in SERVED_PLATFORMS}
    for name in platforms:
        readiness.add(name, platform_check(deliveries, ids[name]))
    readiness.add("ai", pool_check(pool))
    return readiness


async def start(config: BotConfig, readiness: Readiness, platforms: list[str]) -> web.AppRunner | None:
    """When no Telegram server holds PORT, ``/healthz`` and ``/readyz`` get a server of their own there
    (returned, to be cleaned up); else None (the webhook's server or the Mini App's pages answer them)."""
    if "telegram" in platforms and config.telegram_holds_port:
        return None
    try:
        return await serve(readiness, config.listen_address, config.port)
    except OSError as error:
        log.error("health: cannot listen on PORT %d (%s); /readyz is not served", config.port, error)
        return None
