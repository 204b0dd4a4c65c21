"""Who is in each Activity instance, as Discord says, asked at most once every `FRESH` seconds per instance.

An Activity's session opens its instance's channel only while the instance holds its person: a page's
requests, its WebSocket (checked again every `FRESH` seconds while open) and its token's renewal all ask
`holds`. Discord's answer (``GET /applications/{id}/activity-instances/{instance id}``, with the bot token)
is kept `FRESH` seconds, so a busy table costs Discord one call per instance per half minute whatever its
people do, and someone who leaves is signed out within that time. A seat is taken only by someone an
instance of the chat's channel holds now (`is_member`, the page's seat gate).

When Discord does not answer (or asks us to slow down), what it last said is used for up to `STALE_OK`
seconds, so a short outage at Discord does not stop a game; after that, or for an instance that has ended
(404), the answer is no.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from adapters.web.discord_auth import DiscordOAuth, InstanceSeen, Refusal, SignInRefused
from adapters.web.sessions import Viewer
from bot.adapter import LRU, ChatRef

log = logging.getLogger("durak.web.discord")

FRESH = 30.0  # seconds an instance's people are taken as Discord last said
STALE_OK = 300.0  # seconds what Discord last said still counts while it does not answer
KEPT = 10_000  # instances remembered in this process (a few hundred bytes each)


@dataclass(frozen=True, slots=True)
class Seen:
    instance: InstanceSeen | None  # None: Discord said the instance is not running
    at: float


class ActivityInstances:
    """The people of the instances this process has signed someone in through."""

    def __init__(self, oauth: DiscordOAuth, clock: Callable[[], float] = time.monotonic) -> None:
        self.oauth = oauth
        self.clock = clock
        self._seen: LRU[str, Seen] = LRU(KEPT)
        self._by_channel: LRU[str, set[str]] = LRU(KEPT)  # channel id -> instance ids seen in it
        self._asking: dict[str, asyncio.Future[Seen]] = {}  # one call per instance at a time

    def remember(self, instance_id: str, instance: InstanceSeen) -> None:
        """What a sign-in just read of the instance (so its first requests ask Discord nothing)."""
        self._keep(instance_id, Seen(instance, self.clock()))

    async def holds(self, viewer: Viewer) -> bool:
        """Whether the viewer's instance still holds them, in the channel their session opens."""
        if viewer.instance_id is None:
            return True
        instance = await self.people(viewer.instance_id)
        return (
            instance is not None
            and instance.channel_id == viewer.chat_id
            and viewer.user.id in instance.users
        )

    async def is_member(self, chat: ChatRef, user_id: str) -> bool:
        """Whether an instance of the chat's channel holds the person now (a `MembershipCheck`)."""
        for instance_id in list(self._by_channel.get(chat.chat_id) or ()):
            instance = await self.people(instance_id)
            if instance is not None and instance.channel_id == chat.chat_id and user_id in instance.users:
                return True
        return False

    async def people(self, instance_id: str) -> InstanceSeen | None:
        """The instance as Discord last said within `FRESH` seconds, asking it again when older."""
        seen = self._seen.touch(instance_id)
        if seen is not None and self.clock() - seen.at < FRESH:
            return seen.instance
        asking = self._asking.get(instance_id)
        if asking is None:
            asking = asyncio.ensure_future(self._ask(instance_id, seen))
            self._asking[instance_id] = asking
            asking.add_done_callback(lambda _: self._asking.pop(instance_id, None))
        return (await asyncio.shield(asking)).instance

    async def _ask(self, instance_id: str, before: Seen | None) -> Seen:
        try:
            seen = Seen(await self.oauth.instance(instance_id), self.clock())
        except SignInRefused as refused:
            if refused.reason is Refusal.INSTANCE:
                seen = Seen(None, self.clock())
            elif before is not None and self.clock() - before.at < STALE_OK:
                log.info("instance check: Discord %s, keeping what it said %.0f s ago", refused.reason.value,
                         self.clock() - before.at)  # fmt: skip
                return before
            else:
                return Seen(None, self.clock() - FRESH)  # no, and ask again at the next request
        self._keep(instance_id, seen)
        return seen

    def _keep(self, instance_id: str, seen: Seen) -> None:
        self._seen[instance_id] = seen
        if seen.instance is not None:
            channel = self._by_channel.touch(seen.instance.channel_id) or set()
            channel.add(instance_id)
            self._by_channel[seen.instance.channel_id] = channel
