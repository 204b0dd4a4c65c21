"""The live channel: every open page gets its own new state after every saved change of its chat.

Every save publishes "<chat>|<version>" on the chat's Redis channel (`storage.keys.live_channel`, from
inside the save script), whatever made it: a Telegram button, a turn timer, a page, another process. Each
process subscribes to the channels of the chats it has pages open on, and on a message builds each of
those pages' own state (one load of the chat for all of them) and sends it. Nothing but the chat and its
version crosses Redis: never a card.

Changes of one chat are coalesced: while a chat's pages are being sent one state, further messages make one
more round, not one each. A page is sent a state only when its version is newer than the last it got.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from adapters.web import presence
from adapters.web.presence import Listener
from adapters.web.sessions import Viewer
from storage.keys import LIVE_CHANNEL_PREFIX, ChatRef, live_channel

log = logging.getLogger("durak.web")

State = dict[str, Any]
LISTEN_POLL = 1.0  # seconds one read of the subscription waits before looking again
RETRY = 1.0  # seconds before listening again after Redis failed
GONE = -2  # `Page.version` after the page was told its game is no longer there for it


class Socket(Protocol):
    """What the hub needs of a WebSocket (aiohttp's `WebSocketResponse`)."""

    @property
    def closed(self) -> bool: ...

    async def send_str(self, data: str) -> None: ...


@dataclass(eq=False)
class Page:
    """One open page: its socket, who it speaks for, which chat and which game its ref named."""

    chat: ChatRef
    viewer: Viewer
    game_id: str
    socket: Socket
    id: str = field(default_factory=lambda: secrets.token_hex(6))
    version: int = -1  # the chat version of the last state sent


Render = Callable[[ChatRef, list[Page]], Awaitable[list[tuple[Page, State | None]]]]


class LiveHub:
    """The pages open in this process, per chat, and the Redis subscription that keeps them current."""

    def __init__(
        self,
        redis: Any,
        render: Render,
        gone: Callable[[Page], State],
        *,
        refresh: float = presence.REFRESH,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.redis = redis
        self.render = render  # each page's state (None: nothing to show it) from one load of the chat
        self.gone = gone  # the message for a page whose game is no longer there for it
        self.refresh_every = refresh
        self.clock = clock
        self.pages: dict[ChatRef, set[Page]] = {}
        self.listeners: list[Listener] = []  # presence changes in this process (`presence.Listener`)
        self._pubsub: Any = None
        self._running: dict[ChatRef, asyncio.Task[None]] = {}
        self._again: set[ChatRef] = set()
        self._tasks: list[asyncio.Task[None]] = []
        self._subscribed = asyncio.Event()

    # ---- lifetime ----------------------------------------------------------------------------------

    async def start(self) -> None:
        self._pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._listen()), loop.create_task(self._keep_presence())]

    async def stop(self) -> None:
        for task in [*self._tasks, *self._running.values()]:
            task.cancel()
        for task in [*self._tasks, *self._running.values()]:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks.clear()
        pages = [page for chat_pages in self.pages.values() for page in chat_pages]
        for page in pages:
            with contextlib.suppress(Exception):
                await self.remove(page)
        if self._pubsub is not None:
            with contextlib.suppress(Exception):
                await self._pubsub.aclose()
            self._pubsub = None

    def listen(self, listener: Listener) -> None:
        """Call ``listener(chat, user id, is_open)`` when a user's first page on a chat opens in this
        process, or their last one closes."""
        self.listeners.append(listener)

    # ---- pages -------------------------------------------------------------------------------------

    async def add(self, page: Page) -> None:
        """Register an open page (after its hello); subscribe to its chat; mark it present."""
        chat_pages = self.pages.setdefault(page.chat, set())
        first_of_chat = not chat_pages
        first_of_user = not any(other.viewer.user.id == page.viewer.user.id for other in chat_pages)
        chat_pages.add(page)
        if first_of_chat:
            await self._pubsub.subscribe(live_channel(page.chat))
            self._subscribed.set()
        await presence.mark_open(self.redis, [(page.chat, page.viewer.user.id, page.id)], self.clock())
        if first_of_user:
            await self._presence_changed(page.chat, page.viewer.user.id, True)

    async def remove(self, page: Page) -> None:
        chat_pages = self.pages.get(page.chat)
        if chat_pages is None or page not in chat_pages:
            return
        chat_pages.discard(page)
        if not chat_pages:
            del self.pages[page.chat]
            if self._pubsub is not None:
                await self._pubsub.unsubscribe(live_channel(page.chat))
        await presence.mark_closed(self.redis, page.chat, page.viewer.user.id, page.id)
        if not any(other.viewer.user.id == page.viewer.user.id for other in chat_pages):
            await self._presence_changed(page.chat, page.viewer.user.id, False)

    async def send_current(self, page: Page) -> bool:
        """Send the page its current state at once (a page that just said hello); False when there is
        nothing for it to see."""
        [(_, state)] = await self.render(page.chat, [page])
        if state is None:
            return False
        await self._send(page, state, force=True)
        return True

    def changed(self, chat: ChatRef) -> None:
        """The chat was saved: send each of its pages here its new state (coalesced, see module doc)."""
        if chat not in self.pages:
            return
        if chat in self._running:
            self._again.add(chat)
            return
        self._running[chat] = asyncio.get_running_loop().create_task(self._refresh(chat))

    # ---- inside ------------------------------------------------------------------------------------

    async def _refresh(self, chat: ChatRef) -> None:
        try:
            while True:
                self._again.discard(chat)
                pages = list(self.pages.get(chat, ()))
                if pages:
                    sent: dict[int, str] = {}  # pages sharing one state share its JSON text too
                    for page, state in await self.render(chat, pages):
                        await self._send(page, state, sent=sent)
                if chat not in self._again:
                    return
        except Exception:
            log.exception("sending the new state of %s to its pages failed", chat)
        finally:
            self._running.pop(chat, None)

    async def _send(
        self, page: Page, state: State | None, force: bool = False, sent: dict[int, str] | None = None
    ) -> None:
        """Send a state newer than the page's (or the "gone" message once, for None)."""
        if page.socket.closed:
            return
        if state is None:
            if page.version == GONE:
                return
            page.version, text = GONE, json.dumps(self.gone(page), ensure_ascii=False)
        else:
            version = int(state["version"])
            if version <= page.version and not force:
                return
            sent = {} if sent is None else sent
            if id(state) not in sent:
                sent[id(state)] = json.dumps({"type": "state", "state": state}, ensure_ascii=False)
            page.version, text = version, sent[id(state)]
        try:
            await page.socket.send_str(text)
        except (ConnectionError, RuntimeError):  # closed meanwhile: its handler removes it
            log.debug("page %s closed while sent a state", page.id)

    async def _listen(self) -> None:
        """Read the subscription; a save of a chat with pages here refreshes them. A Redis outage is
        retried; after it every chat is refreshed (saves may have been missed meanwhile)."""
        await self._subscribed.wait()
        failed = False
        while True:
            try:
                message = await self._pubsub.get_message(ignore_subscribe_messages=True, timeout=LISTEN_POLL)
                if failed:
                    failed = False
                    for chat in list(self.pages):
                        self.changed(chat)
            except asyncio.CancelledError:
                raise
            except Exception as error:
                if not failed:
                    log.warning("live channel: Redis failed (%s); retrying", error)
                failed = True
                await asyncio.sleep(RETRY)
                continue
            if message is not None and message.get("type") == "message":
                self._on_message(message.get("channel"), message.get("data"))

    def _on_message(self, channel: Any, data: Any) -> None:
        text = data.decode(errors="replace") if isinstance(data, bytes) else str(data)
        chat_text, _, what = text.rpartition("|")
        if not what.isdigit():
            return  # a presence note ("p"): pages show the game, not who looks at it
        try:
            chat = ChatRef.parse(chat_text)
        except ValueError:
            return
        name = channel.decode(errors="replace") if isinstance(channel, bytes) else str(channel)
        if name.startswith(LIVE_CHANNEL_PREFIX):
            self.changed(chat)

    async def _keep_presence(self) -> None:
        while True:
            await asyncio.sleep(self.refresh_every)
            open_now = [
                (chat, page.viewer.user.id, page.id) for chat, pages in self.pages.items() for page in pages
            ]
            try:
                await presence.mark_open(self.redis, open_now, self.clock())
            except Exception as error:  # the next round tries again; the fields last a few rounds
                log.warning("presence refresh failed: %s", error)

    async def _presence_changed(self, chat: ChatRef, user_id: str, is_open: bool) -> None:
        with contextlib.suppress(Exception):
            await self.redis.publish(live_channel(chat), f"{chat}|p")
        for listener in self.listeners:
            try:
                await listener(chat, user_id, is_open)
            except Exception:
                log.exception("presence listener failed for %s", chat)
