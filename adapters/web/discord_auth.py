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

Then the page gets a session token naming the viewer, the instance and its channel, signed with a key
derived from the client secret (so any process of the bot checks it, and nobody without the secret makes
one), good for `SESSION_LIFETIME`. It opens that channel's games only (`Viewer.chat_id`), and only while the
instance holds its person (`adapters.web.discord_instances`). The access token goes back to the page for the
SDK's ``authenticate``; neither the code nor any token is logged: a refusal names its reason only.

Discord is asked nothing for a request that is not shaped like a sign-in (`CODE`, `INSTANCE_ID`), and after
it answers 429 nothing until its ``Retry-After`` has passed (`Breaker`): junk sent to our sign-in route must
not become invalid requests from our address, which Discord bans at 10,000 in 10 minutes (the bot's gateway
and REST traffic leave from that address too). How many sign-ins reach Discord at all is bounded before
this module (`adapters.web.sign_in_gate`).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any
from urllib.parse import quote

import aiohttp

from adapters.web.sessions import Viewer
from bot.adapter import DISCORD, Translator, User, normalise_language

log = logging.getLogger("durak.web.discord")

# Seconds a session token signs the page in: longer than two long games back to back (a 6-player 52-card game
# with the turn timer runs about 40 minutes), and renewed by the page every third of it while its person is
# still in the instance (`POST api/discord/renew`), so a copied token is worth an hour at most.
SESSION_LIFETIME = 3600
RENEW_EVERY = SESSION_LIFETIME / 3  # the page's renewal period, sent with each token
# Discord's authorization codes are 30 letters and digits; a little room either way, nothing else.
CODE = re.compile(r"[A-Za-z0-9_-]{16,64}")
# Discord's instance ids: "i-<id>-gc-<guild id>-<channel id>" or "i-<id>-pc-<channel id>" today (up to 67
# characters with 20-digit ids); letters, digits and "-" only, with room for a longer form.
INSTANCE_ID = re.compile(r"[A-Za-z0-9-]{1,160}")
MAX_TOKEN = 1024
TIMEOUT = aiohttp.ClientTimeout(total=10)
SESSION_SALT = b"durak discord activity session"
DEFAULT_RETRY_AFTER = 5.0  # seconds to wait after a 429 that does not say how long


class Refusal(Enum):
    """Why a sign-in was refused; logged and shown by name, never with the code or a token."""

    CODE = "code"  # Discord refused the code: forged, used already, expired, another application's
    TOKEN = "token"  # Discord refused the access token (expired, revoked)
    INSTANCE = "instance"  # no such instance of this application (ended, forged)
    NOT_IN_INSTANCE = "not_in_instance"  # the instance does not hold this person
    UNAVAILABLE = "unavailable"  # Discord did not answer as documented
    BUSY = "busy"  # Discord asked us to slow down (429), or our own bounds did: nothing was asked of it


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
class InstanceSeen:
    """An Activity instance of this application as Discord described it: its channel and who is in it."""

    channel_id: str
    users: frozenset[str]


@dataclass(frozen=True, slots=True)
class SignedIn:
    """A checked sign-in: who, where (the instance and its channel: the chat), and the token for
    ``authenticate``."""

    user: ActivityUser
    instance_id: str
    instance: InstanceSeen
    access_token: str

    @property
    def channel_id(self) -> str:
        return self.instance.channel_id


class Breaker:
    """Open after Discord answers 429, for as long as its ``Retry-After`` says: no call is made meanwhile."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.closed_at = 0.0

    def is_open(self) -> bool:
        return self.clock() < self.closed_at

    def trip(self, seconds: float) -> None:
        self.closed_at = max(self.closed_at, self.clock() + seconds)


def retry_after(answer: aiohttp.ClientResponse, body: Any) -> float:
    """Seconds Discord asks us to wait: its ``Retry-After`` header, else the body's ``retry_after``."""
    for value in (
        answer.headers.get("Retry-After"),
        body.get("retry_after") if isinstance(body, dict) else None,
    ):
        try:
            seconds = float(value) if value is not None else None
        except (TypeError, ValueError):
            seconds = None
        if seconds is not None and 0 <= seconds < 3600:
            return seconds
    return DEFAULT_RETRY_AFTER


def well_formed(code: str, instance_id: str) -> bool:
    """A code and an instance id shaped as Discord makes them: only those are sent to Discord."""
    return bool(CODE.fullmatch(code) and INSTANCE_ID.fullmatch(instance_id))


class DiscordOAuth:
    """Discord's OAuth2 and activity-instance endpoints for one application (``api_url``: Discord's API
    base, e.g. ``https://discord.com/api/v10``; a fake in tests)."""

    def __init__(
        self, api_url: str, client_id: str, client_secret: str, bot_token: str, breaker: Breaker | None = None
    ) -> None:
        self.api_url = api_url.rstrip("/")
        self.client_id, self.client_secret, self.bot_token = client_id, client_secret, bot_token
        self.breaker = breaker or Breaker()
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
        if not well_formed(code, instance_id):
            raise SignInRefused(Refusal.CODE)
        access_token = await self.exchange(code)
        user = await self.user(access_token)
        instance = await self.instance(instance_id)
        if user.id not in instance.users:
            raise SignInRefused(Refusal.NOT_IN_INSTANCE)
        return SignedIn(user, instance_id, instance, access_token)

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

    async def instance(self, instance_id: str) -> InstanceSeen:
        """This application's instance ``instance_id``: its channel and its people. The id goes into the
        path as one segment of Discord's id characters, never as more of the path (the bot token signs the
        request)."""
        if not INSTANCE_ID.fullmatch(instance_id):
            raise SignInRefused(Refusal.INSTANCE)
        path = f"/applications/{self.client_id}/activity-instances/{quote(instance_id, safe='')}"
        status, body = await self._call("GET", path, auth=f"Bot {self.bot_token}")
        if status == 404:
            raise SignInRefused(Refusal.INSTANCE)
        if status != 200 or not isinstance(body, dict):
            raise SignInRefused(Refusal.UNAVAILABLE)
        location = body.get("location")
        channel_id = location.get("channel_id") if isinstance(location, dict) else None
        if str(body.get("application_id")) != self.client_id or not isinstance(channel_id, str):
            raise SignInRefused(Refusal.INSTANCE)
        return InstanceSeen(channel_id, frozenset(str(user) for user in body.get("users") or []))

    async def _call(
        self, method: str, path: str, *, data: dict[str, str] | None = None, auth: str | None = None
    ) -> tuple[int, Any]:
        """One call to Discord: its status and JSON body. Raises `SignInRefused` (BUSY) without calling while
        the breaker is open, and trips it on a 429."""
        if self.breaker.is_open():
            raise SignInRefused(Refusal.BUSY)
        headers = {"Authorization": auth} if auth else {}
        try:
            async with self.http().request(method, self.api_url + path, data=data, headers=headers) as answer:
                try:
                    body = await answer.json(content_type=None)
                except ValueError:
                    body = None
                if answer.status == 429:
                    wait = retry_after(answer, body)
                    self.breaker.trip(wait)
                    log.warning(
                        "Discord's %s answered 429: no sign-in call for %.1f s", path.split("/")[1], wait
                    )
                    raise SignInRefused(Refusal.BUSY)
                return answer.status, body
        except (aiohttp.ClientError, TimeoutError) as error:
            log.warning("Discord's %s did not answer: %s", path.split("/")[1], type(error).__name__)
            raise SignInRefused(Refusal.UNAVAILABLE) from None


class ActivitySessions:
    """Session tokens of Activity pages: ``<payload>.<signature>``, the payload the viewer, the instance and
    its channel, and when the token lapses; the signature HMAC-SHA256 under a key derived from the client
    secret."""

    def __init__(
        self, client_secret: str, clock: Any = time.time, lifetime: float = SESSION_LIFETIME
    ) -> None:
        self._key = hmac.new(client_secret.encode(), SESSION_SALT, hashlib.sha256).digest()
        self.clock, self.lifetime = clock, lifetime

    def issue(self, user: ActivityUser, instance_id: str, channel_id: str) -> str:
        fields = {"u": user.id, "n": user.name, "l": user.lang, "i": instance_id, "c": channel_id}
        fields["e"] = str(int(self.clock() + self.lifetime))
        payload = base64.urlsafe_b64encode(json.dumps(fields, separators=(",", ":")).encode()).decode()
        return f"{payload}.{self._sign(payload)}"

    def renewed(self, viewer: Viewer) -> str:
        """A new token for a viewer whose token is still good (the caller checked the instance holds them)."""
        assert viewer.instance_id is not None and viewer.chat_id is not None
        user = ActivityUser(viewer.user.id, viewer.user.name, viewer.user.lang)
        return self.issue(user, viewer.instance_id, viewer.chat_id)

    def viewer_of(self, token: str) -> Viewer | None:
        """The viewer of a token this application signed that has not lapsed, else None."""
        payload, _, signature = token.partition(".")
        if len(token) > MAX_TOKEN or not hmac.compare_digest(self._sign(payload), signature):
            return None
        try:
            fields = json.loads(base64.urlsafe_b64decode(payload.encode()))
            lapses, user = int(fields["e"]), User(str(fields["u"]), str(fields["n"]), str(fields["l"]))
            instance_id, channel_id = str(fields["i"]), str(fields["c"])
        except (ValueError, KeyError, TypeError):
            return None
        if lapses <= self.clock():
            return None
        return Viewer(DISCORD, user, chat_id=channel_id, instance_id=instance_id)

    def _sign(self, payload: str) -> str:
        return hmac.new(self._key, payload.encode(), hashlib.sha256).hexdigest()


def refusal_text(reason: Refusal, tr: Translator) -> str:
    """What the page shows for a refused sign-in."""
    if reason is Refusal.NOT_IN_INSTANCE or reason is Refusal.INSTANCE:
        return tr._("This table belongs to another Activity: open it again from the channel.")
    if reason is Refusal.UNAVAILABLE:
        return tr._("Discord did not answer the sign-in: close the Activity and open it again.")
    if reason is Refusal.BUSY:
        return tr._("Too many sign-ins right now: close the Activity and open it again in a minute.")
    return tr._("Discord's sign-in could not be checked: close the Activity and open it again.")
