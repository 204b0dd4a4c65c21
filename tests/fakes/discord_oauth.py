"""A local fake of the three Discord endpoints an Activity's sign-in uses, as Discord documents them.

- ``POST /oauth2/token`` (form-encoded ``client_id``, ``client_secret``, ``grant_type=authorization_code``,
  ``code``): ``{"access_token", "token_type": "Bearer", "expires_in", "refresh_token", "scope"}``. A code is
  good once and for `CODE_LIFETIME`; a code Discord never gave out, one used already or expired is a 400
  ``{"error": "invalid_grant"}``; a wrong client id or secret a 401 ``{"error": "invalid_client"}``.
- ``GET /users/@me`` with ``Authorization: Bearer <access token>``: the user (id, username, global_name,
  locale); an unknown or expired token is a 401 ``{"message": "401: Unauthorized", "code": 0}``.
- ``GET /applications/{application id}/activity-instances/{instance id}`` with the bot token: ``{
  "application_id", "instance_id", "launch_id", "location": {"id", "kind": "gc" | "pc", "channel_id",
  "guild_id"}, "users": [ids]}``; an instance not running is a 404 (code 10080, unknown activity instance).

`authorize` plays the Discord client's part of the SDK's ``authorize`` command: the code it would hand the
page. Every request is kept (`requests`) so a test can check that nothing else was asked.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from tests.fakes.local_server import serve_on_loopback

CODE_LIFETIME = 600.0  # seconds an authorization code stays good
TOKEN_LIFETIME = 604_800.0  # seconds an access token stays good (Discord's expires_in)


@dataclass
class Grant:
    user_id: str
    until: float
    used: bool = False


@dataclass
class Instance:
    channel_id: str
    guild_id: str | None
    users: list[str] = field(default_factory=list)
    launch_id: str = field(default_factory=lambda: str(secrets.randbits(60)))


class FakeDiscordOAuth:
    def __init__(
        self, client_id: str, client_secret: str, bot_token: str, clock: Callable[[], float] = time.time
    ) -> None:
        self.client_id, self.client_secret, self.bot_token = client_id, client_secret, bot_token
        self.clock = clock
        self.token_lifetime = TOKEN_LIFETIME  # 0: every access token lapses at once
        self.users: dict[str, dict[str, Any]] = {}
        self.codes: dict[str, Grant] = {}
        self.tokens: dict[str, Grant] = {}
        self.instances: dict[str, Instance] = {}
        self.requests: list[tuple[str, str, dict[str, str]]] = []  # (method, path, form or query)
        self.limited_until = 0.0  # token requests before then are answered 429 (`rate_limit`)
        self.token_delay = 0.0  # seconds each token request takes (to see how many overlap)
        self.in_flight = 0
        self.most_in_flight = 0
        self._runner: web.AppRunner | None = None
        self.base_url = ""

    # ---- what happens on Discord's side --------------------------------------------------------------

    def add_user(self, user_id: str, name: str, locale: str = "en-US") -> None:
        self.users[user_id] = {
            "id": user_id,
            "username": name.lower(),
            "global_name": name,
            "discriminator": "0",
            "avatar": None,
            "locale": locale,
        }

    def authorize(self, user_id: str) -> str:
        """The code Discord's client hands the page for ``user_id`` (the SDK's ``authorize`` answer)."""
        code = secrets.token_urlsafe(22)
        self.codes[code] = Grant(user_id, self.clock() + CODE_LIFETIME)
        return code

    def rate_limit(self, seconds: float) -> None:
        """Discord's token route answers 429 for the next ``seconds`` (Retry-After: what is left of them)."""
        self.limited_until = self.clock() + seconds

    def launch(self, channel_id: str, guild_id: str | None, *users: str) -> str:
        """An Activity started in a channel (a guild's, or a DM's: ``guild_id`` None), with people in it."""
        instance_id = (
            f"i-{secrets.randbits(40)}-gc-{guild_id}-{channel_id}"
            if guild_id
            else f"i-{secrets.randbits(40)}-pc-{channel_id}"
        )
        self.instances[instance_id] = Instance(channel_id, guild_id, list(users))
        return instance_id

    # ---- lifecycle -----------------------------------------------------------------------------------

    @property
    def api_base(self) -> str:
        return f"{self.base_url}/api/v10"

    async def start(self) -> None:
        app = web.Application()
        app.router.add_post("/api/v10/oauth2/token", self._token)
        app.router.add_get("/api/v10/users/@me", self._me)
        app.router.add_get("/api/v10/applications/{app_id}/activity-instances/{instance_id}", self._instance)
        self._runner, self.base_url = await serve_on_loopback(app)

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    # ---- routes --------------------------------------------------------------------------------------

    async def _token(self, request: web.Request) -> web.Response:
        form = {key: str(value) for key, value in (await request.post()).items()}
        self.requests.append(("POST", "/oauth2/token", form))
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            if self.token_delay:
                await asyncio.sleep(self.token_delay)
            return self._grant(form)
        finally:
            self.in_flight -= 1

    def _grant(self, form: dict[str, str]) -> web.Response:
        wait = round(self.limited_until - self.clock(), 3)
        if wait > 0:  # as Discord limits a route: the header, and the same in the body
            body = {"message": "You are being rate limited.", "retry_after": wait, "global": False}
            return web.json_response(body, status=429, headers={"Retry-After": str(wait)})
        if form.get("client_id") != self.client_id or form.get("client_secret") != self.client_secret:
            return web.json_response({"error": "invalid_client"}, status=401)
        if form.get("grant_type") != "authorization_code":
            return web.json_response({"error": "unsupported_grant_type"}, status=400)
        grant = self.codes.get(form.get("code", ""))
        if grant is None or grant.used or grant.until <= self.clock():
            description = 'Invalid "code" in request.'
            return web.json_response({"error": "invalid_grant", "error_description": description}, status=400)
        grant.used = True
        token = secrets.token_urlsafe(24)
        self.tokens[token] = Grant(grant.user_id, self.clock() + self.token_lifetime)
        answer = {
            "access_token": token,
            "token_type": "Bearer",
            "expires_in": int(TOKEN_LIFETIME),
            "refresh_token": secrets.token_urlsafe(24),
            "scope": "identify",
        }
        return web.json_response(answer)

    async def _me(self, request: web.Request) -> web.Response:
        self.requests.append(("GET", "/users/@me", {}))
        scheme, _, token = request.headers.get("Authorization", "").partition(" ")
        grant = self.tokens.get(token) if scheme == "Bearer" else None
        if grant is None or grant.until <= self.clock():
            return web.json_response({"message": "401: Unauthorized", "code": 0}, status=401)
        return web.json_response(self.users[grant.user_id])

    async def _instance(self, request: web.Request) -> web.Response:
        app_id, instance_id = request.match_info["app_id"], request.match_info["instance_id"]
        self.requests.append(("GET", f"/applications/{app_id}/activity-instances/{instance_id}", {}))
        if request.headers.get("Authorization") != f"Bot {self.bot_token}":
            return web.json_response({"message": "401: Unauthorized", "code": 0}, status=401)
        instance = self.instances.get(instance_id)
        if app_id != self.client_id or instance is None:
            return web.json_response({"message": "Unknown Activity Instance", "code": 10080}, status=404)
        location = {
            "id": f"gc-{instance.guild_id}-{instance.channel_id}"
            if instance.guild_id
            else f"pc-{instance.channel_id}",
            "kind": "gc" if instance.guild_id else "pc",
            "channel_id": instance.channel_id,
            "guild_id": instance.guild_id,
        }
        answer = {
            "application_id": self.client_id,
            "instance_id": instance_id,
            "launch_id": instance.launch_id,
            "location": location,
            "users": list(instance.users),
        }
        return web.json_response(answer)
