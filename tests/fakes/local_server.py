"""A fake's HTTP server on a free loopback port: what every fake of a platform's API starts the same way."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from aiohttp import web


async def serve_on_loopback(app: web.Application) -> tuple[web.AppRunner, str]:
    """Serve ``app`` on 127.0.0.1 at a port the system picks: its runner (to clean up) and base URL."""
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    return runner, f"http://127.0.0.1:{port}"


@asynccontextmanager
async def on_loopback(app: web.Application) -> AsyncIterator[str]:
    """``app`` served on loopback for the ``async with``: its base URL, ending in "/"."""
    runner, base_url = await serve_on_loopback(app)
    try:
        yield base_url + "/"
    finally:
        await runner.cleanup()
