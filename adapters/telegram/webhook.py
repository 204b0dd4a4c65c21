"""Our own webhook server (aiohttp) in place of PTB's `Updater.start_webhook`, so the one port a platform
opens (PORT) also answers ``GET /metrics``, ``GET /healthz`` and ``GET /readyz``.

PTB's documented way for this is a custom webhook server ("customwebhookbot"): it receives Telegram's POSTs,
decodes each with `Update.de_json` and puts it on `application.update_queue`, which the application works
off one update at a time (``concurrent_updates(False)``), exactly as with PTB's own server. It also checks
what PTB's server checks: a JSON body and the ``X-Telegram-Bot-Api-Secret-Token`` header (403 otherwise).
"""

from __future__ import annotations

import hmac
import json
import logging
from collections.abc import Callable
from typing import Any

from aiohttp import web
from telegram import Update
from telegram.ext import Application, ExtBot

from bot.adapter import Metrics, Readiness

log = logging.getLogger("durak.telegram")

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
METRICS_PATH = "/metrics"


class WebhookServer:
    """Serves the webhook path (POST) and ``/metrics`` (GET, 404 while metrics are off) on one port."""

    def __init__(
        self,
        application: Application,  # type: ignore[type-arg]
        path: str,
        secret: str,
        listen: str = "0.0.0.0",
        port: int = 8080,
        mount: Callable[[web.Application], None] | None = None,
        readiness: Readiness | None = None,
        metrics: Metrics | None = None,
    ) -> None:
        """``mount``: adds more routes to this server's app (the Mini App's pages, adapters/web);
        ``readiness``: the process's checks (``/readyz``); ``metrics``: what ``/metrics`` shows."""
        self.application = application
        self.readiness = readiness or Readiness()
        self.metrics = metrics or Metrics()
        self.mount = mount
        self.path = "/" + path.strip("/")
        if self.path == METRICS_PATH:
            raise ValueError(f"the webhook path cannot be {METRICS_PATH}: that is where the metrics are")
        self.secret = secret
        self.listen, self.port = listen, port
        self._runner: web.AppRunner | None = None

    def web_app(self) -> web.Application:
        app = web.Application()
        app.router.add_post(self.path, self.receive)
        if self.path != "/":
            app.router.add_post(self.path + "/", self.receive)  # PTB accepts the path with a final slash
        app.router.add_get(METRICS_PATH, self.scrape)
        if self.mount is not None:
            self.mount(app)
        self.readiness.routes(app)  # /healthz and /readyz (bot/runtime/health.py)
        return app

    async def start(self, url: str, allowed_updates: list[str]) -> None:
        """Listen, then tell Telegram where to post (setWebhook), in that order as PTB does: the first
        update may arrive as soon as Telegram has the address."""
        self._runner = web.AppRunner(self.web_app(), access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        await web.TCPSite(self._runner, self.listen, self.port).start()
        await self.application.bot.set_webhook(
            url=url, secret_token=self.secret, allowed_updates=allowed_updates
        )
        log.info("Telegram: webhook %s (listening on %s:%d)", url, self.listen, self.port)

    @property
    def listening(self) -> bool:
        return self._runner is not None

    async def stop(self) -> None:
        """Stop listening. The webhook stays set: other processes behind the same address carry on."""
        if self._runner is not None:
            runner, self._runner = self._runner, None
            await runner.cleanup()

    async def receive(self, request: web.Request) -> web.Response:
        if request.content_type != "application/json":
            return web.Response(status=403, text="expected application/json")
        token = request.headers.get(SECRET_HEADER, "")
        if not hmac.compare_digest(token.encode(), self.secret.encode()):
            log.debug("webhook request with a missing or wrong secret token from %s", request.remote)
            return web.Response(status=403, text="wrong secret token")
        try:
            data: Any = json.loads(await request.read())
            update = Update.de_json(data, self.application.bot)
        except Exception:  # Telegram retries a non-2xx answer; a body it cannot decode never gets better
            log.exception("webhook: an update that cannot be decoded was refused")
            return web.Response(status=400, text="update could not be processed")
        bot = self.application.bot
        if isinstance(bot, ExtBot):
            bot.insert_callback_data(update)  # as PTB's server does (arbitrary callback data, if used)
        await self.application.update_queue.put(update)
        return web.Response()

    async def scrape(self, request: web.Request) -> web.Response:
        exposition = self.metrics.exposition()
        if exposition is None:
            return web.Response(status=404, text="metrics are off (METRICS=on switches them on)")
        body, content_type = exposition
        return web.Response(body=body, headers={"Content-Type": content_type})
