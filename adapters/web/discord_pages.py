"""The table as a Discord Activity: the Mini App's page, served for Discord's proxy beside the Discord bot.

`durak-bot run` with DISCORD_ACTIVITY=on (and DISCORD_CLIENT_ID, DISCORD_CLIENT_SECRET) serves it on
DISCORD_ACTIVITY_PORT, the target of the Activity's root URL mapping (docs/discord.md, "The Activity"). The
page is the same one Telegram opens (its relative URLs work under Discord's proxy path too); two routes of
its own sign an Activity in (`adapters.web.discord_auth`):

- ``GET api/discord/config``: the application's client id, which the SDK's handshake and ``authorize`` name;
- ``POST api/discord/session`` ``{"code", "instance_id"}``: the code checked with Discord, the person in the
  instance, and the answer ``{"token", "access_token", "ref"}``: the page's session, the token for the SDK's
  ``authenticate``, and the ref of the game of the instance's channel. A refused code (forged, used already,
  expired) is a 401 with the reason; a channel with no game a 404.

A press from a page is delivered like a button's, to the Discord adapter of this process; while a player has
the page open their ephemeral hand and the channel's mid-bout table edits pause (`bot.game.app_screens`),
exactly as Telegram's do.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from aiohttp import web

from adapters.web.discord_auth import ActivitySessions, DiscordOAuth, SignInRefused, refusal_text
from adapters.web.limits import BodyTooLarge, read_body
from adapters.web.links import game_ref
from adapters.web.platform_pages import PlatformPages
from adapters.web.server import MAX_BODY, DeliverEffects, WebFrontEnd, asked_lang, failed, unavailable
from bot.i18n import translator
from bot.queries import session_id
from bot.runtime.config import BotConfig
from bot.service import GameService
from storage.errors import StoreUnavailable
from storage.keys import DISCORD, ChatRef

log = logging.getLogger("durak.web.discord")

MAX_SIGN_IN = 1024  # bytes of a sign-in's body: a code and an instance id


class DiscordPages(PlatformPages):
    """The web front end of one Discord application; `serve` it on its port, or `mount` it on an app."""

    def __init__(
        self,
        service: GameService,
        live: Any,
        deliver: DeliverEffects,
        oauth: DiscordOAuth,
        sessions: ActivitySessions | None = None,
    ) -> None:
        if live is None:
            raise ValueError("the Activity's live updates need the Redis client (run_discord's live)")
        self.oauth = oauth
        self.sessions = sessions or ActivitySessions(oauth.client_secret)
        super().__init__(WebFrontEnd(service, live, deliver, activity=self.sessions))

    def mount(self, app: web.Application) -> None:
        """The page's routes and the two sign-in routes, at the root: Discord's URL mapping names the path."""
        self.front.routes(app)
        app.router.add_get("/api/discord/config", self.config)
        app.router.add_post("/api/discord/session", self.session)
        app.on_cleanup.append(self._close)

    def app(self) -> web.Application:
        app = web.Application(client_max_size=MAX_BODY)
        self.mount(app)
        return app

    async def serve(self, listen: str, port: int) -> None:
        await self.serve_app(self.app(), listen, port)

    async def _close(self, app: web.Application) -> None:
        await self.oauth.close()

    # ---- routes ------------------------------------------------------------------------------------

    async def config(self, request: web.Request) -> web.Response:
        return web.json_response({"client_id": self.oauth.client_id})

    async def session(self, request: web.Request) -> web.Response:
        tr = translator(asked_lang(request))
        try:
            body = json.loads(await read_body(request, MAX_SIGN_IN))
        except (BodyTooLarge, ValueError):
            body = None
        code = body.get("code") if isinstance(body, dict) else None
        instance_id = body.get("instance_id") if isinstance(body, dict) else None
        if not isinstance(code, str) or not isinstance(instance_id, str) or not code or len(code) > 256:
            return failed(400, tr._("That sign-in is not valid: open the Activity again from the channel."))
        try:
            signed = await self.oauth.sign_in(code, instance_id)
        except SignInRefused as refused:
            log.info("Activity sign-in refused: %s", refused.reason.value)
            return failed(401, refusal_text(refused.reason, tr))
        tr = translator(signed.user.lang)
        try:
            snapshot = await self.front.service.queries.snapshot(ChatRef(DISCORD, signed.channel_id))
        except StoreUnavailable:
            return unavailable(tr)
        if snapshot.session is None:
            text = tr._(
                "There is no game in this channel yet: start one with /durak new, then open the table."
            )
            return failed(404, text)
        answer = {
            "token": self.sessions.issue(signed.user),
            "access_token": signed.access_token,
            "ref": game_ref(signed.channel_id, session_id(snapshot.session)),
        }
        return web.json_response(answer)


def discord_pages(
    config: BotConfig, service: GameService, live: Any, deliver: DeliverEffects
) -> DiscordPages | None:
    """The Activity's pages when it is configured (`BotConfig.discord_activity_on`), else None."""
    if not config.discord_activity_on:
        return None
    assert config.discord_token and config.discord_client_id and config.discord_client_secret
    oauth = DiscordOAuth(
        config.discord_api_url, config.discord_client_id, config.discord_client_secret, config.discord_token
    )
    return DiscordPages(service, live, deliver, oauth)
