"""GET /healthz and /readyz (bot/runtime/health.py) and what `durak-bot health` makes of them: ready only
when every check passes, each check named in the body, 503 otherwise; a stopping process is not ready."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import aiohttp
import pytest
from aiohttp import web

from bot.runtime import health
from bot.runtime.health import Readiness, probe
from bot.timers import Deliveries
from tests.scale.cluster import free_port


async def ok() -> str | None:
    return None


async def down() -> str | None:
    return "connection refused"


async def slow() -> str | None:
    await asyncio.sleep(10)
    return None


async def broken() -> str | None:
    raise RuntimeError("boom")


@pytest.fixture
def readiness() -> Readiness:
    return Readiness()


@pytest.fixture
async def port(readiness: Readiness) -> AsyncIterator[int]:
    chosen = free_port()
    runner = await health.serve(readiness, "127.0.0.1", chosen)
    try:
        yield chosen
    finally:
        await runner.cleanup()


async def test_ready_when_every_check_passes() -> None:
    readiness = Readiness({"redis": ok, "telegram": ok})
    assert await readiness.report() == (True, {"redis": "ok", "telegram": "ok"})


async def test_one_failing_check_makes_it_not_ready_and_is_named() -> None:
    ready, report = await Readiness({"redis": down, "ai": ok}).report()
    assert not ready and report == {"redis": "connection refused", "ai": "ok"}


async def test_a_check_that_hangs_or_raises_fails_instead_of_stalling_the_answer() -> None:
    ready, report = await Readiness({"redis": slow, "ai": broken}).report()
    assert not ready
    assert report == {"redis": f"no answer within {health.CHECK_TIMEOUT:g} s", "ai": "RuntimeError: boom"}


async def test_no_checks_yet_or_stopping_is_not_ready() -> None:
    assert (await Readiness().report())[0] is False
    stopping = Readiness({"redis": ok}, stopping=True)
    assert await stopping.report() == (False, {"redis": "ok", "process": "stopping"})


async def test_a_platform_is_ready_once_its_adapter_joined_and_says_it_is_connected() -> None:
    class Adapter:
        platform = "tg"
        problem: str | None = None

        async def deliver_due(self, due: object, effects: object) -> None: ...

        def connected(self) -> str | None:
            return self.problem

    deliveries, adapter = Deliveries(), Adapter()
    check = health.platform_check(deliveries, "tg")
    assert await check() == "not connected yet"
    deliveries.join(adapter)
    assert await check() is None
    adapter.problem = "not polling Telegram"
    assert await check() == "not polling Telegram"
    deliveries.leave(adapter)
    assert await check() == "not connected yet"


async def test_readyz_answers_200_or_503_with_each_check_and_healthz_always_200(
    readiness: Readiness, port: int
) -> None:
    readiness.add("redis", ok)
    assert await asyncio.to_thread(probe, port) == (True, "ready: redis")
    readiness.add("ai", down)
    assert await asyncio.to_thread(probe, port) == (False, "not ready: ai: connection refused")
    async with aiohttp.ClientSession() as session:
        async with session.get(f"http://127.0.0.1:{port}/readyz") as answer:
            assert answer.status == 503
            assert await answer.json() == {"ok": False, "checks": {"redis": "ok", "ai": "connection refused"}}
        async with session.get(f"http://127.0.0.1:{port}/healthz") as answer:
            assert answer.status == 200 and await answer.json() == {"ok": True}


async def test_the_probe_says_when_nothing_listens() -> None:
    ready, line = await asyncio.to_thread(probe, free_port())
    assert not ready and line.startswith("not ready: nothing answers http://127.0.0.1:")


async def test_the_probe_does_not_take_another_servers_answer_for_readiness() -> None:
    app = web.Application()
    app.router.add_get("/readyz", lambda request: web.Response(text="hello"))
    runner = web.AppRunner(app)
    await runner.setup()
    other = free_port()
    await web.TCPSite(runner, "127.0.0.1", other).start()
    try:
        ready, line = await asyncio.to_thread(probe, other)
    finally:
        await runner.cleanup()
    assert not ready and "something else than the bot's readiness" in line


def test_routes_leave_the_pages_own_healthz_in_place() -> None:
    app = web.Application()
    pages_healthz = health.healthz
    app.router.add_get("/healthz", pages_healthz)
    Readiness().routes(app)
    paths = sorted(resource.canonical for resource in app.router.resources())
    assert paths == ["/healthz", "/readyz"]
