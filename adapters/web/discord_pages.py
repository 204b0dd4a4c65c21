"""The table as a Discord Activity: the Mini App's page, served for Discord's proxy beside the Discord bot.

`durak-bot run` with DISCORD_ACTIVITY=on (and DISCORD_CLIENT_ID, DISCORD_CLIENT_SECRET) serves it on
DISCORD_ACTIVITY_PORT, the target of the Activity's root URL mapping (docs/discord.md, "The Activity"). The
page is the same one Telegram opens (its relative URLs work under Discord's proxy path too); two routes of
its own sign an Activity in (`adapters.web.discord_auth`):

- ``GET api/discord/config``: the application's client id, which the SDK's handshake and ``authorize`` name;
- ``POST api/discord/session`` ``{"code", "instance_id"}``: the code checked with Discord, the person in the
  instance, and the answer ``{"token", "access_token", "ref", "renew_in"}``: the page's session, the token
  for the SDK's ``authenticate``, the ref of the game of the instance's channel, and the seconds after which
  the page renews its session. A refused code (forged, used already, expired) is a 401 with the reason; a
  channel with no game a 404; a sign-in past the bounds of `adapters.web.sign_in_gate` a 429.
- ``POST api/discord/renew`` (``Authorization: discord <token>``): a new token for a session whose person the
  instance still holds, else 401.

A session opens its instance's channel only (every other chat's game: 404, on every route) and only while
the instance holds its person (`adapters.web.discord_instances`): someone who leaves the Activity is signed
out within half a minute, and a seat is taken only by someone the channel's instance holds.

A press from a page is delivered like a button's, to the Discord adapter of this process; while a player has
the page open their ephemeral hand and the channel's mid-bout table edits pause (`bot.game.app_screens`),
exactly as Telegram's do.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from typing import Any

from aiohttp import web

from adapters.web.discord_auth import (
    RENEW_EVERY,
    ActivitySessions,
    DiscordOAuth,
    Refusal,
    SignInRefused,
    refusal_text,
    well_formed,
)
from adapters.web.discord_instances import ActivityInstances
from adapters.web.headers import discord_frame_ancestors
from adapters.web.limits import BodyTooLarge, read_body
from adapters.web.links import game_ref
from adapters.web.platform_pages import PlatformPages
from adapters.web.refusals import asked_lang, failed, unavailable
from adapters.web.server import MAX_BODY, RECHECK, DeliverEffects, Refused, WebFrontEnd, client_address
from adapters.web.sign_in_gate import SignInGate
from bot.adapter import DISCORD, BotConfig, ChatRef, GameService, StoreUnavailable, translator

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
        clock: Callable[[], float] = time.time,
        gate: SignInGate | None = None,
        recheck: float = RECHECK,
    ) -> None:
        if live is None:
            raise ValueError("the Activity's live updates need the Redis client (run_discord's live)")
        self.oauth = oauth
        self.sessions = ActivitySessions(oauth.client_secret, clock=clock)
        self.instances = ActivityInstances(oauth, clock=clock)
        self.gate = gate or SignInGate()
        front = WebFrontEnd(
            service,
            live,
            deliver,
            activity=self.sessions,
            clock=clock,
            is_member=self.instances.is_member,
            still_there=self.instances.holds,
            frame_ancestors=discord_frame_ancestors(oauth.client_id),
            recheck=recheck,
        )
        super().__init__(front)

    def mount(self, app: web.Application) -> None:
        """The page's routes and the two sign-in routes, at the root: Discord's URL mapping names the path."""
        self.front.routes(app)
        app.router.add_get("/api/discord/config", self.config)
        app.router.add_post("/api/discord/session", self.session)
        app.router.add_post("/api/discord/renew", self.renew)
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
        if (
            not isinstance(code, str)
            or not isinstance(instance_id, str)
            or not well_formed(code, instance_id)
        ):
            return failed(400, tr._("That sign-in is not valid: open the Activity again from the channel."))
        if not self.gate.admits(client_address(request)):  # before anything is asked of Discord
            log.info("Activity sign-in refused: %s", Refusal.BUSY.value)
            return failed(429, refusal_text(Refusal.BUSY, tr), {"Retry-After": self.gate.retry_after()})
        try:
            with self.gate.exchanging():
                signed = await self.oauth.sign_in(code, instance_id)
        except SignInRefused as refused:
            log.info("Activity sign-in refused: %s", refused.reason.value)
            status = 429 if refused.reason is Refusal.BUSY else 401
            return failed(status, refusal_text(refused.reason, tr))
        self.instances.remember(signed.instance_id, signed.instance)
        tr = translator(signed.user.lang)
        try:
            seen = await self.front.service.queries.seen(ChatRef(DISCORD, signed.channel_id), signed.user.id)
        except StoreUnavailable:
            return unavailable(tr)
        if seen.header is None:
            text = tr._(
                "There is no game in this channel yet: start one with /durak new, then open the table."
            )
            return failed(404, text)
        answer = {
            "token": self.sessions.issue(signed.user, signed.instance_id, signed.channel_id),
            "access_token": signed.access_token,
            "ref": game_ref(signed.channel_id, seen.ref_id),
            "renew_in": RENEW_EVERY,
        }
        return web.json_response(answer)

    async def renew(self, request: web.Request) -> web.Response:
        """A new session token while the instance still holds its person: the page asks every `RENEW_EVERY`."""
        try:
            viewer = await self.front.checked_viewer(
                request.headers.get("Authorization", ""), asked_lang(request)
            )
        except Refused as refused:
            return failed(401, refused.text)
        if viewer.instance_id is None:  # a Telegram or local sign-in: nothing of ours to renew
            return failed(401, refusal_text(Refusal.TOKEN, translator(viewer.user.lang)))
        return web.json_response({"token": self.sessions.renewed(viewer), "renew_in": RENEW_EVERY})


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
