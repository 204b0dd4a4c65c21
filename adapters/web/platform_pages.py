"""What a platform's web pages share, the Telegram Mini App's and the Discord Activity's: a front end that
pauses the chat's screens of whoever has a page open, on a server of its own or mounted on another one."""

from __future__ import annotations

from aiohttp import web

from adapters.web.server import WebFrontEnd
from bot.adapter import Deliver, resume_on_close


class PlatformPages:
    """A platform's pages around its `WebFrontEnd`."""

    def __init__(self, front: WebFrontEnd) -> None:
        self.front = front
        self._runner: web.AppRunner | None = None

    def resume_when_closed(self, deliver: Deliver) -> None:
        """Give a person the chat screens held back while they had a page open (`bot.game.app_screens`;
        the service learns who has one from `storage.presence`, given it when it is built) when their last
        page closes."""
        self.front.hub.listen(resume_on_close(self.front.service, deliver))

    async def serve_app(self, app: web.Application, listen: str, port: int) -> None:
        """``app`` on a server of its own, until `stop`."""
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        await web.TCPSite(self._runner, listen, port).start()

    async def stop(self) -> None:
        if self._runner is not None:
            runner, self._runner = self._runner, None
            await runner.cleanup()
