"""Who opened the Discord Activity, proved by Discord, and the session token the page then signs in with.

The page runs the Embedded App SDK's handshake and ``authorize`` (scope ``identify``) and hands us the
authorization code it got, with the Activity's instance id. Nothing else the page says is believed:

- the code is exchanged at Discord's OAuth2 token endpoint (``POST /oauth2/token``, form-encoded, the
  authorization code grant with our client id and secret); Discord refuses a code it did not give out for
  this application, one used already and one expired (``invalid_grant``);
- the person is the one ``GET /users/@me`` names with that access token;
- the instance is read with the bot token (``GET /applications/{application id}/activity-instances/{instance
  id}``): it must be this application's, hold that person, and its location's channel is the chat whose
  game the page shows.

Then the page gets a session token naming the viewer, signed with a key derived from the client
secret (so any process of the bot checks it, and nobody without the secret makes one), good for
`SESSION_LIFETIME`. The access token goes back to the page for the SDK's ``authenticate``; neither the code
nor any token is logged: a refusal names its reason only.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import time
from dataclasses import dataclass
from enum import Enum
from typing import Any

import aiohttp

from adapters.web.sessions import Viewer
from bot.i18n import Translator, normalise_language
from bot.inputs import User
from storage.keys import DISCORD

log = logging.getLogger("durak.web.discord")

SESSION_LIFETIME = 12 * 3600  # seconds a session token signs the page in (an evening at the table)
MAX_CODE = 256  # characters: Discord's codes are ~30; anything longer is not one of them
MAX_TOKEN = 1024
TIMEOUT = aiohttp.ClientTimeout(total=10)
SESSION_SALT = b"durak discord activity session"


class Refusal(Enum):
    """Why a sign-in was refused; logged and shown by name, never with the code or a token."""

    CODE = "code"  # Discord refused the code: forged, used already, expired, another application's
    TOKEN = "token"  # Discord refused the access token (expired, revoked)
    INSTANCE = "instance"  # no such instance of this application (ended, forged)
    NOT_IN_INSTANCE = "not_in_instance"  # the instance does not hold this person
    UNAVAILABLE = "unavailable"  # Discord did not answer as documented


class SignInRefused(Exception):
    def __init__(self, reason: Refusal) -> None:
        super().__init__(f"Discord sign-in refused: {reason.value}")
        self.reason = reason


@dataclass(frozen=True, slots=True)
class ActivityUser:
    """The person an access token names."""

    id: str
    name: str
    lang: str


@dataclass(frozen=True, slots=True)
class SignedIn:
    """A checked sign-in: who, where (the instance's channel: the chat), and the token for ``authenticate``."""

    user: ActivityUser
    channel_id: str
    access_token: str


class DiscordOAuth:
    """Discord's OAuth2 and activity-instance endpoints for one application (``api_url``: Discord's API
    base, e.g. ``https://discord.com/api/v10``; a fake in tests)."""

    def __init__(self, api_url: str, client_id: str, client_secret: str, bot_token: str) -> None:
        self.api_url = api_url.rstrip("/")
        self.client_id, self.client_secret, self.bot_token = client_id, client_secret, bot_token
        self._http: aiohttp.ClientSession | None = None

    def http(self) -> aiohttp.ClientSession:
        if self._http is None or self._http.closed:
            self._http = aiohttp.ClientSession(timeout=TIMEOUT)
        return self._http

    async def close(self) -> None:
        if self._http is not None:
            await self._http.close()

    async def sign_in(self, code: str, instance_id: str) -> SignedIn:
        """The checks above, in order; raises `SignInRefused`."""
        access_token = await self.exchange(code)
        user = await self.user(access_token)
        channel_id = await self.instance_channel(instance_id, user.id)
        return SignedIn(user, channel_id, access_token)

    async def exchange(self, code: str) -> str:
        """The access token Discord gives for an authorization code."""
        form = {
            "client_id": self.client_id,
            "client_secret": self.client_secret,
            "grant_type": "authorization_code",
            "code": code,
        }
        status, body = await self._call("POST", "/oauth2/token", data=form)
        token = body.get("access_token") if isinstance(body, dict) else None
        if status in (400, 401) or (status == 200 and not isinstance(token, str)):
            raise SignInRefused(Refusal.CODE)
        if status != 200 or not isinstance(token, str):
            raise SignInRefused(Refusal.UNAVAILABLE)
        return token

    async def user(self, access_token: str) -> ActivityUser:
        status, body = await self._call("GET", "/users/@me", auth=f"Bearer {access_token}")
        if status == 401:
            raise SignInRefused(Refusal.TOKEN)
        user_id = body.get("id") if isinstance(body, dict) and status == 200 else None
        if not isinstance(user_id, str) or not user_id.isdigit():
            raise SignInRefused(Refusal.UNAVAILABLE)
        assert isinstance(body, dict)
        name = body.get("global_name") or body.get("username") or user_id
        return ActivityUser(user_id, str(name), normalise_language(str(body.get("locale") or "")))

    async def instance_channel(self, instance_id: str, user_id: str) -> str:
        """The channel of this application's instance ``instance_id`` when it holds ``user_id``."""
        if not instance_id or len(instance_id) > 64 or not instance_id.isascii():
            raise SignInRefused(Refusal.INSTANCE)
        path = f"/applications/{self.client_id}/activity-instances/{instance_id}"
        status, body = await self._call("GET", path, auth=f"Bot {self.bot_token}")
        if status == 404:
            raise SignInRefused(Refusal.INSTANCE)
        if status != 200 or not isinstance(body, dict):
            raise SignInRefused(Refusal.UNAVAILABLE)
        location = body.get("location")
        channel_id = location.get("channel_id") if isinstance(location, dict) else None
        if str(body.get("application_id")) != self.client_id or not isinstance(channel_id, str):
            raise SignInRefused(Refusal.INSTANCE)
        if user_id not in [str(user) for user in body.get("users") or []]:
            raise SignInRefused(Refusal.NOT_IN_INSTANCE)
        return channel_id

    async def _call(
        self, method: str, path: str, *, data: dict[str, str] | None = None, auth: str | None = None
    ) -> tuple[int, Any]:
        headers = {"Authorization": auth} if auth else {}
        try:
            async with self.http().request(method, self.api_url + path, data=data, headers=headers) as answer:
                try:
                    body = await answer.json(content_type=None)
                except ValueError:
                    body = None
                return answer.status, body
        except (aiohttp.ClientError, TimeoutError) as error:
            log.warning("Discord's %s did not answer: %s", path.split("/")[1], type(error).__name__)
            raise SignInRefused(Refusal.UNAVAILABLE) from None


class ActivitySessions:
    """Session tokens of Activity pages: ``<payload>.<signature>``, the payload the viewer and when the
    token lapses, the signature HMAC-SHA256 under a key derived from the client secret."""

    def __init__(
        self, client_secret: str, clock: Any = time.time, lifetime: float = SESSION_LIFETIME
    ) -> None:
        self._key = hmac.new(client_secret.encode(), SESSION_SALT, hashlib.sha256).digest()
        self.clock, self.lifetime = clock, lifetime

    def issue(self, user: ActivityUser) -> str:
        fields = {"u": user.id, "n": user.name, "l": user.lang}
        fields["e"] = str(int(self.clock() + self.lifetime))
        payload = base64.urlsafe_b64encode(json.dumps(fields, separators=(",", ":")).encode()).decode()
        return f"{payload}.{self._sign(payload)}"

    def viewer_of(self, token: str) -> Viewer | None:
        """The viewer of a token this application signed that has not lapsed, else None."""
        payload, _, signature = token.partition(".")
        if len(token) > MAX_TOKEN or not hmac.compare_digest(self._sign(payload), signature):
            return None
        try:
            fields = json.loads(base64.urlsafe_b64decode(payload.encode()))
            lapses, user = int(fields["e"]), User(str(fields["u"]), str(fields["n"]), str(fields["l"]))
        except (ValueError, KeyError, TypeError):
            return None
        return Viewer(DISCORD, user) if lapses > self.clock() else None

    def _sign(self, payload: str) -> str:
        return hmac.new(self._key, payload.encode(), hashlib.sha256).hexdigest()


def refusal_text(reason: Refusal, tr: Translator) -> str:
    """What the page shows for a refused sign-in."""
    if reason is Refusal.NOT_IN_INSTANCE or reason is Refusal.INSTANCE:
        return tr._("This table belongs to another Activity: open it again from the channel.")
    if reason is Refusal.UNAVAILABLE:
        return tr._("Discord did not answer the sign-in: close the Activity and open it again.")
    return tr._("Discord's sign-in could not be checked: close the Activity and open it again.")
