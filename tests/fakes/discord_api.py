"""A local fake of Discord's REST API, so the real discord.py client can be tested with no network.

discord.py builds every REST URL (bot routes, interaction callbacks, webhook edits) from
``discord.http.Route.BASE``; the test points that at this aiohttp app on 127.0.0.1. The fake keeps what
Discord would keep (channel messages with their edit history, ephemeral messages per user, DMs, synced
commands, interaction tokens) and answers with Discord's status codes and error codes, so the adapter
meets the same failures it would meet in production (50007, 10062, 40060, 50027, 50035).
Gateway events are not sent over a websocket: see ``discord_gateway.py``.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from tests.fakes import discord_store as store
from tests.fakes.discord_store import ApiError, FakeUser, Interaction, StoredMessage
from tests.fakes.local_server import serve_on_loopback

EPHEMERAL = 64
LOADING = 128
ACK_DEADLINE = 3.0  # seconds Discord gives a bot to answer an interaction
TOKEN_LIFETIME = 15 * 60.0  # seconds an interaction token (and so an ephemeral message) stays editable


# aiohttp 3.14 asks for typed request keys; the oldest aiohttp our range admits has only string keys
BODY: Any = web.RequestKey("body", object) if hasattr(web, "RequestKey") else "body"


@dataclass
class Request:
    """One request the client made, for assertions such as "the table was edited at most twice"."""

    method: str
    path: str
    body: Any
    at: float = field(default_factory=time.monotonic)


class FakeDiscordAPI(store.DiscordState):
    """The REST half of the fake: state plus the aiohttp routes that discord.py calls."""

    def __init__(self, token: str = "fake-bot-token") -> None:
        super().__init__()
        self.token = token
        self.ack_deadline = ACK_DEADLINE
        self.requests: list[Request] = []
        self.unhandled: list[str] = []  # routes the fake does not know: a test should keep this empty
        self.errors: list[tuple[str, str, int, int]] = []  # (method, path, status, Discord code) answered
        self.command_syncs: list[tuple[str | None, list[dict[str, Any]]]] = []  # (guild_id, commands)
        self._injected: list[tuple[str, re.Pattern[str], ApiError]] = []
        self._runner: web.AppRunner | None = None
        self.base_url = ""
        self._last_request_at = time.monotonic()

    # -- lifecycle ---------------------------------------------------------------------------------------

    @property
    def api_base(self) -> str:
        """The value for ``discord.http.Route.BASE``."""
        return f"{self.base_url}/api/v10"

    async def start(self) -> None:
        app = web.Application(middlewares=[self._middleware])
        self._add_routes(app.router)
        self._runner, self.base_url = await serve_on_loopback(app)

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    def inject_error(
        self, method: str, path_regex: str, status: int, code: int, message: str, times: int = 1
    ) -> None:
        """Make the next ``times`` matching requests fail, e.g. a 429 or a 10008 on a table edit."""
        for _ in range(times):
            self._injected.append((method.upper(), re.compile(path_regex), ApiError(status, code, message)))

    def inject_rate_limit(
        self, method: str, path_regex: str, retry_after: float = 0.05, times: int = 1
    ) -> None:
        """Answer the next matching requests with a 429 that discord.py waits out and retries."""
        for _ in range(times):
            self._injected.append(
                (method.upper(), re.compile(path_regex), ApiError.rate_limited(retry_after))
            )

    def requests_to(self, method: str, path_regex: str) -> list[Request]:
        """The requests made to matching routes, e.g. ``requests_to("PATCH", r"/channels/\\d+/messages/")``."""
        pattern = re.compile(path_regex)
        return [r for r in self.requests if r.method == method.upper() and pattern.search(r.path)]

    async def wait_idle(self, quiet: float = 0.1, timeout: float = 5.0) -> None:
        """Wait until no request has arrived for ``quiet`` seconds (merged edits, follow-ups all sent)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() - self._last_request_at < quiet:
            if time.monotonic() > deadline:
                raise TimeoutError(f"the client kept calling the fake for {timeout} s")
            await asyncio.sleep(quiet / 4)

    # -- plumbing ----------------------------------------------------------------------------------------

    @web.middleware
    async def _middleware(self, request: web.Request, handler: Any) -> web.StreamResponse:
        self._last_request_at = time.monotonic()
        body = await _read_body(request)
        path = request.path.removeprefix("/api/v10")
        self.requests.append(Request(request.method, path, body))
        try:
            for index, (method, pattern, error) in enumerate(self._injected):
                if method == request.method and pattern.search(path):
                    del self._injected[index]
                    raise error
            webhook = path.startswith(("/webhooks/", "/interactions/"))
            if not webhook and request.headers.get("Authorization") != f"Bot {self.token}":
                raise ApiError(401, 0, "401: Unauthorized")
            request[BODY] = body
            response = await handler(request)
        except ApiError as error:
            self.errors.append((request.method, path, error.status, error.code))
            response = _json(error.payload(), status=error.status)
            response.headers.update(error.headers())
        self._last_request_at = time.monotonic()
        return response

    def _add_routes(self, router: web.UrlDispatcher) -> None:
        api = "/api/v10"
        routes = [
            ("GET", "/users/@me", self._get_me),
            ("GET", "/users/{user_id}", self._get_user),
            ("GET", "/oauth2/applications/@me", self._get_application),
            ("POST", "/users/@me/channels", self._open_dm),
            ("GET", "/channels/{channel_id}", self._get_channel),
            ("POST", "/channels/{channel_id}/messages", self._post_message),
            ("GET", "/channels/{channel_id}/messages/{message_id}", self._get_message),
            ("PATCH", "/channels/{channel_id}/messages/{message_id}", self._patch_message),
            ("DELETE", "/channels/{channel_id}/messages/{message_id}", self._delete_message),
            ("GET", "/applications/{app_id}/commands", self._get_commands),
            ("PUT", "/applications/{app_id}/commands", self._put_commands),
            ("GET", "/applications/{app_id}/guilds/{guild_id}/commands", self._get_commands),
            ("PUT", "/applications/{app_id}/guilds/{guild_id}/commands", self._put_commands),
            ("POST", "/interactions/{interaction_id}/{token}/callback", self._callback),
            ("POST", "/webhooks/{app_id}/{token}", self._followup),
            ("GET", "/webhooks/{app_id}/{token}/messages/{message_id}", self._get_webhook_message),
            ("PATCH", "/webhooks/{app_id}/{token}/messages/{message_id}", self._patch_webhook_message),
            ("DELETE", "/webhooks/{app_id}/{token}/messages/{message_id}", self._delete_webhook_message),
        ]
        for method, path, handler in routes:
            router.add_route(method, api + path, handler)
        router.add_route("*", "/{tail:.*}", self._unknown_route)

    async def _unknown_route(self, request: web.Request) -> web.Response:
        self.unhandled.append(f"{request.method} {request.path}")
        raise ApiError(404, 0, "404: Not Found (route not in the fake)")

    # -- users, application, channels ---------------------------------------------------------------------

    async def _get_me(self, request: web.Request) -> web.Response:
        return _json(self.bot_payload())

    async def _get_user(self, request: web.Request) -> web.Response:
        return _json(self.user(request.match_info["user_id"]).payload())

    async def _get_application(self, request: web.Request) -> web.Response:
        return _json(self.application_payload())

    async def _open_dm(self, request: web.Request) -> web.Response:
        user = self.user(str(request[BODY]["recipient_id"]))
        return _json(self.channel_payload(self.dm_channel_for(user)))

    async def _get_channel(self, request: web.Request) -> web.Response:
        return _json(self.channel_payload(request.match_info["channel_id"]))

    # -- channel messages ------------------------------------------------------------------------------

    async def _post_message(self, request: web.Request) -> web.Response:
        channel_id = request.match_info["channel_id"]
        self.channel_payload(channel_id)  # 404 10003 for an unknown channel
        refusing = self.dm_recipient(channel_id)
        if refusing is not None and refusing.refuses_dms:
            raise ApiError(403, 50007, "Cannot send messages to this user")
        body = request[BODY]
        flags = int(body.get("flags") or 0) & ~EPHEMERAL  # ephemeral only exists for interactions
        message = self.create_message(channel_id, body, flags=flags)
        return _json(message.data)

    async def _get_message(self, request: web.Request) -> web.Response:
        return _json(self._channel_message(request).data)

    async def _patch_message(self, request: web.Request) -> web.Response:
        message = self._channel_message(request)
        return _json(self.edit_message(message, request[BODY]).data)

    async def _delete_message(self, request: web.Request) -> web.Response:
        self._channel_message(request).deleted = True
        return web.Response(status=204)

    def _channel_message(self, request: web.Request) -> StoredMessage:
        message = self.messages.get(request.match_info["message_id"])
        if message is None or message.deleted or message.ephemeral_user:
            raise ApiError(404, 10008, "Unknown Message")
        if message.channel_id != request.match_info["channel_id"]:
            raise ApiError(404, 10008, "Unknown Message")
        return message

    # -- application commands ---------------------------------------------------------------------------

    async def _get_commands(self, request: web.Request) -> web.Response:
        self._check_app(request)
        guild_id = request.match_info.get("guild_id")
        return _json(self.commands.get(guild_id, []))

    async def _put_commands(self, request: web.Request) -> web.Response:
        self._check_app(request)
        guild_id = request.match_info.get("guild_id")
        registered = self.register_commands(request[BODY], guild_id)
        self.command_syncs.append((guild_id, registered))
        return _json(registered)

    def _check_app(self, request: web.Request) -> None:
        if request.match_info["app_id"] != self.app_id:
            raise ApiError(403, 20012, "You are not authorized to perform this action on this application")

    # -- interactions --------------------------------------------------------------------------------------

    async def _callback(self, request: web.Request) -> web.Response:
        interaction = self.interactions.get(request.match_info["interaction_id"])
        if interaction is None or interaction.token != request.match_info["token"]:
            raise ApiError(404, 10062, "Unknown interaction")
        if interaction.callback is not None:
            raise ApiError(400, 40060, "Interaction has already been acknowledged.")
        if time.monotonic() - interaction.created > self.ack_deadline:
            raise ApiError(404, 10062, "Unknown interaction")
        body = request[BODY]
        kind, data = int(body["type"]), body.get("data") or {}
        message = self._apply_callback(interaction, kind, data)
        interaction.callback = body
        interaction.acked_at = time.monotonic()
        interaction.acked.set()
        if request.query.get("with_response") not in ("1", "true", "True"):
            return web.Response(status=204)
        flags = message.data["flags"] if message else 0
        result: dict[str, Any] = {
            "interaction": {
                "id": interaction.id,
                "type": interaction.type,
                "response_message_loading": kind == 5,
                "response_message_ephemeral": bool(flags & EPHEMERAL),
            },
            "resource": {"type": kind},
        }
        if message is not None:
            result["interaction"]["response_message_id"] = message.id
            result["resource"]["message"] = message.data
        return _json(result)

    def _apply_callback(
        self, interaction: Interaction, kind: int, data: dict[str, Any]
    ) -> StoredMessage | None:
        component = interaction.type in (3, 5)
        if kind in (4, 5):
            flags = int(data.get("flags") or 0) & EPHEMERAL
            if kind == 5:
                data, flags = {}, flags | LOADING
            message = self.create_message(
                interaction.channel_id, data, flags=flags, interaction=interaction, validate=kind == 4
            )
            interaction.original_id = message.id
            return message
        if kind in (6, 7) and component and interaction.message_id:
            interaction.original_id = interaction.message_id
            message = self.messages[interaction.message_id]
            return self.edit_message(message, data) if kind == 7 else None
        if kind == 8 and interaction.type == 4:
            interaction.choices = list(data.get("choices", []))
            return None
        if kind == 9 and interaction.type in (2, 3):
            interaction.modal = data
            return None
        if kind == 12 and interaction.type in (2, 3):  # LAUNCH_ACTIVITY: Discord opens the app's Activity
            return None
        raise ApiError(400, 40043, f"Interaction callback type {kind} is invalid for this interaction")

    def _interaction_for_token(self, request: web.Request) -> Interaction:
        interaction = self.tokens.get(request.match_info["token"])
        if request.match_info["app_id"] != self.app_id or interaction is None:
            raise ApiError(401, 50027, "Invalid Webhook Token")
        if interaction.expired or time.monotonic() - interaction.created > TOKEN_LIFETIME:
            raise ApiError(401, 50027, "Invalid Webhook Token")
        return interaction

    def _webhook_message(self, request: web.Request) -> tuple[Interaction, StoredMessage]:
        interaction = self._interaction_for_token(request)
        wanted = request.match_info["message_id"]
        message_id = interaction.original_id if wanted == "@original" else wanted
        if wanted not in ("@original", interaction.original_id, *interaction.followup_ids):
            message_id = None
        message = self.messages.get(message_id or "")
        if message is None or message.deleted:
            raise ApiError(404, 10008, "Unknown Message")
        return interaction, message

    async def _followup(self, request: web.Request) -> web.Response:
        interaction = self._interaction_for_token(request)
        if interaction.callback is None:
            raise ApiError(404, 10015, "Unknown Webhook")
        body = request[BODY]
        original = self.messages.get(interaction.original_id or "")
        if original is not None and original.data["flags"] & LOADING and not interaction.followup_ids:
            # Discord: the first follow-up after a deferred ("thinking") reply replaces that reply.
            message = self.edit_message(original, body)
        else:
            flags = int(body.get("flags") or 0) & EPHEMERAL
            message = self.create_message(interaction.channel_id, body, flags=flags, interaction=interaction)
        interaction.followup_ids.append(message.id)
        if request.query.get("wait") not in ("1", "true", "True"):
            return web.Response(status=204)
        return _json(message.data)

    async def _get_webhook_message(self, request: web.Request) -> web.Response:
        return _json(self._webhook_message(request)[1].data)

    async def _patch_webhook_message(self, request: web.Request) -> web.Response:
        _, message = self._webhook_message(request)
        return _json(self.edit_message(message, request[BODY]).data)

    async def _delete_webhook_message(self, request: web.Request) -> web.Response:
        self._webhook_message(request)[1].deleted = True
        return web.Response(status=204)

    # -- assertions helpers ------------------------------------------------------------------------------

    def channel_texts(self, channel_id: str) -> list[str]:
        """Every public text ever shown in the channel: each version of each message, embeds and labels."""
        return [
            store.visible_text(version)
            for message in self.messages.values()
            if message.channel_id == str(channel_id) and not message.ephemeral_user
            for version in message.history
        ]

    def public_messages(self, channel_id: str) -> list[dict[str, Any]]:
        """The channel's messages as they stand now (deleted ones left out), oldest first."""
        return [
            m.data
            for m in self.messages.values()
            if m.channel_id == str(channel_id) and not m.ephemeral_user and not m.deleted
        ]

    def ephemeral_for(self, user: FakeUser | str) -> list[dict[str, Any]]:
        """The ephemeral messages only this user can see, current versions, oldest first."""
        user_id = user.id if isinstance(user, FakeUser) else str(user)
        return [m.data for m in self.messages.values() if m.ephemeral_user == user_id and not m.deleted]

    def dms_for(self, user: FakeUser | str) -> list[dict[str, Any]]:
        user_id = user.id if isinstance(user, FakeUser) else str(user)
        channel_id = self.dm_channels.get(user_id)
        return self.public_messages(channel_id) if channel_id else []

    def custom_ids(self) -> list[str]:
        """Every component custom_id the client ever sent (to check Discord's 100-character limit)."""
        return list(self.sent_custom_ids)

    def expire_tokens(self) -> None:
        """Pretend 15 minutes passed: every interaction token so far stops working (50027)."""
        for interaction in self.interactions.values():
            interaction.expired = True


async def _read_body(request: web.Request) -> Any:
    """JSON body, or the ``payload_json`` part of a multipart upload (files are not kept)."""
    if request.content_type.startswith("multipart/"):
        form = await request.post()
        payload = form.get("payload_json")
        return json.loads(str(payload)) if payload is not None else {}
    raw = await request.read()
    return json.loads(raw) if raw else {}


def _json(data: Any, status: int = 200) -> web.Response:
    """JSON with the exact content type discord.py checks before decoding (no charset suffix)."""
    return web.Response(
        body=json.dumps(data).encode(), status=status, headers={"Content-Type": "application/json"}
    )
