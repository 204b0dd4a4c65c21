"""The live channel: every open page gets its own new state after every saved change of its chat.

Every save publishes "<chat>|<version>" on the chat's Redis channel (`storage.keys.live_channel`, from
inside the save script), whatever made it: a Telegram button, a turn timer, a page, another process. Each
process subscribes to the channels of the chats it has pages open on, and on a message builds each of
those pages' own state (one load of the chat for all of them) and sends it. Nothing but the chat and its
version crosses Redis: never a card.

Changes of one chat are coalesced: while a chat's pages are being sent one state, further messages make one
more round, not one each. A page is sent a state only when its version is newer than the last it got.

One page never waits for another: each page has its own sender and one slot for the newest message not yet
sent (a newer state replaces an unsent older one: a page needs only the latest). A send that does not leave
within `SEND_TIMEOUT` (the page stopped reading: its socket's buffers are full) closes the page with
`CLOSE_TOO_SLOW`, and it counts as closed at once (presence removed, "last page closed" listeners called);
when it reconnects its hello is answered with the current state, as any page's.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import socket
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from adapters.web.sessions import Viewer
from bot.adapter import LIVE_CHANNEL_PREFIX, ChatRef, live_channel, presence

log = logging.getLogger("durak.web")

State = dict[str, Any]
LISTEN_POLL = 1.0  # seconds one read of the subscription waits before looking again
RETRY = 1.0  # seconds before listening again after Redis failed
GONE = -2  # `Page.version` after the page was told its game is no longer there for it

SEND_TIMEOUT = 10.0  # seconds one message may take to leave for a page before the page counts as lagging
CLOSE_TIMEOUT = 5.0  # seconds a lagging page is given to read its close frame before its connection is cut
WRITER_LIMIT = 16 * 1024  # bytes aiohttp writes to a socket before it waits for the transport to drain
KERNEL_SEND_BUFFER = 64 * 1024  # SO_SNDBUF of a page's socket (the kernel doubles it): a bounded backlog
CLOSE_TOO_SLOW = 4408  # closed: the page did not read its states (it reconnects and is current at once)
CLOSE_TOO_MANY = 4429  # refused: too many sockets of this person or this address are open here
MAX_SOCKETS_PER_PERSON = 8  # open sockets of one person in one process: a phone, a desktop, a few tabs
MAX_SOCKETS_PER_ADDRESS = 32  # open sockets from one address in one process, said hello or not

Key = TypeVar("Key", bound=Hashable)


class Socket(Protocol):
    """What the hub needs of a WebSocket (aiohttp's `WebSocketResponse`)."""

    @property
    def closed(self) -> bool: ...

    async def send_str(self, data: str) -> None: ...

    async def close(self, *, code: int = ..., message: bytes = ...) -> bool: ...


def no_abort() -> None:
    """A page without a transport to cut (a test's socket): closing it is all there is."""


@dataclass(eq=False)
class Page:
    """One open page: its socket, who it speaks for, which chat and which game its ref named."""

    chat: ChatRef
    viewer: Viewer
    game_id: str
    socket: Socket
    abort: Callable[[], None] = no_abort  # cut the connection at once (a page that reads no close frame)
    id: str = field(default_factory=lambda: secrets.token_hex(6))
    version: int = -1  # the chat version of the last state handed to its sender
    unsent: str | None = None  # the newest message its sender has not sent yet (one slot)
    sender: asyncio.Task[None] | None = None


Render = Callable[[ChatRef, list[Page]], Awaitable[list[tuple[Page, State | None]]]]
# told when a page opens or closes: (chat, user id, is_open)
Listener = Callable[[ChatRef, str, bool], Awaitable[None]]


class Quota(Generic[Key]):
    """At most `cap` held at once per key, in this process (open sockets per person, per address): a cap,
    not a rate, so it needs no clock and frees a place the moment a socket closes."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self._held: Counter[Key] = Counter()

    def take(self, key: Key) -> bool:
        if self._held[key] >= self.cap:
            return False
        self._held[key] += 1
        return True

    def give_back(self, key: Key) -> None:
        self._held[key] -= 1
        if self._held[key] <= 0:
            del self._held[key]


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
        send_timeout: float = SEND_TIMEOUT,
    ) -> None:
        self.redis = redis
        self.render = render  # each page's state (None: nothing to show it) from one load of the chat
        self.gone = gone  # the message for a page whose game is no longer there for it
        self.refresh_every = refresh
        self.clock = clock
        self.send_timeout = send_timeout
        self.pages: dict[ChatRef, set[Page]] = {}
        self.listeners: list[Listener] = []  # presence changes in this process (`Listener`)
        self.sockets_per_person: Quota[tuple[str, str]] = Quota(MAX_SOCKETS_PER_PERSON)  # (platform, user)
        self.sockets_per_address: Quota[str] = Quota(MAX_SOCKETS_PER_ADDRESS)
        self._pubsub: Any = None
        self._heard: dict[ChatRef, int] = {}  # the newest version announced of each chat with pages here
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
        pages = [page for chat_pages in self.pages.values() for page in chat_pages]
        senders = [page.sender for page in pages if page.sender is not None]
        for task in [*self._tasks, *self._running.values(), *senders]:
            task.cancel()
        for task in [*self._tasks, *self._running.values(), *senders]:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks.clear()
        for page in pages:
            with contextlib.suppress(Exception):
                await self.remove(page)
        if self._pubsub is not None:
            with contextlib.suppress(Exception):
                await self._pubsub.aclose()
            self._pubsub = None

    async def close_all(self, code: int, message: bytes) -> None:
        """Close every page at once (the server is stopping), none waiting for another or for long."""
        pages = [page for chat_pages in self.pages.values() for page in chat_pages]
        await asyncio.gather(*(close_page(page, code, message) for page in pages))

    def listen(self, listener: Listener) -> None:
        """Call ``listener(chat, user id, is_open)`` when a user's first page on a chat opens in this
        process, or their last one closes."""
        self.listeners.append(listener)

    # ---- pages -------------------------------------------------------------------------------------

    async def current(self, page: Page) -> State | None:
        """The page's current state, None when there is nothing for it to see: asked before the page is
        registered, so a hello that is refused costs this one load and nothing else."""
        [(_, state)] = await self.render(page.chat, [page])
        return state

    async def add(self, page: Page, state: State) -> None:
        """Register a page whose hello was accepted and send it ``state`` (`current`) at once; subscribe to
        its chat; mark it present."""
        chat_pages = self.pages.setdefault(page.chat, set())
        first_of_chat = not chat_pages
        first_of_user = not any(other.viewer.user.id == page.viewer.user.id for other in chat_pages)
        chat_pages.add(page)
        self._offer(page, state, force=True)
        if first_of_chat:
            await self._pubsub.subscribe(live_channel(page.chat))
            self._subscribed.set()
            self.changed(page.chat)  # a save between the page's load and the subscription was not heard
        elif self._heard.get(page.chat, -1) > page.version:
            self.changed(page.chat)  # announced after the page's load, maybe to a round without it
        await presence.mark_open(self.redis, [(page.chat, page.viewer.user.id, page.id)], self.clock())
        if first_of_user:
            await self._presence_changed(page.chat, page.viewer.user.id, True)

    async def remove(self, page: Page) -> None:
        """Unregister a page (closed, or closed for lagging); its user's last page here says so."""
        chat_pages = self.pages.get(page.chat)
        if chat_pages is None or page not in chat_pages:
            return
        chat_pages.discard(page)
        if page.sender is not None and page.sender is not asyncio.current_task():
            page.sender.cancel()
        if not chat_pages:
            del self.pages[page.chat]
            self._heard.pop(page.chat, None)
            if self._pubsub is not None:
                await self._pubsub.unsubscribe(live_channel(page.chat))
        await presence.mark_closed(self.redis, page.chat, page.viewer.user.id, page.id)
        if not any(other.viewer.user.id == page.viewer.user.id for other in chat_pages):
            await self._presence_changed(page.chat, page.viewer.user.id, False)

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
                        self._offer(page, state, sent=sent)
                if chat not in self._again:
                    return
        except Exception:
            log.exception("sending the new state of %s to its pages failed", chat)
        finally:
            self._running.pop(chat, None)

    def _offer(
        self, page: Page, state: State | None, force: bool = False, sent: dict[int, str] | None = None
    ) -> None:
        """Hand the page's sender a state newer than the page's (or the "gone" message once, for None);
        never waits for the page."""
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
        page.unsent = text  # an older message not sent yet is replaced: the page needs only the newest
        if page.sender is None or page.sender.done():
            page.sender = asyncio.get_running_loop().create_task(self._send(page))

    async def _send(self, page: Page) -> None:
        """The page's sender: its newest message until none is left. A send still waiting for the page to
        read after `send_timeout` closes the page for lagging."""
        while page.unsent is not None and not page.socket.closed:
            text, page.unsent = page.unsent, None
            # shielded: cancelling a send that waits for the socket to drain would cancel aiohttp's drain
            # waiter, which the socket's later writes share, so its close frame could not be written
            sending = asyncio.ensure_future(page.socket.send_str(text))
            sending.add_done_callback(_retrieve)
            try:
                await asyncio.wait_for(asyncio.shield(sending), self.send_timeout)
            except TimeoutError:
                await self._drop_lagging(page)
                return
            except (ConnectionError, RuntimeError):  # closed meanwhile: its handler removes it
                log.debug("page %s closed while sent a state", page.id)
                return

    async def _drop_lagging(self, page: Page) -> None:
        """A page that stopped reading: counted as closed first (the chat resumes its player's screens),
        then closed with `CLOSE_TOO_SLOW`."""
        log.info("page %s closed: it did not read its states for %.0f s", page.id, self.send_timeout)
        try:
            await self.remove(page)
        except Exception as error:  # Redis: its presence field lapses on its own (`presence.PAGE_TTL`)
            log.warning("page %s: removing its presence failed: %s", page.id, error)
        finally:
            await close_page(page, CLOSE_TOO_SLOW, b"too slow: reconnect")

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
        if name.startswith(LIVE_CHANNEL_PREFIX) and chat in self.pages:
            self._heard[chat] = max(self._heard.get(chat, -1), int(what))
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


async def close_page(page: Page, code: int, message: bytes) -> None:
    """Close a page's socket with ``code``, waiting at most `CLOSE_TIMEOUT` for it to read the close frame
    (a page that stopped reading never will), else cut its connection at once. A close that completed
    leaves the connection to flush what it holds, cut too if that still takes `CLOSE_TIMEOUT`: a page that
    stopped reading holds nothing of the server's for longer."""
    try:
        await asyncio.wait_for(page.socket.close(code=code, message=message), CLOSE_TIMEOUT)
    except asyncio.CancelledError:
        page.abort()
        raise
    except Exception:  # timed out (it reads nothing) or failed: nothing more to wait for
        page.abort()
    else:
        asyncio.get_running_loop().call_later(CLOSE_TIMEOUT, page.abort)  # a no-op once it is closed


def _retrieve(task: asyncio.Future[None]) -> None:
    """A send left running when the page was closed: its end (sent, failed, cancelled) needs no one."""
    if not task.cancelled():
        task.exception()


def bound_send_buffer(transport: asyncio.BaseTransport | None) -> None:
    """Give a page's socket a fixed kernel send buffer (`KERNEL_SEND_BUFFER`) instead of one that grows to
    megabytes when the page stops reading: its backlog stays small, and a page that stopped reading is
    noticed after a few hundred states instead of thousands."""
    sock = transport.get_extra_info("socket") if transport is not None else None
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, KERNEL_SEND_BUFFER)
