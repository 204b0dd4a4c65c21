"""The Mini App's pages beside a running Telegram bot (`durak-bot run` with WEBAPP_URL and WEBAPP_NAME).

They are served on the one port the bot has: mounted on the Telegram webhook's own aiohttp server when the
bot serves by webhook, else on a server of their own on PORT. Their routes live under the path of
WEBAPP_URL. A press from a page is delivered like a button's, to the Telegram adapter of this process. The
Redis client the pages follow saved changes on (pub/sub) and count open pages in is handed in by whoever
wires the process (`cli.main`, through `run_telegram`), never taken out of the store.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from aiohttp import web

from adapters.web.platform_pages import PlatformPages
from adapters.web.server import DeliverEffects, WebFrontEnd
from bot.adapter import BotConfig, GameService, MembershipCheck, Readiness


class TelegramPages(PlatformPages):
    """The web front end of one Telegram bot; `mount` it on the webhook's app, or `serve` it alone.
    ``live``: the Redis client of the live updates and presence; ``is_member``: the bot's getChatMember check,
    so only a group's members take a seat from its page."""

    def __init__(
        self,
        config: BotConfig,
        service: GameService,
        live: Any,
        deliver: DeliverEffects,
        is_member: MembershipCheck | None = None,
    ) -> None:
        if live is None:
            raise ValueError("the Mini App's live updates need the Redis client (run_telegram's live)")
        super().__init__(
            WebFrontEnd(service, live, deliver, telegram_token=config.telegram_token, is_member=is_member)
        )
        self.prefix = urlsplit(config.webapp_url or "").path or "/"

    def mount(self, app: web.Application) -> None:
        self.front.routes(app, self.prefix)

    async def serve(self, listen: str, port: int, readiness: Readiness) -> None:
        """A server of their own (the bot polls Telegram, so no webhook server holds the port), which
        answers the process's ``/healthz`` and ``/readyz`` too (`bot.runtime.health`)."""
        app = self.front.app(self.prefix)
        readiness.routes(app)
        await self.serve_app(app, listen, port)


def telegram_pages(
    config: BotConfig,
    service: GameService,
    live: Any,
    deliver: DeliverEffects,
    is_member: MembershipCheck | None = None,
) -> TelegramPages | None:
    """The pages when the Mini App is configured (`BotConfig.webapp_on`), else None."""
    return TelegramPages(config, service, live, deliver, is_member) if config.webapp_on else None
