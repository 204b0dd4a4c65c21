"""What a platform's web pages share, the Telegram Mini App's and the Discord Activity's: a front end that
pauses the chat's screens of whoever has a page open, on a server of its own or mounted on another one."""

from __future__ import annotations

from functools import partial

from aiohttp import web

from adapters.web.server import WebFrontEnd
from bot.timers import Deliver, resume_on_close
from storage.presence import open_pages


class PlatformPages:
    """A platform's pages around its `WebFrontEnd`."""

    def __init__(self, front: WebFrontEnd) -> None:
        self.front = front
        self._runner: web.AppRunner | None = None

    def hold_back_screens(self, deliver: Deliver) -> None:
        """Let the service know who has a page open, so the chat's hand edits pause for them
        (`bot.game.app_screens`), and give a person what was held back when their last page closes."""
        self.front.service.on_app = partial(open_pages, self.front.hub.redis)
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
