"""Telegram bot processes by webhook behind one address, on one Redis: what the webhook test and
bench/telegram_scale.py start.

`round_robin_proxy` is the load balancer: each POST (a webhook update, or a Mini App page's press) goes to
the next process. `webhook_bots` spawns the processes (tests/scale/tg_worker.py), registers the proxy's
address as the webhook, and stops them all afterwards.
"""

from __future__ import annotations

import asyncio
import itertools
import multiprocessing as mp
import socket
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import aiohttp
from aiohttp import web

from tests.fakes.telegram_api import FakeTelegram
from tests.scale.tg_worker import SPEED, main

SECRET = "same-secret-for-both"
HOOK_PATH = "/telegram-hook"
FORWARDED = ("x-telegram", "content-type", "authorization")  # the headers a balancer passes on


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def round_robin_proxy(backends: list[int], seen: dict[int, list[int]]) -> web.AppRunner:
    """One address for all processes, as a load balancer gives: each POST goes to the next backend; the
    update ids each backend got are noted in ``seen``."""
    turn = itertools.cycle(backends)
    session = aiohttp.ClientSession(
        timeout=aiohttp.ClientTimeout(total=30), connector=aiohttp.TCPConnector(limit=0)
    )

    async def forward(request: web.Request) -> web.Response:
        body = await request.read()
        port = next(turn)
        if request.path == HOOK_PATH:
            seen[port].append(int((await request.json())["update_id"]))
        headers = {k: v for k, v in request.headers.items() if k.lower().startswith(FORWARDED)}
        try:
            async with session.post(
                f"http://127.0.0.1:{port}{request.path}", data=body, headers=headers
            ) as r:
                return web.Response(status=r.status, body=await r.read(), content_type=r.content_type)
        except aiohttp.ClientError:
            return web.Response(status=502)

    app = web.Application()
    app.router.add_post("/{tail:.*}", forward)
    app.on_cleanup.append(lambda _: session.close())
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    return runner


async def wait_listening(port: int, limit: float = 30) -> None:
    begin = time.monotonic()
    while time.monotonic() - begin < limit:
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.close()
            return
        except OSError:
            await asyncio.sleep(0.05)
    raise AssertionError(f"no bot listening on {port}")


class BotExited(RuntimeError):
    """A bot process died while starting (e.g. its free port was taken meanwhile): start again."""


async def wait_started(fake: FakeTelegram, bots: list[mp.process.BaseProcess], limit: float = 60) -> None:
    """Until every process has registered the webhook (it listens by then), or one of them died."""
    begin = time.monotonic()
    while sum(r.method == "setWebhook" and r.status == 200 for r in fake.call_log) < len(bots):
        if not all(process.is_alive() for process in bots):
            raise BotExited("a bot process exited while starting")
        if time.monotonic() - begin > limit:
            raise AssertionError("the bot processes did not register the webhook")
        await asyncio.sleep(0.05)


@dataclass
class Cluster:
    ports: list[int]  # each process's own port (its webhook server, /metrics, the Mini App's pages)
    proxy_port: int  # the one address in front of them
    seen: dict[int, list[int]]  # port -> update ids the proxy gave that process

    @property
    def proxy_url(self) -> str:
        return f"http://127.0.0.1:{self.proxy_port}"


@asynccontextmanager
async def webhook_bots(
    fake: FakeTelegram,
    redis_url: str,
    processes: int = 2,
    speed: float = SPEED,
    webapp_url: str | None = None,
) -> AsyncIterator[Cluster]:
    """``processes`` bot processes serving the webhook behind `round_robin_proxy`, each pacing by a clock
    running ``speed`` times real time (the fake's, started beside it); ``webapp_url``: the Mini App's pages
    are served too, under that URL's path."""
    ports, proxy_port = [free_port() for _ in range(processes)], free_port()
    seen: dict[int, list[int]] = {port: [] for port in ports}
    proxy = await round_robin_proxy(ports, seen)
    await web.TCPSite(proxy, "127.0.0.1", proxy_port).start()
    hook = f"http://127.0.0.1:{proxy_port}{HOOK_PATH}"
    ctx = mp.get_context("spawn")
    bots = [
        ctx.Process(
            target=main,
            args=(fake.base_url, fake.token, redis_url, port, hook, SECRET, speed, webapp_url),
            daemon=True,
        )
        for port in ports
    ]
    for process in bots:
        process.start()
    try:
        for port in ports:
            await wait_listening(port)
        await wait_started(fake, bots)
        yield Cluster(ports, proxy_port, seen)
    finally:
        for process in bots:
            process.terminate()
            process.join(5)
            if process.is_alive():
                process.kill()
        await proxy.cleanup()
